// The ops on many cards at once (issue 36, docs/protocol.md "Many cards at once"): moveMany,
// archive and unarchive, applied to a board and undone. Pure: no DOM, no sockets, no clocks.

/** Types of the bulk ops. */
export const BULK_OPS = new Set(['moveMany', 'archive', 'unarchive']);

/** The most cards one bulk op names (the server's bound). */
export const MAX_BULK = 200;

/** True when `item` is in the board's archive. */
export function isArchived(board, item) {
  return Array.isArray(board.archived) && board.archived.includes(item);
}

function takeOut(board, ids) {
  const taken = new Set(ids);
  for (const z of board.zones) if (z.items.some((id) => taken.has(id))) z.items = z.items.filter((id) => !taken.has(id));
}

function put(board, ids, zoneId, before) {
  const target = board.zones.find((z) => z.id === zoneId);
  if (!target) return false;
  const at = before == null ? -1 : target.items.indexOf(before);
  if (at >= 0) target.items.splice(at, 0, ...ids);
  else target.items.push(...ids);
  return true;
}

/**
 * Applies a moveMany, archive or unarchive to `board` in place, as the server does (all or
 * nothing: an op naming an unknown card, or a card in the wrong state, changes nothing).
 * Returns true when the board changed.
 */
export function applyBulk(board, op) {
  const ids = Array.isArray(op.items) ? op.items : [];
  if (!ids.length || !ids.every((id) => board.items.some((it) => it.id === id))) return false;
  switch (op.type) {
    case 'moveMany':
      if (ids.includes(op.before) || ids.some((id) => isArchived(board, id))) return false;
      if (!board.zones.some((z) => z.id === op.zone)) return false;
      takeOut(board, ids);
      return put(board, ids, op.zone, op.before ?? null);
    case 'archive':
      if (ids.some((id) => isArchived(board, id))) return false;
      takeOut(board, ids);
      board.archived = [...(board.archived ?? []), ...ids];
      return true;
    case 'unarchive': {
      if (!ids.every((id) => isArchived(board, id)) || !board.zones.some((z) => z.id === op.zone)) return false;
      const back = new Set(ids);
      board.archived = board.archived.filter((id) => !back.has(id));
      if (!board.archived.length) delete board.archived;
      return put(board, ids, op.zone, op.before ?? null);
    }
    default:
      return false;
  }
}

/**
 * Where each of `ids` is on `board`, in order, as groups that one moveMany each puts back:
 * runs of cards that sat together in one zone, with the card that followed the run.
 */
function placesOf(board, ids) {
  const groups = [];
  for (const z of board.zones) {
    let run = null;
    z.items.forEach((id, i) => {
      if (ids.includes(id)) {
        if (!run) { run = { zone: z.id, items: [] }; groups.push(run); }
        run.items.push(id);
      } else if (run) {
        run.before = id;
        run = null;
      }
    });
    if (run) run.before = null;
  }
  return groups;
}

/**
 * The op that undoes `op`, given the board just before it, or null. A moveMany or archive of
 * cards from several places is undone by one op per place they came from, sent together:
 * `{type: 'many', ops}` (the undo expands it, `involvedItems` lists every card of it).
 */
export function inverseBulk(op, boardBefore) {
  const ops = inverseBulkOps(op, boardBefore);
  if (!ops?.length) return null;
  return ops.length === 1 ? ops[0] : { type: 'many', ops };
}

function inverseBulkOps(op, boardBefore) {
  const ids = Array.isArray(op.items) ? op.items : [];
  switch (op.type) {
    case 'moveMany': {
      // Put back last group first, so each anchor is where it was when its group goes back.
      const groups = placesOf(boardBefore, ids);
      return groups.length ? groups.reverse().map((g) => ({ type: 'moveMany', items: g.items, zone: g.zone, before: g.before })) : null;
    }
    case 'archive': {
      const groups = placesOf(boardBefore, ids);
      return groups.length ? groups.reverse().map((g) => ({ type: 'unarchive', items: g.items, zone: g.zone, before: g.before })) : null;
    }
    case 'unarchive':
      return [{ type: 'archive', items: ids.slice() }];
    default:
      return null;
  }
}

