// The client's model of one board: the last board the server confirmed, plus this client's
// pending ops re-applied on top. Pure: no DOM, no sockets, no clocks.
//
// What the page shows is always `view()`: confirmed state with pending ops replayed in the
// order they were made. A remote op changes the confirmed state and the pending ops are
// replayed again on top, so one's own tile never flickers back and forth.

import { OP_TYPES, involvedItems } from './protocol.js';
import { CONTENT_OPS, applyContent } from './cards.js';
import { COMMENT_OPS, applyComment } from './comments.js';
import { BULK_OPS, applyBulk } from './bulk.js';

// Undo (the inverse of each op, the undo and redo stacks, whether a change can be reverted) is
// undo.js's; re-exported here, where the board's rules are looked for.
export { UndoHistory, canRevert, inverseOp } from './undo.js';

/** The zone members besides `id` and `items` that a copy keeps (docs/protocol.md, "Zone layouts"). */
const ZONE_FIELDS = ['title', 'layout', 'columns', 'handle', 'axis'];

/** A deep copy of a board snapshot (zone layouts and item details included). */
export function cloneBoard(board) {
  return {
    id: board.id,
    title: board.title,
    columns: board.columns,
    ...(typeof board.mode === 'string' ? { mode: board.mode } : {}),
    ...(Array.isArray(board.archived) && board.archived.length ? { archived: board.archived.slice() } : {}),
    zones: board.zones.map((z) => {
      const copy = { id: z.id, items: z.items.slice() };
      for (const f of ZONE_FIELDS) if (z[f] !== undefined) copy[f] = z[f];
      return copy;
    }),
    items: board.items.map((i) => {
      const copy = { id: i.id, label: i.label, color: i.color, on: !!i.on };
      for (const f of ['detail', 'description', 'due']) if (typeof i[f] === 'string') copy[f] = i[f];
      // Card content (issue 32): copied deep, so that a pending op never changes the confirmed board.
      if (Array.isArray(i.tags)) copy.tags = i.tags.slice();
      if (Array.isArray(i.assignees)) copy.assignees = i.assignees.map((p) => ({ member: p.member, name: p.name }));
      if (Array.isArray(i.checklist)) copy.checklist = i.checklist.map((c) => ({ id: c.id, text: c.text, done: !!c.done }));
      // How many comments it has (issue 34: the snapshot carries only the count).
      if (Number.isInteger(i.comments) && i.comments > 0) copy.comments = i.comments;
      return copy;
    }),
    ...(Array.isArray(board.tags) ? { tags: board.tags.map((t) => ({ id: t.id, name: t.name, color: t.color })) } : {}),
  };
}

/** Where `item` is: {zone, index} (zone is the zone object), or null. */
export function locate(board, item) {
  for (const zone of board.zones) {
    const index = zone.items.indexOf(item);
    if (index >= 0) return { zone, index };
  }
  return null;
}

/** The item record with this id, or undefined. */
export function itemById(board, id) {
  return board.items.find((i) => i.id === id);
}

/**
 * Applies one op (swap, move or toggle message) to `board` in place, as the server does.
 * Ops that no longer make sense (unknown item) are skipped; a move whose anchor is gone appends.
 * Returns true when the board changed.
 */
