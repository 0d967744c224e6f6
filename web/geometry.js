// Hit testing for drags, with hysteresis. Pure: rectangles in, a target out.
//
// A target is {over: itemId, zone} (a tile) or {over: null, zone} (the empty space at the end of
// a zone). The pointer must be well inside a new tile before it becomes the target, and gaps
// between tiles keep the current target, so a live reorder never oscillates.

/** Fraction of a tile's width/height, per side, that does not switch the target. */
export const HYSTERESIS = 0.2;

/** True when (x, y) is inside `r` shrunk by `inset` (a fraction of its size) on each side. */
export function inside(r, x, y, inset = 0) {
  const dx = r.width * inset;
  const dy = r.height * inset;
  return x >= r.left + dx && x <= r.right - dx && y >= r.top + dy && y <= r.bottom - dy;
}

/** A stable string for a target (null → ''). */
export function targetKey(t) {
  return t ? `${t.zone}/${t.over ?? ''}` : '';
}

/**
 * The drop target under point {x, y}.
 * `zones`: [{id, rect, tiles: [{id, rect}]}] in layout order (tiles as currently laid out);
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
    if (inside(tile.rect, x, y, HYSTERESIS)) return { over: tile.id, zone: zone.id };
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
 * The next keyboard target from `current` for `key` (ArrowLeft/Right/Up/Down).
 * `zones`: [{id, items, columns}] from the board as shown (without any preview); every zone
 * also has an end slot {over: null}. Left/Right walk reading order across zones; Up/Down move
 * by `columns` inside a zone and jump to the neighbouring zone at its edges.
 */
export function nextKeyboardTarget(zones, current, key) {
  const slots = [];
  zones.forEach((z, zi) => {
    z.items.forEach((id, i) => slots.push({ over: id, zone: z.id, zi, i }));
    slots.push({ over: null, zone: z.id, zi, i: z.items.length });
  });
  let at = slots.findIndex((s) => s.zone === current.zone && s.over === (current.over ?? null));
  if (at < 0) at = 0;
  const here = slots[at];
  const cols = Math.max(1, zones[here.zi].columns || 1);
  const strip = (z) => Math.max(1, zones[z].columns || 1);
  let next = here;
  if (key === 'ArrowRight') next = slots[Math.min(slots.length - 1, at + 1)];
  else if (key === 'ArrowLeft') next = slots[Math.max(0, at - 1)];
  else if (key === 'ArrowDown') {
    const zoneSize = zones[here.zi].items.length + 1;
    if (here.i + cols < zoneSize && cols > 1) next = slots[at + cols];
    else if (here.zi + 1 < zones.length) next = slots.find((s) => s.zi === here.zi + 1 && s.i === Math.min(here.i % strip(here.zi + 1), zones[here.zi + 1].items.length));
  } else if (key === 'ArrowUp') {
    if (here.i - cols >= 0 && cols > 1) next = slots[at - cols];
    else if (here.zi > 0) {
      const prev = here.zi - 1;
      const size = zones[prev].items.length;
      const pc = strip(prev);
      // Same column on the last row of the previous zone.
      const lastRowStart = Math.floor(size / pc) * pc;
      let i = Math.min(size, lastRowStart + (here.i % pc));
      if (i > size) i = size;
      next = slots.find((s) => s.zi === prev && s.i === i);
    }
  }
  next = next ?? here;
  return { over: next.over, zone: next.zone };
}
