// The client's model of one board: the last board the server confirmed, plus this client's
// pending ops re-applied on top. Pure: no DOM, no sockets, no clocks.
//
// What the page shows is always `view()`: confirmed state with pending ops replayed in the
// order they were made. A remote op changes the confirmed state and the pending ops are
// replayed again on top, so one's own tile never flickers back and forth.

import { involvedItems } from './protocol.js';
import { CONTENT_OPS, applyContent, inverseContent } from './cards.js';
import { BULK_OPS, applyBulk, inverseBulk } from './bulk.js';

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
 * The board as other people's live move-mode drags would leave it: for each remote hover
 * {item, over, zone, mode} with mode 'move', the held item is put where a drop there would put
 * it (the `moveTarget` rule the holder's own screen and drop use: it takes the hovered item's
 * index, or goes to the end of `zone` when `over` is null). Hovers in other modes, over the
 * item's own place or naming unknown items change nothing. Pure: `board` is never modified;
 * it is returned as is when nothing changes, otherwise a copy is. A preview only, never stored.
 */
export function previewRemoteMoves(board, hovers) {
  let out = board;
  for (const h of hovers ?? []) {
    if (!h || h.mode !== 'move' || h.item == null) continue;
    const mt = moveTarget(out, h.item, h.over ?? null, h.zone);
    if (!mt) continue;
    if (out === board) out = cloneBoard(board);
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

/** The op that undoes `op`, given the board as it was just before `op` was applied. */
export function inverseOp(op, boardBefore) {
  switch (op.type) {
    case 'swap':
      return { type: 'swap', a: op.a, b: op.b };
    case 'toggle': {
      const it = itemById(boardBefore, op.item);
      return { type: 'toggle', item: op.item, on: it ? !!it.on : !op.on };
    }
    case 'move': {
      const from = locate(boardBefore, op.item);
      if (!from) return null;
      // Anchor: the first item after it that is not the moved item itself.
      const rest = from.zone.items.slice(from.index + 1);
      return { type: 'move', item: op.item, zone: from.zone.id, before: rest[0] ?? null };
    }
    case 'add':
      // The new item's id comes with the commit (UndoHistory.committed fills it in).
      return { type: 'remove', item: op.item?.id ?? null };
    case 'remove': {
      // Back with its content and paint state, before the item that followed it (or last in
      // its zone).
      const it = itemById(boardBefore, op.item);
      const at = locate(boardBefore, op.item);
      if (!it || !at) return null;
      const item = { label: it.label, color: it.color };
      for (const f of ['detail', 'description', 'due']) if (typeof it[f] === 'string') item[f] = it[f];
      if (it.on) item.on = true;
      // Its content too (issue 32): what people typed comes back with it. Its checks get new
      // ids from the server; tags removed from the board since are left out when it is sent.
      if (it.tags?.length) item.tags = it.tags.slice();
      if (it.assignees?.length) item.assignees = it.assignees.map((p) => ({ member: p.member, name: p.name }));
      // (The old check ids ride along, never sent: UndoHistory.committed maps them to the new.)
      if (it.checklist?.length) item.checklist = it.checklist.map((c) => ({ id: c.id, text: c.text, done: !!c.done }));
      return { type: 'add', zone: at.zone.id, before: at.zone.items[at.index + 1] ?? null, item, restores: op.item };
    }
    case 'edit': {
      const it = itemById(boardBefore, op.item);
      if (!it) return null;
      const inverse = { type: 'edit', item: op.item };
      if (op.label !== undefined) inverse.label = it.label;
      if (op.color !== undefined) inverse.color = it.color;
      for (const f of ['detail', 'description', 'due']) {
        if (op[f] !== undefined) inverse[f] = typeof it[f] === 'string' ? it[f] : null;
      }
      return inverse;
    }
    case 'addZone':
      return { type: 'removeZone', zone: op.zone?.id ?? null };
    case 'removeZone': {
      const i = boardBefore.zones.findIndex((z) => z.id === op.zone);
      if (i < 0) return null;
      const z = boardBefore.zones[i];
      const zone = { title: z.title || 'Untitled', layout: z.layout ?? (i === 0 ? 'grid' : 'row') };
      for (const f of ['columns', 'handle', 'axis']) if (z[f] !== undefined) zone[f] = z[f];
      return { type: 'addZone', before: boardBefore.zones[i + 1]?.id ?? null, zone, restores: op.zone };
    }
    case 'editZone': {
      const i = boardBefore.zones.findIndex((z) => z.id === op.zone);
      if (i < 0) return null;
      const z = boardBefore.zones[i];
      const inverse = { type: 'editZone', zone: op.zone };
      // A zone without a title cannot be given "no title" back: its title stays.
      if (op.title !== undefined && typeof z.title === 'string') inverse.title = z.title;
      if (op.layout !== undefined) inverse.layout = z.layout ?? (i === 0 ? 'grid' : 'row');
      if ((op.columns !== undefined || op.layout !== undefined) && Number.isInteger(z.columns)) inverse.columns = z.columns;
      return Object.keys(inverse).length > 2 ? inverse : null;
    }
    case 'retitle':
      return { type: 'retitle', title: boardBefore.title };
    case 'restore':
      // Undoing a restore restores the seq before it, known once it commits (UndoHistory.committed).
      return { type: 'restore', to: null };
    default:
      if (BULK_OPS.has(op.type)) return inverseBulk(op, boardBefore);
      return CONTENT_OPS.has(op.type) ? inverseContent(op, boardBefore) : null;
  }
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
    case 'edit': case 'editZone': case 'addZone': case 'remove': case 'removeZone': case 'retitle':
    case 'tag': case 'assign': case 'editTag': case 'removeTag': case 'editCheck': case 'removeCheck':
    case 'moveMany': case 'archive': case 'unarchive': {
      const { op: _id, base: _base, seq: _seq, by: _by, member: _member, ...body } = op;
      return body;
    }
    default: return { type: op.type };
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

/**
 * Undo and redo of one's own committed changes. A change is a group of ops made by one
 * gesture (a paint stroke is one change). Each op remembers its inverse, computed from the board
 * the user saw when making it.
 */
export class UndoHistory {
  constructor(limit = 100) {
    this.limit = limit;
    this.undoStack = [];
    this.redoStack = [];
  }

  /**
   * Records a change just made: `entries` are [{op, inverse}] where `op` is the op message sent.
   * `kind` is 'do' (a new change: clears redo), 'undo' (goes to the redo stack) or 'redo'
   * (back onto the undo stack, keeping redo).
   */
  record(entries, kind = 'do') {
    const change = { ops: entries.map((e) => ({ ...e, seq: null, state: 'pending' })) };
    if (kind === 'undo') this.redoStack.push(change);
    else {
      if (kind === 'do') this.redoStack = [];
      this.undoStack.push(change);
      if (this.undoStack.length > this.limit) this.undoStack.shift();
    }
    return change;
  }

  /**
   * Marks op `opId` committed at `seq`; `m` is the committed op (its body will do). The server
   * chose the id of what an add or addZone made: the undo that removes it learns it here, and an
   * undo that brought back a removed item or zone (under a new id) makes every other change name
   * the new id instead of the old.
   */
  committed(opId, seq, m = null) {
    let remap = null;
    for (const change of [...this.undoStack, ...this.redoStack]) {
      for (const e of change.ops) {
        if (e.op.op !== opId) continue;
        e.seq = seq;
        e.state = 'committed';
        // The undo of a restore restores the seq before it (a redo: the one before the undo).
        if (e.op.type === 'restore' && e.inverse?.type === 'restore') e.inverse.to = seq - 1;
        if (m?.type === 'add' && m.item?.id) {
          if (e.inverse?.type === 'remove') e.inverse.item = m.item.id;
          if (e.restores) {
            remap = { kind: 'item', from: e.restores, to: m.item.id };
            // Its checks came back under new ids, in the same order: steps that named them follow.
            const old = e.restoresChecks ?? [];
            (m.item.checklist ?? []).forEach((c, i) => {
              if (old[i] && c?.id) this.remap('check', old[i], c.id);
            });
          }
        }
        // The undo of an addCheck or addTag removes what the server made, under the id it chose.
        if (m?.type === 'addCheck' && m.check?.id && e.inverse?.type === 'removeCheck') e.inverse.check = m.check.id;
        if (m?.type === 'addTag' && m.tag?.id && e.inverse?.type === 'removeTag') e.inverse.tag = m.tag.id;
        // An undone removeTag made the tag again: steps that named the old id name the new one.
        if (m?.type === 'addTag' && m.tag?.id && e.restoresTag) this.remapTag(e.restoresTag, m.tag.id);
        if (m?.type === 'addZone' && m.zone?.id) {
          if (e.inverse?.type === 'removeZone') e.inverse.zone = m.zone.id;
          if (e.restores) remap = { kind: 'zone', from: e.restores, to: m.zone.id };
        }
      }
    }
    if (remap) this.remap(remap.kind, remap.from, remap.to);
  }

  /** Makes every recorded op and inverse that names tag `from` (alone or in a list) name `to` instead. */
  remapTag(from, to) {
    const fix = (op) => {
      if (!op) return;
      if (['editTag', 'removeTag'].includes(op.type) && op.tag === from) op.tag = to;
      if (op.type === 'tag') for (const key of ['add', 'remove']) op[key] = op[key]?.map((t) => (t === from ? to : t));
      if (op.type === 'add' && op.item?.tags) op.item.tags = op.item.tags.map((t) => (t === from ? to : t));
    };
    for (const change of [...this.undoStack, ...this.redoStack]) {
      for (const e of change.ops) { fix(e.op); fix(e.inverse); }
    }
  }

  /** Makes every recorded op and inverse that names item (or zone, or check) `from` name `to` instead. */
  remap(kind, from, to) {
    const fix = (op) => {
      if (!op) return;
      for (const key of refKeys(op.type, kind)) if (op[key] === from) op[key] = to;
    };
    for (const change of [...this.undoStack, ...this.redoStack]) {
      for (const e of change.ops) { fix(e.op); fix(e.inverse); }
    }
  }

  /** Drops op `opId` (rejected); a change left empty disappears. */
  rejected(opId) {
    const prune = (stack) => {
      for (const change of stack) change.ops = change.ops.filter((e) => e.op.op !== opId);
      return stack.filter((c) => c.ops.length > 0);
    };
    this.undoStack = prune(this.undoStack);
    this.redoStack = prune(this.redoStack);
  }

  /** The change undo would revert, without removing it. */
  peekUndo() {
    return this.undoStack[this.undoStack.length - 1] ?? null;
  }

  /** The change redo would re-apply, without removing it. */
  peekRedo() {
    return this.redoStack[this.redoStack.length - 1] ?? null;
  }

  /** Removes and returns the top of the undo stack. */
  popUndo() {
    return this.undoStack.pop() ?? null;
  }

  /** Removes and returns the top of the redo stack. */
  popRedo() {
    return this.redoStack.pop() ?? null;
  }

  /** True while `change` is on the undo stack (not undone yet, not refused). */
  canUndo(change) {
    return this.undoStack.includes(change);
  }

  /** Takes `change` off the undo stack wherever it is on it; false when it is not there. */
  takeUndo(change) {
    const i = this.undoStack.indexOf(change);
    if (i < 0) return false;
    this.undoStack.splice(i, 1);
    return true;
  }
}

/** The members of an op of type `type` that name an item (`kind` 'item') or a zone ('zone'). */
function refKeys(type, kind) {
  const items = {
    swap: ['a', 'b'], move: ['item', 'before'], toggle: ['item'], add: ['before'], edit: ['item'], remove: ['item'],
    tag: ['item'], assign: ['item'], addCheck: ['item'], editCheck: ['item'], removeCheck: ['item'],
  };
  const zones = { move: ['zone'], add: ['zone'], addZone: ['before'], editZone: ['zone'], removeZone: ['zone'] };
  const checks = { addCheck: ['before'], editCheck: ['check'], removeCheck: ['check'] };
  return ({ item: items, zone: zones, check: checks }[kind] ?? {})[type] ?? [];
}

/**
 * Whether `change` can be reverted now. Returns {ok: true} or {ok: false, why, by} with why one of
 * 'pending' (not confirmed yet), 'changed' (another user touched those tiles since, `by`),
 * 'too_old' (beyond what the client remembers). `outOfOrder`: the change is not the last one
 * (an "Undo" toast's change, with later changes of this page's own after it), so this page's
 * own changes since count too (`by` is then `me`): its inverse was made for the board as it was.
 */
export function canRevert(change, state, me, { outOfOrder = false } = {}) {
  if (!change) return { ok: false, why: 'empty' };
  if (change.ops.some((e) => e.state !== 'committed')) return { ok: false, why: 'pending' };
  const since = Math.min(...change.ops.map((e) => e.seq));
  if (since < state.logStart) return { ok: false, why: 'too_old' };
  // An add or addZone whose id never reached this page (it was acknowledged, not broadcast here).
  const unknown = (inv) => (inv?.type === 'remove' && inv.item == null) || (inv?.type === 'removeZone' && inv.zone == null)
    || (inv?.type === 'restore' && !Number.isInteger(inv.to));
  if (change.ops.some((e) => unknown(e.inverse))) return { ok: false, why: 'too_old' };
  const items = change.ops.flatMap((e) => [...involvedItems(e.op), ...(e.inverse ? involvedItems(e.inverse) : [])]);
  const mine = new Set(change.ops.map((e) => e.op.op));
  const changed = state.changedSince(since, items, outOfOrder ? null : me).filter((l) => !mine.has(l.op));
  if (changed.length) return { ok: false, why: 'changed', by: changed[changed.length - 1].by };
  // A restore touches the whole board: anyone else's change since keeps it from being undone.
  if (change.ops.some((e) => e.op.type === 'restore')) {
    const other = state.log.filter((l) => l.seq > since && (outOfOrder || l.by !== me) && !mine.has(l.op));
    if (other.length) return { ok: false, why: 'changed', by: other[other.length - 1].by };
  }
  return { ok: true };
}