export function applyOp(board, op) {
  switch (op.type) {
    case 'swap': {
      if (op.a === op.b) return false;
      const la = locate(board, op.a);
      const lb = locate(board, op.b);
      if (!la || !lb) return false;
      la.zone.items[la.index] = op.b;
      lb.zone.items[lb.index] = op.a;
      return true;
    }
    case 'move': {
      if (op.item === op.before) return false;
      const from = locate(board, op.item);
      const target = board.zones.find((z) => z.id === op.zone);
      if (!from || !target) return false;
      from.zone.items.splice(from.index, 1);
      const at = op.before == null ? -1 : target.items.indexOf(op.before);
      if (at >= 0) target.items.splice(at, 0, op.item);
      else target.items.push(op.item);
      return true;
    }
    case 'toggle': {
      const it = itemById(board, op.item);
      if (!it) return false;
      it.on = !!op.on;
      return true;
    }
    case 'add': {
      const id = op.item?.id ?? pendingId(op.op);
      const target = board.zones.find((z) => z.id === op.zone);
      if (!target || itemById(board, id)) return false;
      const item = { id, label: String(op.item?.label ?? ''), color: op.item?.color || DEFAULT_COLOR, on: op.item?.on === true };
      for (const f of ['detail', 'description', 'due']) if (typeof op.item?.[f] === 'string') item[f] = op.item[f];
      // The content an add may carry (the undo of a remove brings a card back whole); until the
      // server names its checks, a pending add's show under pending ids.
      const o = op.item ?? {};
      if (Array.isArray(o.tags) && o.tags.length) item.tags = o.tags.slice();
      if (Array.isArray(o.assignees) && o.assignees.length) item.assignees = o.assignees.map((p) => ({ member: p.member, name: p.name }));
      if (Array.isArray(o.checklist) && o.checklist.length) {
        item.checklist = o.checklist.map((c, i) => ({ id: c.id ?? `${id}~k${i}`, text: String(c.text ?? ''), done: !!c.done }));
      }
      board.items.push(item);
      const at = op.before == null ? -1 : target.items.indexOf(op.before);
      if (at >= 0) target.items.splice(at, 0, id);
      else target.items.push(id);
      return true;
    }
    case 'edit': {
      const it = itemById(board, op.item);
      if (!it) return false;
      if (typeof op.label === 'string') it.label = op.label;
      if (typeof op.color === 'string') it.color = op.color;
      for (const f of ['detail', 'description', 'due']) {
        if (op[f] === null) delete it[f];
        else if (typeof op[f] === 'string') it[f] = op[f];
      }
      return true;
    }
    case 'remove': {
      const i = board.items.findIndex((it) => it.id === op.item);
      if (i < 0) return false;
      const at = locate(board, op.item);
      if (at) at.zone.items.splice(at.index, 1);
      if (Array.isArray(board.archived)) board.archived = board.archived.filter((id) => id !== op.item);
      board.items.splice(i, 1);
      return true;
    }
    case 'addZone': {
      const id = op.zone?.id ?? pendingId(op.op);
      if (board.zones.some((z) => z.id === id)) return false;
      materializeLayouts(board);
      const zone = { id, items: [], title: String(op.zone?.title ?? ''), layout: op.zone?.layout ?? 'list' };
      for (const f of ['columns', 'handle', 'axis']) if (op.zone?.[f] !== undefined) zone[f] = op.zone[f];
      const at = op.before == null ? -1 : board.zones.findIndex((z) => z.id === op.before);
      if (at >= 0) board.zones.splice(at, 0, zone);
      else board.zones.push(zone);
      return true;
    }
    case 'editZone': {
      const zone = board.zones.find((z) => z.id === op.zone);
      if (!zone) return false;
      materializeLayouts(board);
      if (typeof op.title === 'string') zone.title = op.title;
      if (typeof op.layout === 'string') {
        zone.layout = op.layout;
        if (op.layout !== 'grid') delete zone.columns;
      }
      if (Number.isInteger(op.columns)) zone.columns = op.columns;
      return true;
    }
    case 'removeZone': {
      const i = board.zones.findIndex((z) => z.id === op.zone);
      if (i < 0 || board.zones[i].items.length || board.zones.length === 1) return false;
      materializeLayouts(board);
      board.zones.splice(i, 1);
      return true;
    }
    case 'retitle':
      if (typeof op.title !== 'string') return false;
      board.title = op.title;
      return true;
    case 'restore': {
      // Only the committed op carries the board: a pending restore shows nothing until then.
      if (!op.board || !Array.isArray(op.board.zones) || !Array.isArray(op.board.items)) return false;
      const id = board.id;
      const restored = JSON.parse(JSON.stringify(op.board));
      for (const key of Object.keys(board)) delete board[key];
      Object.assign(board, restored, { id });
      return true;
    }
    default:
      if (COMMENT_OPS.has(op.type)) return applyComment(board, op);
      if (BULK_OPS.has(op.type)) return applyBulk(board, op);
      return CONTENT_OPS.has(op.type) ? applyContent(board, op) : false;
  }
}

