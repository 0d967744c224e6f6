// Undo and redo of this page's own changes (the board's rules for them): the op that undoes each
// op (`inverseOp`, from the board as it was before it), the undo and redo stacks
// (`UndoHistory`: a change is the ops of one gesture; ids remapped when an undone remove brings a
// card back under a new id), and whether a change can still be reverted (`canRevert`: nobody
// changed those tiles since). Pure: no DOM, no sockets, no clocks. state.js re-exports it.

import { involvedItems } from './protocol.js';
import { CONTENT_OPS, inverseContent } from './cards.js';
import { COMMENT_OPS, inverseComment } from './comments.js';
import { BULK_OPS, inverseBulk } from './bulk.js';
import { itemById, locate } from './state.js';

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
      if (COMMENT_OPS.has(op.type)) return inverseComment(op);
      if (BULK_OPS.has(op.type)) return inverseBulk(op, boardBefore);
      return CONTENT_OPS.has(op.type) ? inverseContent(op, boardBefore) : null;
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
        if (m?.type === 'comment' && m.comment?.id && e.inverse?.type === 'removeComment') e.inverse.comment = m.comment.id;
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
    comment: ['item'], editComment: ['item'], removeComment: ['item'],
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

/**
 * What reverting comes to (`kind` 'undo' or 'redo': the last change, or `target`, an undo of that
 * change wherever it is on the stack), under the usual conflict rules. `nameOf(userId)`: a name
 * for a sentence. Returns
 *   {refuse, announce?}  nothing to send, and why (a toast; also said to screen readers when
 *                        `announce`); a change that can never be reverted leaves the stack
 *   {steps}              the change left the stack: the inverses to send, newest op first, each
 *                        {inverse, restores?, restoresChecks?, restoresTag?} — the ids that the
 *                        other changes on the stacks name are remapped once it commits
 *                        (UndoHistory.committed)
 */
export function planRevert(history, kind, target, state, me, nameOf) {
  const undo = kind === 'undo';
  const change = target ?? (undo ? history.peekUndo() : history.peekRedo());
  if (!change) return { refuse: undo ? 'Nothing to undo' : 'Nothing to redo' };
  const outOfOrder = !!target && target !== history.peekUndo();
  const check = canRevert(change, state, me, { outOfOrder });
  if (!check.ok && check.why === 'pending') return { refuse: 'Still saving that change; try again in a moment' };
  // Reverted now, or never: either way it leaves the stack, so the next one is reachable.
  if (target) history.takeUndo(target);
  else if (undo) history.popUndo();
  else history.popRedo();
  if (!check.ok) {
    const who = check.by === me ? 'you' : nameOf(check.by);
    const text = check.why === 'changed' ? `Can't ${kind}: ${who} changed those tiles since` : `Can't ${kind}: that change is too old`;
    return { refuse: text, announce: true };
  }
  const steps = [];
  // A bulk op's undo may be several ops (`many`, bulk.js), sent together.
  const inverses = [...change.ops].reverse().flatMap((e) => (e.inverse?.type === 'many' ? e.inverse.ops : [e.inverse]).map((inverse) => ({ inverse })));
  for (const e of inverses) {
    if (!e.inverse) continue;
    const step = { inverse: e.inverse };
    // An add that brings back a removed item (or zone) names its new id once it commits…
    if (e.inverse.restores) step.restores = e.inverse.restores;
    // …and its checks' new ids (in the same order) replace the old ones too…
    if (e.inverse.type === 'add' && e.inverse.item?.checklist) step.restoresChecks = e.inverse.item.checklist.map((c) => c.id);
    // …and so does a tag made again (the undo of a removeTag).
    if (e.inverse.restoresTag) step.restoresTag = e.inverse.restoresTag;
    steps.push(step);
  }
  return { steps };
}

/**
 * `body`, an undo step, without what the board no longer has: an add bringing back a removed card
 * without the tags removed since (the rest of its content still comes back), an addTag making a
 * removed tag again without the cards removed since. Other bodies as they are.
 */
export function withKnownTags(body, board) {
  if (body.type === 'addTag' && body.items?.length) {
    const items = body.items.filter((id) => board?.items.some((i) => i.id === id));
    return { ...body, items };
  }
  if (body.type !== 'add' || !body.item?.tags?.length) return body;
  const known = new Set((board?.tags ?? []).map((t) => t.id));
  const tags = body.item.tags.filter((t) => known.has(t));
  return { ...body, item: { ...body.item, tags } };
}
