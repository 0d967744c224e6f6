// Virtualized zones (issue 36): a zone of many cards scrolls on its own and has tiles only for the
// cards on screen (and a few around them); the others are stood for by spacers of their
// estimated size. A zone is windowed in *lines*: a list's line is one card (a row, top to bottom),
// a grid's is one row of its columns (top to bottom), a row zone's is one card (left to right).
// The window follows the zone's scroll; cards that must stay in the DOM wherever they are (the
// focused one, the lifted one, the drop target, one being edited) are "pinned": their whole line
// is rendered in its place between spacers (a grid's cells stay in their columns). Pure functions
// first (what to render), then the part that measures and scrolls the DOM.

/** Zones with more items than this are windowed; smaller ones keep every tile. */
export const VIRTUAL_MIN = 60;
/** Lines rendered past each end of the visible part of a zone (about a screen of scrolling). */
export const OVERSCAN = 12;
/** The line size (px, gap included) assumed until a zone's tiles are measured. */
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

/**
 * How a zone of layout `lay` is windowed: `axis` 'y' (scrolls down) or 'x' (across, a row zone),
 * `per` cards a line (a grid's columns, else 1).
 */
export function lineShape(lay) {
  return { axis: lay?.layout === 'row' ? 'x' : 'y', per: lay?.layout === 'grid' ? Math.max(1, lay.columns || 1) : 1 };
}

/**
 * The segments of a zone of `count` cards, `per` a line, whose window is the lines `range`, with
 * the cards at indices `pinned` kept: `{index}` for each card rendered (every card of a rendered
 * line, in order), `{pad: n, from}` for a spacer standing for n lines whose first card is `from`.
 */
export function cardSegments(count, per, range, pinned = []) {
  const lines = Math.ceil(count / per);
  const out = [];
  for (const seg of segments(lines, range, pinned.map((i) => Math.floor(i / per)))) {
    if (seg.pad) out.push({ pad: seg.pad, from: seg.from * per });
    else for (let i = seg.index * per; i < Math.min(count, (seg.index + 1) * per); i += 1) out.push({ index: i });
  }
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
 * The DOM side: per zone, its shape (lineShape), measured line size and gap, and the window last
 * rendered. `view` is the board View (its document); `changed` is called (once a frame at most)
 * when a zone's scroll moved its window, to render the board again.
 */
export class VirtualZones {
  constructor(view) {
    this.view = view;
    this.rows = new Map(); // zone id → measured line size (px, gap included)
    this.gaps = new Map(); // zone id → the gap between its lines (px), read once
    this.shapes = new Map(); // zone id → {axis, per}
    this.ranges = new Map(); // zone id → {start, end} (lines) last rendered
    this.listening = new WeakSet();
    this.frame = null;
    this.changed = null;
  }

  /** True when the zone `lay` of `count` items is windowed. */
  windowed(lay, count) {
    return ['list', 'grid', 'row'].includes(lay?.layout) && count > VIRTUAL_MIN;
  }

  /** The line size of a zone: measured, else the default. */
  row(zoneId) {
    return this.rows.get(zoneId) ?? DEFAULT_ROW;
  }

  /** How a zone is windowed (lineShape), as its last render read it. */
  shape(zoneId) {
    return this.shapes.get(zoneId) ?? { axis: 'y', per: 1 };
  }

  /** A zone's scroll position and box size along its axis. */
  box(zoneId, list) {
    return this.shape(zoneId).axis === 'x'
      ? { at: list.scrollLeft, size: list.clientWidth }
      : { at: list.scrollTop, size: list.clientHeight };
  }

  /**
   * Reads where the windowed zone `lay` is scrolled and how big its box is, before a render
   * writes anything: the reads of the next zone after the writes of the last would each wait for
   * a layout of the page.
   */
  read(zoneId, list, lay) {
    this.shapes.set(zoneId, lineShape(lay));
    this.listen(zoneId, list);
    return this.box(zoneId, list);
  }

  /** The segments (cardSegments) to render for a windowed zone whose box `read` gave, with the pinned indices. */
  plan(zoneId, box, count, pinned) {
    const shape = this.shape(zoneId);
    const { at, size } = box;
    const range = visibleRange(Math.ceil(count / shape.per), at, size || 600, this.row(zoneId));
    this.ranges.set(zoneId, range);
    return cardSegments(count, shape.per, range, pinned);
  }

  /** Re-renders when a windowed zone scrolls past what it has rendered. */
  listen(zoneId, list) {
    if (this.listening.has(list)) return;
    this.listening.add(list);
    list.addEventListener('scroll', () => {
      const had = this.ranges.get(zoneId);
      if (!had || !list.classList.contains('is-windowed')) return;
      const lines = Math.ceil(Number(list.dataset.count ?? 0) / this.shape(zoneId).per);
      const { at, size } = this.box(zoneId, list);
      const now = visibleRange(lines, at, size, this.row(zoneId), 0);
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

  /** The gap between a zone's lines (read from its style once: a read per render would recalc styles). */
  gap(zoneId, list) {
    let gap = this.gaps.get(zoneId);
    if (gap == null) {
      const style = this.view.doc.defaultView.getComputedStyle(list);
      gap = parseFloat(this.shape(zoneId).axis === 'x' ? style.columnGap : style.rowGap) || 0;
      this.gaps.set(zoneId, gap);
    }
    return gap;
  }

  /**
   * Measures a zone's line size from its rendered tiles (the distance from a tile to the one a
   * line further on, on average), the first time it has a few; later renders keep it, so that
   * spacers do not change size under the user's scroll. True when it was measured now (the
   * window, planned with the default, is then planned again).
   */
  measure(zoneId, list) {
    if (this.rows.has(zoneId)) return false;
    const { axis, per } = this.shape(zoneId);
    const edge = (e) => (axis === 'x' ? e.getBoundingClientRect().left : e.getBoundingClientRect().top);
    // Tiles a line apart with only tiles between them (a spacer or a hidden tile says nothing of a line).
    const run = [];
    const steps = [];
    for (const e of list.children) {
      if (!e.dataset.item || e.hidden) { run.length = 0; continue; }
      run.push(e);
      if (run.length > per) steps.push(edge(run[run.length - 1]) - edge(run[run.length - 1 - per]));
      if (steps.length >= 8) break;
    }
    if (steps.length < 3) return false;
    const row = steps.reduce((a, b) => a + b, 0) / steps.length;
    if (!(row > 8)) return false;
    this.rows.set(zoneId, row);
    return Math.abs(row - DEFAULT_ROW) >= 0.5;
  }

  /** Sizes a spacer for `n` lines of the zone (the zone's gap is between it and its neighbours). */
  size(pad, zoneId, n, gap) {
    const px = `${Math.max(0, n * this.row(zoneId) - gap)}px`;
    const prop = this.shape(zoneId).axis === 'x' ? 'width' : 'height';
    if (pad.style[prop] !== px) pad.style[prop] = px;
  }

  /** Scrolls a windowed zone so that card `index` is in its box; true when it scrolled. */
  bringIntoBox(zoneId, list, index) {
    const { axis, per } = this.shape(zoneId);
    const { at, size } = this.box(zoneId, list);
    const to = scrollFor(Math.floor(index / per), this.row(zoneId), at, size);
    if (Math.abs(to - at) < 1) return false;
    if (axis === 'x') list.scrollLeft = to;
    else list.scrollTop = to;
    return true;
  }

  /** Forgets measurements (the zones were built again). */
  reset() {
    this.rows.clear();
    this.gaps.clear();
    this.shapes.clear();
    this.ranges.clear();
  }
}