/** The color an added item gets when its op names none (the server's default). */
export const DEFAULT_COLOR = '#ffe08a';

/**
 * The id a pending add or addZone shows its item or zone under until the server commits it with
 * a real id: `~` and the op id (`~` is never in a server id, so it cannot clash).
 */
export function pendingId(opId) {
  return `~${opId}`;
}

/** True for an id `pendingId` made. */
export function isPendingId(id) {
  return typeof id === 'string' && id.startsWith('~');
}

/**
 * Gives every zone without a layout the one it is drawn with (a grid first, rows after), as the
 * server does before an op adds, edits or removes a zone, so no zone changes shape.
 */
function materializeLayouts(board) {
  board.zones.forEach((z, i) => { if (!z.layout) z.layout = i === 0 ? 'grid' : 'row'; });
}

/**
 * The move that puts `item` where `over` is now, the way sortable lists do: the dragged item
 * takes the hovered item's index, so hovering a later item in the same zone inserts after it.
 * `over` null means the end of `zone`. Returns {zone, before} or null when nothing would change.
 */
export function moveTarget(board, item, over, zone) {
  const from = locate(board, item);
  if (!from) return null;
  let target;
  let index;
  if (over == null) {
    target = board.zones.find((z) => z.id === zone);
    if (!target) return null;
    index = Infinity;
  } else {
    if (over === item) return null;
    const at = locate(board, over);
    if (!at) return null;
    target = at.zone;
    index = at.index;
  }
  const rest = target.items.filter((id) => id !== item);
  const before = index < rest.length ? rest[index] : null;
  // No change: same zone, same neighbour after it.
  if (from.zone === target) {
    const next = from.zone.items[from.index + 1] ?? null;
    if (next === before) return null;
  }
  return { zone: target.id, before };
}

/**
 * A copy of `board` whose zones (and their lists) are its own and whose cards are shared: what a
 * previewed move may change. A whole copy (cloneBoard) of a 10,000-card board cost 5–9 ms for
 * each new drop target of a drag in move mode.
 */
export function withZonesCopied(board) {
  return { ...board, zones: board.zones.map((z) => ({ ...z, items: z.items.slice() })) };
}

/**
 * The board as other people's live move-mode drags would leave it: for each remote hover
 * {item, over, zone, mode} with mode 'move', the held item is put where a drop there would put
 * it (the `moveTarget` rule the holder's own screen and drop use: it takes the hovered item's
 * index, or goes to the end of `zone` when `over` is null). Hovers in other modes, over the
 * item's own place or naming unknown items change nothing. Pure: `board` is never modified;
 * it is returned as is when nothing changes, otherwise a copy is (`withZonesCopied`). A preview only, never stored.
 */
export function previewRemoteMoves(board, hovers) {
  let out = board;
  for (const h of hovers ?? []) {
    if (!h || h.mode !== 'move' || h.item == null) continue;
    const mt = moveTarget(out, h.item, h.over ?? null, h.zone);
    if (!mt) continue;
    if (out === board) out = withZonesCopied(board);
    applyOp(out, { type: 'move', item: h.item, ...mt });
  }
  return out;
}

/** True when committed op `m` changes where `item` is (so a preview of it can go). */
export function opMovesItem(m, item) {
  if (m.type === 'swap') return m.a === item || m.b === item;
  if (m.type === 'move') return m.item === item;
  return false;
}

/** The op fields without wire bookkeeping (op id, base, seq, by). */
export function opBody(op) {
  switch (op.type) {
    case 'swap': return { type: 'swap', a: op.a, b: op.b };
    case 'move': return { type: 'move', item: op.item, zone: op.zone, before: op.before ?? null };
    case 'toggle': return { type: 'toggle', item: op.item, on: !!op.on };
    case 'add': return { type: 'add', zone: op.zone, before: op.before ?? null, item: { ...op.item } };
    case 'restore': return { type: 'restore', to: op.to };
    case 'addTag': {
      const body = { type: 'addTag', tag: { name: op.tag?.name, color: op.tag?.color } };
      if (op.items?.length) body.items = op.items.slice();
      return body;
    }
    case 'addCheck': return { type: 'addCheck', item: op.item, before: op.before ?? null, text: op.check?.text ?? op.text };
    case 'comment': return {
      type: 'comment', item: op.item, text: op.comment?.text ?? op.text, mentions: op.comment?.mentions ?? op.mentions ?? [],
    };
    case 'editComment': return { type: 'editComment', item: op.item, comment: op.comment, text: op.text, mentions: op.mentions ?? [] };
    case 'removeComment': return { type: 'removeComment', item: op.item, comment: op.comment };
    default: {
      // Every other op (ops.js lists them) is its fields as sent.
      if (!OP_TYPES.has(op.type)) return { type: op.type };
      const { op: _id, base: _base, seq: _seq, by: _by, member: _member, ...body } = op;
      return body;
    }
  }
}

