// The page's icons: inline SVG (24 × 24, drawn with the current text color), made with the DOM
// (no markup strings, no files to fetch). An icon is always decoration: the control it sits in
// carries the accessible name (aria-label, or visible text beside it).

const SVG = 'http://www.w3.org/2000/svg';

/** Each icon as the `d` of its paths. */
export const ICONS = {
  board: ['M4 4h7v7H4z', 'M13 4h7v4h-7z', 'M13 10h7v10h-7z', 'M4 13h7v7H4z'],
  undo: ['M9 14 4 9l5-5', 'M4 9h10.5a5.5 5.5 0 0 1 0 11H11'],
  redo: ['m15 14 5-5-5-5', 'M20 9H9.5a5.5 5.5 0 0 0 0 11H13'],
  history: ['M3 12a9 9 0 1 0 9-9 9.75 9.75 0 0 0-6.74 2.74L3 8', 'M3 3v5h5', 'M12 7v5l4 2'],
  filter: ['M22 3H2l8 9.46V19l4 2v-8.54L22 3z'],
  link: ['M10 13a5 5 0 0 0 7.54.54l3-3a5 5 0 0 0-7.07-7.07l-1.72 1.71', 'M14 11a5 5 0 0 0-7.54-.54l-3 3a5 5 0 0 0 7.07 7.07l1.71-1.71'],
  share: ['M4 12v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8', 'm16 6-4-4-4 4', 'M12 2v13'],
  plus: ['M12 5v14', 'M5 12h14'],
  column: ['M4 4h6v16H4z', 'M14 4h6v7h-6z', 'M17 14v6', 'M14 17h6'],
  swap: ['m16 3 4 4-4 4', 'M20 7H4', 'm8 21-4-4 4-4', 'M4 17h16'],
  move: ['m5 9-3 3 3 3', 'm9 5 3-3 3 3', 'm15 19-3 3-3-3', 'm19 9 3 3-3 3', 'M2 12h20', 'M12 2v20'],
  paint: ['M9.06 11.9 17.47 3.5a2.12 2.12 0 0 1 3 3l-8.4 8.4', 'M7.07 14.94C5.4 14.94 4 16.35 4 18.02 4 19.33 3 20 2 20c1 1.5 3 2 4.5 2 2.6 0 4.57-1.97 4.57-4.43 0-1.65-1.35-2.63-3-2.63z'],
  menu: ['M4 6h16', 'M4 12h16', 'M4 18h16'],
  close: ['M18 6 6 18', 'm6 6 12 12'],
  pencil: ['M17 3a2.85 2.85 0 1 1 4 4L7.5 20.5 2 22l1.5-5.5Z'],
  trash: ['M3 6h18', 'M19 6v14a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V6', 'M8 6V4a2 2 0 0 1 2-2h4a2 2 0 0 1 2 2v2'],
  comment: ['M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z'],
  people: ['M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2', 'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M22 21v-2a4 4 0 0 0-3-3.87', 'M16 3.13a4 4 0 0 1 0 7.75'],
};

/** A new `<svg>` of the icon `name` (aria-hidden), or null for an unknown name. */
export function icon(doc, name) {
  const paths = ICONS[name];
  if (!paths) return null;
  const svg = doc.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'icon');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of paths) {
    const p = doc.createElementNS(SVG, 'path');
    p.setAttribute('d', d);
    svg.append(p);
  }
  return svg;
}

/** Puts its icon first in every element of `root` with `data-icon` that has none yet. */
export function fillIcons(root) {
  for (const e of root.querySelectorAll('[data-icon]')) {
    if (e.querySelector(':scope > svg.icon')) continue;
    const svg = icon(root.ownerDocument ?? root, e.dataset.icon);
    if (svg) e.prepend(svg);
  }
}
