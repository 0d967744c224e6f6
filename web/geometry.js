// Hit testing for drags, with hysteresis. Pure: rectangles in, a target out.
//
// A target is {over: itemId, zone} (a tile) or {over: null, zone} (the empty space at the end of
// a zone). The pointer must be well inside a new tile before it becomes the target, and gaps
// between tiles keep the current target, so a live reorder never oscillates.

/** Fraction of a tile's width/height, per side, that does not switch the target. */
export const HYSTERESIS = 0.2;

/**
 * True when (x, y) is inside `r` shrunk by `inset` (a fraction of its size) on each side
 * (`insetY` for the top and bottom, when it differs).
 */
export function inside(r, x, y, inset = 0, insetY = inset) {
  const dx = r.width * inset;
  const dy = r.height * insetY;
  return x >= r.left + dx && x <= r.right - dx && y >= r.top + dy && y <= r.bottom - dy;
}

/** A stable string for a target (null → ''). */
export function targetKey(t) {
  return t ? `${t.zone}/${t.over ?? ''}` : '';
}

/**
 * The drop target under point {x, y}.
 * `zones`: [{id, rect, layout?, tiles: [{id, rect}]}] in layout order (tiles as currently laid
 * out); the hysteresis is along the way a zone runs: both ways in a grid, across a row's tiles
 * left to right, a list's rows top to bottom (a wide row is the target anywhere across it);
 * `dragged`: the lifted item id (its placeholder keeps the current target);
 * `current`: the target so far, or null.
 */
export function pickTarget({ x, y }, zones, dragged, current) {
  const zone = zones.find((z) => inside(z.rect, x, y));
  if (!zone) return null;
  const tile = zone.tiles.find((t) => inside(t.rect, x, y));
  if (tile) {
    if (tile.id === dragged) return current && current.zone === zone.id ? current : { over: dragged, zone: zone.id };
    if (current && current.over === tile.id) return current;
    const ix = zone.layout === 'list' ? 0 : HYSTERESIS;
    const iy = zone.layout === 'row' ? 0 : HYSTERESIS;
    if (inside(tile.rect, x, y, ix, iy)) return { over: tile.id, zone: zone.id };
    return current;
  }
  const others = zone.tiles.filter((t) => t.id !== dragged);
  if (others.length === 0 || pastLast(zone.tiles, x, y)) return { over: null, zone: zone.id };
  return current;
}

/** True when the point is after the last tile in reading order: below it, or right of it on its row. */
function pastLast(tiles, x, y) {
  if (tiles.length === 0) return true;
  const last = tiles[tiles.length - 1].rect;
  if (y > last.bottom) return true;
  return y >= last.top && x > last.right;
}

/**
 * Where a drag locked to `axis` ('x' or 'y', or null for none) puts the point `p`: the other
 * coordinate stays where the drag started (`origin`), so a lifted list row never leaves its column.
 */
export function lockAxis(p, origin, axis) {
  if (!origin || (axis !== 'x' && axis !== 'y')) return { x: p.x, y: p.y };
  return axis === 'y' ? { x: origin.x, y: p.y } : { x: p.x, y: origin.y };
}

/**
 * The next keyboard target from `current` for `key` (ArrowLeft/Right/Up/Down).
 * `zones`: [{id, items, layout ('grid'|'row'|'list'), columns}] from the board as shown (without
 * any preview); every zone also has an end slot {over: null}. A zone without `layout` is a grid
 * when it has more than one column, else a row.
 *
 * The arrows follow the layout. Along a zone (left/right in a grid or a row, up/down in a list)
 * they walk the slots in reading order and go on into the neighbouring zone at its ends. Across
 * it (up/down in a grid, by `columns`; up/down from a row; left/right from a list) they go to the
 * neighbouring zone, to the slot in line with the current one: the same column of a grid's first
 * or last row, the same index of a row or a list.
 */
export function nextKeyboardTarget(zones, current, key) {
  const zs = zones.map((z) => {
    const layout = ['grid', 'row', 'list'].includes(z.layout) ? z.layout : ((z.columns || 1) > 1 ? 'grid' : 'row');
    return { id: z.id, items: z.items, layout, cols: layout === 'grid' ? Math.max(1, z.columns || 1) : 1 };
  });
  const slots = [];
  zs.forEach((z, zi) => {
    z.items.forEach((id, i) => slots.push({ over: id, zone: z.id, zi, i }));
    slots.push({ over: null, zone: z.id, zi, i: z.items.length });
  });
  let at = slots.findIndex((s) => s.zone === current.zone && s.over === (current.over ?? null));
  if (at < 0) at = 0;
  const here = slots[at];
  const z = zs[here.zi];
  const vertical = key === 'ArrowUp' || key === 'ArrowDown';
  const forward = key === 'ArrowDown' || key === 'ArrowRight';
  if (!vertical && key !== 'ArrowLeft' && key !== 'ArrowRight') return { over: here.over, zone: here.zone };
  let next = here;
  if ((z.layout === 'list') === vertical) {
    // Along the zone: reading order, on into the neighbouring zone.
    next = slots[Math.min(slots.length - 1, Math.max(0, at + (forward ? 1 : -1)))];
  } else if (z.layout === 'grid' && here.i + (forward ? z.cols : -z.cols) >= 0
    && here.i + (forward ? z.cols : -z.cols) <= z.items.length && z.cols > 1) {
    next = slots[at + (forward ? z.cols : -z.cols)];
  } else {
    const to = here.zi + (forward ? 1 : -1);
    if (to >= 0 && to < zs.length) {
      const pos = z.layout === 'grid' ? here.i % z.cols : here.i;
      next = slots.find((s) => s.zi === to && s.i === entry(zs[to], pos, vertical, forward));
    }
  }
  next = next ?? here;
  return { over: next.over, zone: next.zone };
}

/**
 * The slot index at which an arrow enters zone `z`: in line with `pos` (a column, or an index)
 * when the arrow crosses `z` the way `z` is laid out across, else its first (forward) or end slot.
 */
function entry(z, pos, vertical, forward) {
  const n = z.items.length;
  if (z.layout === 'grid' && vertical) {
    if (forward) return Math.min(n, pos);
    return Math.min(n, Math.floor(n / z.cols) * z.cols + pos);
  }
  if ((z.layout === 'row' && vertical) || (z.layout === 'list' && !vertical)) return Math.min(n, pos);
  return forward ? 0 : n;
}

/** How far from a scrolling box's edge (px) a drag starts to scroll it. */
export const SCROLL_EDGE = 48;

/**
 * The scroll speed (px a frame, negative: back) for a pointer at `p` in a box from `lo` to `hi`
 * along one axis: 0 in the middle, growing to 20 as the pointer nears (or passes) an edge. A box
 * too small for two edges scrolls from its outer thirds.
 */
export function edgeSpeed(p, lo, hi) {
  const edge = Math.min(SCROLL_EDGE, (hi - lo) / 3);
  if (!(edge > 0)) return 0;
  if (p < lo + edge) return -Math.min(20, Math.ceil((lo + edge - p) / 3));
  if (p > hi - edge) return Math.min(20, Math.ceil((p - (hi - edge)) / 3));
  return 0;
}