/** How many committed ops the client remembers (for undo checks). */
const LOG_LIMIT = 500;

/**
 * Confirmed board + pending local ops.
 *
 * Pending entries are op messages ({type, op, base, …}) in the order they were made. They stay
 * pending until the server commits them (the broadcast with the same `op`), acknowledges them
 * (`ack`), or rejects them.
 */
export class BoardState {
  constructor() {
    this.board = null;
    this.seq = 0;
    this.pending = [];
    this.log = [];
    this.cached = null;
  }

  /** True once a snapshot has been loaded. */
  get loaded() {
    return this.board !== null;
  }

  /** Replaces the confirmed board (welcome with a snapshot). Pending ops are kept for resending. */
  reset(board, seq) {
    this.board = cloneBoard(board);
    this.seq = seq;
    this.log = [];
    this.cached = null;
  }

  /** The board to show: confirmed with pending ops replayed. */
  view() {
    if (!this.board) return null;
    if (!this.cached) {
      const b = cloneBoard(this.board);
      for (const p of this.pending) applyOp(b, p);
      this.cached = b;
    }
    return this.cached;
  }

  /** Adds a local op (already carrying `op` and `base`). */
  addPending(op) {
    this.pending.push(op);
    this.cached = null;
  }

  /** True when `opId` is still pending. */
  isPending(opId) {
    return this.pending.some((p) => p.op === opId);
  }

  /**
   * Applies a committed op broadcast. Returns:
   * - `{status: 'applied', own}`: applied; `own` is the pending entry it confirmed, if any;
   * - `{status: 'duplicate'}`: seq already applied (ignored);
   * - `{status: 'gap'}`: an op is missing; the caller must resync.
   */
  applyCommitted(m) {
    if (!this.board) return { status: 'gap' };
    if (m.seq <= this.seq) return { status: 'duplicate' };
    if (m.seq !== this.seq + 1) return { status: 'gap' };
    applyOp(this.board, m);
    this.seq = m.seq;
    const i = this.pending.findIndex((p) => p.op === m.op);
    const own = i >= 0 ? this.pending.splice(i, 1)[0] : null;
    this.log.push({ seq: m.seq, by: m.by, op: m.op, items: involvedItems(m), body: opBody(m) });
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
    this.cached = null;
    return { status: 'applied', own };
  }

  /** Drops a pending op the server refused; returns it (or null when unknown). */
  reject(opId) {
    const i = this.pending.findIndex((p) => p.op === opId);
    if (i < 0) return null;
    this.cached = null;
    return this.pending.splice(i, 1)[0];
  }

  /**
   * An `ack`: the op id was committed earlier at `seq`. When that seq is already applied the
   * pending entry is done; otherwise it stays until the broadcast arrives (it will, in order).
   */
  ack(opId, seq) {
    if (Number.isInteger(seq) && seq > this.seq) return null;
    return this.reject(opId);
  }

  /**
   * Ops committed by someone other than `me` (by anyone when `me` is null) after `seq` that
   * touched any of `items`: the "someone changed those tiles since" check for undo.
   */
  changedSince(seq, items, me) {
    const set = new Set(items);
    return this.log.filter((e) => e.seq > seq && e.by !== me && e.items.some((i) => set.has(i)));
  }

  /** The oldest seq the log still covers (undo further back than this cannot be checked). */
  get logStart() {
    return this.log.length ? this.log[0].seq - 1 : this.seq;
  }
}
