// How a board is laid out: each zone's layout (grid, row or list), its columns, handle and axis,
// its title, and how the zones sit on the page. Pure: a board snapshot in, plain objects out.
//
// A zone without `layout` is what every board was before layouts (docs/protocol.md, "Zone
// layouts"): the first zone a grid of the board's `columns`, the others rows.

/** The zone layouts the client knows. */
export const LAYOUTS = ['grid', 'row', 'list'];

/** A grid with this many columns or more gets small cells (the 8 × 8 paint board). */
export const DENSE_COLUMNS = 6;

/** A zone's heading when the board gives none: the default board's two zones, else the id. */
export function defaultTitle(id) {
  if (id === 'grid') return 'Grid';
  if (id === 'tray') return 'Tray';
  return id;
}

/**
 * The layout of `zone`, the `index`th zone of `board`:
 * {id, layout: 'grid'|'row'|'list', columns (grids; 1 otherwise), handle, axis ('x'|'y'|null),
 *  title, dense (a grid of small cells)}.
 */
export function zoneLayout(board, zone, index) {
  const layout = LAYOUTS.includes(zone.layout) ? zone.layout : (index === 0 ? 'grid' : 'row');
  const columns = layout === 'grid' ? clampColumns(zone.columns ?? board.columns) : 1;
  return {
    id: zone.id,
    layout,
    columns,
    handle: zone.handle === true,
    axis: zone.axis === 'x' || zone.axis === 'y' ? zone.axis : null,
    title: typeof zone.title === 'string' && zone.title.trim() ? zone.title : defaultTitle(zone.id),
    dense: layout === 'grid' && columns >= DENSE_COLUMNS,
  };
}

/** Every zone's layout, in board order. */
export function zoneLayouts(board) {
  return board.zones.map((z, i) => zoneLayout(board, z, i));
}

/**
 * True when a zone of layout `lay` shows its cards' details, so that its card editor edits them
 * too: every layout does (a list under the label, a grid's or a row's tile in smaller type, a
 * dense grid's small cell as well; style.css `.tile-detail`).
 */
export function showsDetails(lay) {
  return !!lay && LAYOUTS.includes(lay.layout);
}

/** The layout of the zone holding `item`, or null. */
export function layoutOfItem(board, item) {
  const i = board.zones.findIndex((z) => z.items.includes(item));
  return i < 0 ? null : zoneLayout(board, board.zones[i], i);
}

/**
 * How the zones sit on the page, top to bottom: runs of two or more neighbouring lists stand side
 * by side as lanes (a kanban board's columns), every other zone takes a band of its own.
 * Returns [{lanes: [layout…]}] in board order (a band is a run of one).
 */
export function arrangeZones(layouts) {
  const bands = [];
  for (const l of layouts) {
    const last = bands[bands.length - 1];
    if (l.layout === 'list' && last && last.lanes[0].layout === 'list') last.lanes.push(l);
    else bands.push({ lanes: [l] });
  }
  return bands;
}

/**
 * A key that changes when the zones must be built again (ids, layouts, titles, columns), not when
 * items move.
 */
export function layoutKey(board) {
  return JSON.stringify(zoneLayouts(board));
}

/**
 * The drag mode a board suggests to someone who has not picked one for it: `move` when a zone is
 * an explicit row or list (strips, playlists, kanban columns are reordered, not swapped),
 * otherwise `swap` (the default board).
 */
export function suggestedMode(board) {
  if (['swap', 'move', 'paint'].includes(board.mode)) return board.mode; // the board says
  return board.zones.some((z) => z.layout === 'row' || z.layout === 'list') ? 'move' : 'swap';
}

/**
 * The drag modes a board offers in its toolbar (issue 35): what its template uses. A board that
 * says `move` (kanban, playlist, strips) is reordered, never swapped or painted; one that says
 * `paint` is painted; one that says nothing (the colors board, and every board made before
 * modes) swaps and moves. `current` (a mode the link or this person asked for) is offered too.
 */
export function boardModes(board, current = null) {
  const own = board?.mode === 'move' ? ['move'] : board?.mode === 'paint' ? ['paint'] : ['swap', 'move'];
  return ['swap', 'move', 'paint'].filter((m) => own.includes(m) || m === current);
}

/** The mode a board made from `template` opens in, for the one who made it (else null). */
export function templateMode(template) {
  return template === 'paint' ? 'paint' : null;
}

function clampColumns(n) {
  return Number.isInteger(n) ? Math.min(64, Math.max(1, n)) : 3;
}
