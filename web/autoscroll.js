// Autoscroll while dragging (issue 35; view.js): near an edge of a scrolling box under the
// pointer (a row, a windowed zone, the kanban lanes on a phone) or of the window, that scrolls,
// faster the nearer the pointer; the innermost box that can still move along an axis takes it.

import { edgeSpeed } from './geometry.js';

/**
 * Whether an element scrolls along each axis by its style (overflow auto or scroll), kept per
 * element: reading the computed style of every box under the pointer each frame of a drag would
 * recalculate the styles the last render dirtied. An element's overflow comes from its classes
 * and the window's size (media queries), read again when either changed; a zone built again is a
 * new element.
 */
const overflows = new WeakMap();

function overflowOf(win, e) {
  let o = overflows.get(e);
  if (!o) {
    const style = win.getComputedStyle(e);
    o = {
      x: /auto|scroll/.test(style.overflowX), y: /auto|scroll/.test(style.overflowY),
      classes: e.className, size: `${win.innerWidth}x${win.innerHeight}`,
    };
    overflows.set(e, o);
  }
  return o;
}

/** What overflowOf read, read again when `e`'s classes or the window's size changed since. */
function fresh(win, e) {
  const o = overflowOf(win, e);
  if (o.classes === e.className && o.size === `${win.innerWidth}x${win.innerHeight}`) return o;
  overflows.delete(e);
  return overflowOf(win, e);
}

/**
 * Scrolls what the point (x, y) of `doc`'s window is near the edge of (geometry.js edgeSpeed:
 * at most 20 px a frame). Returns true while something scrolled.
 */
export function autoScroll(doc, x, y) {
  const win = doc.defaultView;
  const want = { x: 0, y: 0 };
  let moved = false;
  const done = { x: false, y: false };
  for (let e = doc.elementFromPoint(x, y); e && e !== doc.body && e !== doc.documentElement; e = e.parentElement) {
    const o = fresh(win, e);
    if (!o.x && !o.y) continue;
    const r = e.getBoundingClientRect();
    for (const axis of ['x', 'y']) {
      if (done[axis] || !o[axis]) continue;
      if (axis === 'x' ? e.scrollWidth <= e.clientWidth : e.scrollHeight <= e.clientHeight) continue;
      const v = axis === 'x' ? edgeSpeed(x, r.left, r.right) : edgeSpeed(y, r.top, r.bottom);
      if (!v) continue;
      const before = axis === 'x' ? e.scrollLeft : e.scrollTop;
      e.scrollBy(axis === 'x' ? v : 0, axis === 'y' ? v : 0);
      if ((axis === 'x' ? e.scrollLeft : e.scrollTop) !== before) { done[axis] = true; moved = true; }
    }
  }
  if (!done.x) want.x = edgeSpeed(x, 0, win.innerWidth);
  if (!done.y) want.y = edgeSpeed(y, 0, win.innerHeight);
  if (want.x || want.y) {
    const [sx, sy] = [win.scrollX, win.scrollY];
    win.scrollBy(want.x, want.y);
    if (win.scrollX !== sx || win.scrollY !== sy) moved = true;
  }
  return moved;
}
