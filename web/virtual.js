// Virtualized zones (issue 36): a list zone (a kanban column) of many cards scrolls on its own and
// has tiles only for the cards on screen (and a few around them); the others are stood for by
// spacers of their estimated height. The window follows the column's scroll; cards that must stay
// in the DOM wherever they are (the focused one, the lifted one, the drop target, one being
// edited) are "pinned" and rendered in their places between spacers. Pure functions first (what to
// render), then the part that measures and scrolls the DOM.

/** List zones with more items than this are windowed; smaller ones keep every tile. */
export const VIRTUAL_MIN = 60;
/** Tiles rendered past each end of the visible part of a column (one screen of scrolling). */
export const OVERSCAN = 12;
/** The row height (px, gap included) assumed until a column's tiles are measured. */
export const DEFAULT_ROW = 70;

/**
 * The indices [start, end) of a column of `count` rows of `row` px each (gap included) that a
 * box scrolled to `scrollTop` and `height` px tall shows, widened by `overscan` rows each way.
 */
export function visibleRange(count, scrollTop, height, row, overscan = OVERSCAN) {
  const r = row > 0 ? row : DEFAULT_ROW;
  const first = Math.floor(Math.max(0, scrollTop) / r);
  const last = Math.ceil((Math.max(0, scrollTop) + Math.max(0, height)) / r);
  const start = Math.max(0, Math.min(count, first - overscan));
  const end = Math.max(start, Math.min(count, last + overscan));
  return { start, end };
}

/**
 * What a windowed column holds, in order: `{index}` for a rendered tile, `{pad: n}` for a spacer
 * standing for n rows. Rendered: [start, end) of `range`, and every index in `pinned` (each in
 * its place, with spacers around it).
 */
export function segments(count, range, pinned = []) {
  const shown = new Set();
  for (let i = range.start; i < range.end; i += 1) shown.add(i);
  for (const i of pinned) if (Number.isInteger(i) && i >= 0 && i < count) shown.add(i);
  const order = [...shown].sort((a, b) => a - b);
  const out = [];
  let at = 0;
  for (const i of order) {
    if (i > at) out.push({ pad: i - at, from: at });
    out.push({ index: i });
    at = i + 1;
  }
  if (at < count) out.push({ pad: count - at, from: at });
  return out;
}

/** The scrollTop that brings row `index` (of `row` px) into a box of `height` px showing `scrollTop`, moving as little as needed. */
export function scrollFor(index, row, scrollTop, height) {
  const top = index * row;
  if (top < scrollTop) return top;
  if (top + row > scrollTop + height) return Math.max(0, top + row - height);
  return scrollTop;
}

/**
 * The DOM side: per zone, its measured row height and whether it is windowed. `view` is the
 * board View (its zone lists, layouts); `changed` is called (once a frame at most) when a
 * column's scroll moved its window, to render the board again.
 */
export class VirtualZones {
  constructor(view) {
    this.view = view;
    this.rows = new Map(); // zone id → measured row height (px, gap included)
    this.ranges = new Map(); // zone id → {start, end} last rendered
    this.listening = new WeakSet();
    this.frame = null;
    this.changed = null;
  }

  /** True when the zone `lay` of `count` items is windowed. */
  windowed(lay, count) {
    return lay?.layout === 'list' && count > VIRTUAL_MIN;
  }

  /** The row height of a zone: measured, else the default. */
  row(zoneId) {
    return this.rows.get(zoneId) ?? DEFAULT_ROW;
  }

  /** The segments to render for a windowed zone, given the pinned indices. */
  plan(zoneId, list, count, pinned) {
    this.listen(zoneId, list);
    const range = visibleRange(count, list.scrollTop, list.clientHeight || 600, this.row(zoneId));
    this.ranges.set(zoneId, range);
    return segments(count, range, pinned);
  }

  /** Re-renders when a windowed column scrolls past what it has rendered. */
  listen(zoneId, list) {
    if (this.listening.has(list)) return;
    this.listening.add(list);
    list.addEventListener('scroll', () => {
      const had = this.ranges.get(zoneId);
      if (!had) return;
      const count = Number(list.dataset.count ?? 0);
      const now = visibleRange(count, list.scrollTop, list.clientHeight, this.row(zoneId), 0);
      // Inside what is rendered already (the overscan): nothing to do.
      if (now.start >= had.start && now.end <= had.end) return;
      this.request();
    }, { passive: true });
  }

  /** Asks for a render in the next frame (at most one a frame). */
  request() {
    if (this.frame != null) return;
    const win = this.view.doc.defaultView;
    this.frame = win.requestAnimationFrame(() => {
      this.frame = null;
      this.changed?.();
    });
  }

  /**
   * Measures a zone's row height from its rendered tiles (the distance from the first's top to
   * the next, on average), the first time it has a few; later renders keep it, so that spacers
   * do not change height under the user's scroll. True when it was measured now (the window,
   * planned with the default, is then planned again).
   */
  measure(zoneId, list) {
    if (this.rows.has(zoneId)) return false;
    // Neighbouring tiles only (a spacer or a hidden tile between two says nothing of a row).
    const steps = [];
    let prev = null;
    for (const e of list.children) {
      const tile = e.dataset.item && !e.hidden ? e : null;
      if (tile && prev) steps.push(tile.getBoundingClientRect().top - prev.getBoundingClientRect().top);
      prev = tile;
    }
    if (steps.length < 3) return false;
    const row = steps.reduce((a, b) => a + b, 0) / steps.length;
    if (!(row > 8)) return false;
    this.rows.set(zoneId, row);
    return Math.abs(row - DEFAULT_ROW) >= 0.5;
  }

  /** Sizes a spacer for `n` rows of the zone (the list's gap is between it and its neighbours). */
  size(pad, zoneId, n, gap) {
    const px = Math.max(0, n * this.row(zoneId) - gap);
    const want = `${px}px`;
    if (pad.style.height !== want) pad.style.height = want;
  }

  /** Scrolls a windowed zone so that row `index` is in its box; true when it scrolled. */
  bringIntoBox(zoneId, list, index) {
    const row = this.row(zoneId);
    const to = scrollFor(index, row, list.scrollTop, list.clientHeight);
    if (Math.abs(to - list.scrollTop) < 1) return false;
    list.scrollTop = to;
    return true;
  }

  /** Forgets measurements (the zones were built again). */
  reset() {
    this.rows.clear();
    this.ranges.clear();
  }
}
