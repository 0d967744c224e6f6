// The one way the view modules make elements: el(doc, 'li', { className: 'x', text: name,
// dataset: { user: id }, attrs: { 'aria-label': 'Move' }, style: { '--columns': '4' } }, child, …). Text goes in with
// textContent, never as HTML; any other key is set as a property (type, name, value, checked,
// href, hidden, tabIndex).

/** A new `tag` element of `doc` with `props` set and `children` appended. */
export function el(doc, tag, props = {}, ...children) {
  const e = doc.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === 'text') e.textContent = value;
    else if (key === 'dataset') Object.assign(e.dataset, value);
    else if (key === 'attrs') for (const [name, v] of Object.entries(value)) e.setAttribute(name, v);
    else if (key === 'style') for (const [name, v] of Object.entries(value)) e.style.setProperty(name, v);
    else e[key] = value;
  }
  e.append(...children);
  return e;
}

/** Whether the user asked for less motion (hands jump, tiles do not glide). */
export const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
