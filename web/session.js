// One page's session with one board, without the socket: what this page does (the drag in
// progress, paint strokes, undo and redo, editing) on top of what the server said (link.js: the
// welcome, committed ops, acks, rejects and other people's drags), and what follows from it. The
// connection — its phase, hello and resume, seq checks and resyncs, who is here, who holds what,
// tokens — is the SDK client's (sdk/shuffleboard.js), which the session reads (`useClient`). The rules it leans on have modules of their own: editing.js (what an edit sends or
// why it is refused), undo.js (inverses, the stacks, reverting), remote.js (other people's drags),
// state.js (the confirmed board and pending ops). Pure: no DOM, no sockets, no timers, no clock.
//
// In: the client's messages and its socket's close (receive, disconnected), a saved board
// (loadSaved), timers running out (wake), and the intents of gestures.js (lift, aim, aimKey,
// drop, cancel, paint, paintEnd, refuse, setMode, undo, redo, undoChange, and the editing ones).
// Each of those returns effects, plain objects that the wiring (app.js) carries out in order.
// Out, besides: scene() for the view.
//   {type:'send', msg}              send on the socket (asked for only while the session is open)
//   {type:'connection', state}      'open' or 'closed'
//   {type:'render', glide}          show scene(); `glide` (or null): the lift ended, so the ghost
//                                   goes and this item glides from where the ghost was
//   {type:'ghost', item}            a pointer lifted `item`: show its ghost at the pointer
//   {type:'focus', item}            focus the tile of `item`
//   {type:'reveal', item}           scroll the tile of `item` into sight (the focus stays)
//   {type:'fade', item, by}         someone (`by`, a user) removed `item`: it fades out
//   {type:'zoneGone', zone, by}     someone removed the zone `zone` (before it goes from the view)
//   {type:'presence', users, me, count}  the people on the board (`count`: how many there are
//                                   in all on a large board, whose list names only some of them)
//   {type:'mode', mode}             the drag mode changed
//   {type:'toast', text, action?, change?}  a message; `action: 'undo'`: it offers Undo of
//                                   `change` (undoChange)
//   {type:'announce', text}  {type:'pulse', items, kind, color}
//   {type:'remoteChange', change}   someone else's op committed: {by, name, kind, text} for the
//                                   polite, throttled announcer (announce.js)
//   {type:'handStart', user, item}  {type:'handHover', by, target}  {type:'handEnd', by}
//                                   other people's hands (`by` null: every hand)
//   {type:'hover', msg, key}  {type:'hoverFlush'}  {type:'hoverReset'}
//                                   offer a hover to the throttle (sent only when `key` changes),
//                                   send what is waiting now, or forget it
//   {type:'wake', after, token}     call wake(token) after `after` ms
//   {type:'taken', item}            someone else lifted `item`: a press on it must not lift it
//   {type:'warn', text}             for the console
//   {type:'queue', msg}             an op made while closed: the client keeps it until it can send

import * as P from './protocol.js';
import { render, SessionLink } from './link.js';
import {
  applyOp, inverseOp, isPendingId, itemById, locate, moveTarget, pendingId, previewRemoteMoves, withZonesCopied,
} from './state.js';
import { planRevert, UndoHistory, withKnownTags } from './undo.js';
import { isolate } from './bidi.js';
import { Selection } from './selection.js';
import * as E from './editing.js';
import { nextKeyboardTarget, targetKey } from './geometry.js';
import { layoutOfItem, zoneLayouts } from './layout.js';

export { SETTLE_MS } from './remote.js';

/** The drag modes. */
export const MODES = ['swap', 'move', 'paint'];

export class Session extends SessionLink {
  /** `newOpId`: fresh op ids (tests pass a counter). */
  constructor({ newOpId = P.newOpId } = {}) {
    super();
    this.newOpId = newOpId;
    /** Undo and redo of own changes. */
    this.history = new UndoHistory();
    this.mode = 'swap';
    /**
     * The lift in progress: {item, source ('pointer' | 'keyboard'), target}. While the session
     * is open its hold has been asked for on this connection (at the lift, or again by the
     * welcome after a reconnect).
     */
    this.drag = null;
    this.stroke = null; // the ops of a paint stroke in progress: [{op, inverse}]
    /** The cards selected for bulk actions and group drags (selection.js, issue 36). */
    this.selection = new Selection();
  }

  // ---- Local intents.

  /** Switches the drag mode (a drag in progress is cancelled). */
  setMode(mode) {
    if (!MODES.includes(mode)) return [];
    if (this.drag) this.cancelLift();
    this.mode = mode;
    this.emit({ type: 'mode', mode });
    return this.take();
  }

  /** True when someone other than this page holds `item`. */
  heldByOther(item) {
    const holder = this.held.get(item);
    return !!holder && holder !== this.me;
  }

  /** The layout of the zone `item` is in now (layout.js `zoneLayout`), or null. */
  layoutOf(item) {
    const b = this.state.view();
    return b ? layoutOfItem(b, item) : null;
  }

  /** A press on a tile someone else holds: says who, and (`ask`) asks for the tile, to wait in its line. */
  refuse(item, source = 'pointer', { ask = true } = {}) {
    const holder = this.held.get(item);
    if (!holder) return [];
    const text = `${isolate(this.user(holder).name)} is holding that tile`;
    this.emit({ type: 'toast', text });
    this.emit(source === 'pointer' ? { type: 'pulse', items: [item], kind: 'reject' } : { type: 'announce', text });
    if (ask) this.#ask(item);
    return this.take();
  }

  /** Lifts `item`: locally at once, and asks the server for the hold. */
  lift(item, source = 'pointer') {
    // A card still waiting for its id cannot be held yet.
    const at = this.drag || isPendingId(item) ? null : this.#where(item);
    if (!at) return [];
    // A selected card lifts the whole selection (issue 36): held all or none, dropped as one moveMany.
    const group = this.selection.has(item) && this.selection.size > 1
      ? this.selection.ordered(this.state.view()).filter((id) => id !== item && !isPendingId(id)) : [];
    this.drag = {
      item,
      source,
      target: source === 'keyboard' ? { over: item, zone: at.zone.id } : null,
      group,
    };
    this.emit({ type: 'hoverReset' });
    if (source === 'pointer') this.emit(group.length ? { type: 'ghost', item, count: group.length + 1 } : { type: 'ghost', item });
    this.send(group.length ? P.dragStartMany([item, ...group]) : P.dragStart(item));
    this.emit(render(), {
      type: 'announce',
      text: source === 'keyboard'
        ? `Picked up ${this.#labelOf(item)}. Arrow keys choose a target, Space or Enter drops, Escape cancels.`
        : `Picked up ${this.#labelOf(item)}.`,
    });
    return this.take();
  }

  /** The pointer's target changed to `t` ({over, zone}, or null outside every target). */
  aim(t) {
    const d = this.drag;
    if (!d || targetKey(t) === targetKey(d.target)) return [];
    d.target = t;
    this.emit(render());
    this.#offerHover();
    return this.take();
  }

  /** An arrow key during a keyboard lift. */
  aimKey(key) {
    const d = this.drag;
    const b = this.state.view();
    if (!d || !b) return [];
    const zones = zoneLayouts(b).map((l, i) => ({ ...l, items: b.zones[i].items }));
    d.target = nextKeyboardTarget(zones, d.target ?? { over: d.item, zone: this.#where(d.item)?.zone.id }, key);
    this.emit(render());
    this.#offerHover();
    this.emit({
      type: 'announce',
      text: d.target.over === d.item ? 'Over its own place.' : `Over ${this.#describeTarget(d.target)}.`,
    });
    return this.take();
  }

  /** Drops the lifted tile on its target (or puts it back when there is none). */
  drop() {
    const d = this.drag;
    if (!d) return [];
    const op = d.group?.length ? this.#groupOp(d) : this.#opForTarget(d.item, d.target);
    this.emit({ type: 'hoverFlush' });
    this.drag = null;
    if (op) {
      // Open: the hold is ours on this connection, so a drop carries the op. Otherwise the hold
      // died with the connection and the op goes after the welcome as a plain pending op.
      this.#recordChange([this.#submit(op, this.open ? d.item : null)]);
    } else {
      this.send(P.drop(d.item)); // only releases (nothing to release when closed)
    }
    this.emit(render(d.item));
    if (d.source === 'keyboard') this.emit({ type: 'focus', item: d.item });
    let text = `Dropped ${this.#labelOf(d.item)} in its place; nothing changed.`;
    if (op?.type === 'moveMany') text = `Moved ${op.items.length} cards to ${this.#describePlace(d.item)}.`;
    else if (op?.type === 'swap') text = `Swapped ${this.#labelOf(d.item)} with ${this.#labelOf(op.b)}.`;
    else if (op) text = `Moved ${this.#labelOf(d.item)} to ${this.#describePlace(d.item)}.`;
    this.emit({ type: 'announce', text });
    return this.take();
  }

  /** Puts the lifted tile back; it glides home. */
  cancel() {
    this.cancelLift();
    return this.take();
  }

  /** Flips `item` as part of a paint stroke (one stroke is one undo step). */
  paint(item) {
    const b = this.state.view();
    if (b && this.heldByOther(item)) {
      this.#ask(item); // so that this page may paint it first once the hold ends
      return this.take();
    }
    const it = b ? itemById(b, item) : null;
    if (!it) return [];
    this.stroke ??= [];
    this.stroke.push(this.#submit(this.#makeOp({ type: 'toggle', item, on: !it.on })));
    this.emit(render());
    return this.take();
  }

  /** Ends the paint stroke: its ops become one undoable change. */
  paintEnd() {
    const s = this.stroke;
    this.stroke = null;
    if (s && s.length) {
      this.#recordChange(s);
      this.emit({ type: 'announce', text: `Painted ${s.length} tile${s.length === 1 ? '' : 's'}.` });
    }
    return this.take();
  }

  /** Reverts this page's last change, as new ops under the usual conflict rules. */
  undo() {
    this.#revert('undo');
    return this.take();
  }

  /** Makes the last undone change again. */
  redo() {
    this.#revert('redo');
    return this.take();
  }

  /**
   * Reverts `change` (one an "Undo" toast offered), wherever it is on the undo stack: that
   * change, not the last one made. Refused, saying why, when it was undone already or when a
   * change made since (this page's own included) touched the same tiles.
   */
  undoChange(change) {
    if (!this.history.canUndo(change)) {
      // Refused by the server (its ops were dropped), or undone already.
      const text = change.ops.length === 0 ? 'Nothing to undo: the server refused that change' : 'Already undone';
      this.emit({ type: 'toast', text }, { type: 'announce', text });
      return this.take();
    }
    this.#revert('undo', change);
    return this.take();
  }

  // ---- Editing (issue 19): each intent is one op, shown at once, undoable, checked by the
  // server. The rules (what is sent, what is refused and why) are editing.js's.

  addCard(zone, label, options) { return this.#edit(E.addCard(this.state.view(), zone, label, options)); }

  editCard(item, changes) { return this.#edit(E.editCard(this.state.view(), item, changes)); }

  cardOp(body, text) { return this.#edit(E.cardOp(this.state.view(), body, text)); }

  addZone(title, options) { return this.#edit(E.addZone(this.state.view(), title, options)); }

  renameZone(zone, title) { return this.#edit(E.renameZone(this.state.view(), zone, title)); }

  removeZone(zone) { return this.#edit(E.removeZone(this.state.view(), zone)); }

  retitle(title) { return this.#edit(E.retitle(this.state.view(), title)); }

  /**
   * Puts the whole board back as it was right after op `to` (the History panel's "Restore");
   * `when`: that change's time in words, for the notice.
   */
  restore(to, when = null) { return this.#edit(E.restore(this.state.loaded, this.state.seq, to, when)); }

  /**
   * Several ops as one undoable change, sent together (issue 36: a selection tagged, assigned,
   * archived or deleted at once); `text` is what screen readers hear.
   */
  bulk(bodies, text) {
    if (!this.state.view() || !bodies.length) return [];
    this.#recordChange(bodies.map((body) => this.#submit(this.#makeOp(body))));
    this.emit(render(), { type: 'announce', text });
    return this.take();
  }

  /** Removes `item` (refused at once when someone else holds it; a lift of it here ends). */
  removeCard(item) {
    const d = E.removeCard(this.state.view(), item);
    if (!d) return [];
    // Not a lift: a remove of a held card waits in no tile's line.
    if (this.heldByOther(item)) return this.refuse(item, 'keyboard', { ask: false });
    if (this.drag?.item === item) this.cancelLift();
    return this.#edit(d);
  }

  /**
   * Carries out an editing decision (editing.js): one op as one undoable change, announced,
   * with a toast offering Undo of that change (`undoToast`) when it says so; or a refusal.
   */
  #edit(d) {
    if (d?.refuse) this.emit({ type: 'toast', text: d.refuse }, { type: 'announce', text: d.refuse });
    else if (d) {
      const change = this.#recordChange([this.#submit(this.#makeOp(d.body))]);
      this.emit(render(), { type: 'announce', text: d.text });
      if (d.undoToast) this.emit({ type: 'toast', text: `${d.undoToast}.`, action: 'undo', change });
      if (d.reveal) this.emit({ type: 'reveal', item: pendingId(change.ops[0].op.op) });
    }
    return this.take();
  }

  // ---- What to show.

  /**
   * The board to show and its decorations for View.renderBoard: confirmed + pending, other
   * people's move previews, and the live preview of this page's drag. Null before a board.
   */
  scene() {
    let board = this.state.view();
    if (!board) return null;
    const previews = this.remote.previews(this.drag);
    board = previewRemoteMoves(board, previews);
    const d = this.drag;
    let over = null;
    let overZone = null;
    if (d && d.target) {
      if (d.target.over == null) overZone = d.target.zone;
      if (this.mode === 'move' || d.target.over == null) {
        const mt = moveTarget(board, d.item, d.target.over, d.target.zone);
        if (mt && this.mode === 'move') {
          board = withZonesCopied(board);
          applyOp(board, { type: 'move', item: d.item, ...mt });
        }
      } else if (d.target.over !== d.item) {
        over = d.target.over;
      }
    }
    const held = new Map();
    for (const [item, by] of this.held) held.set(item, this.user(by));
    const remoteOver = new Map();
    for (const [by, h] of this.remote.remoteOver) {
      // A previewed move shows the tile at its new place instead of outlining the target.
      if (h.over && !previews.includes(h)) remoteOver.set(h.over, this.user(by));
    }
    return {
      board,
      seq: this.state.seq,
      deco: {
        held,
        me: this.me,
        dragging: d && d.source === 'pointer' ? d.item : null,
        lifted: d && d.source === 'keyboard' ? d.item : null,
        keyboardTarget: d && d.source === 'keyboard' ? d.target : null,
        over,
        overZone,
        remoteOver,
      },
    };
  }

  // ---- Helpers.

  /**
   * Asks the server for a tile someone else holds, though the page will not lift it: the refusal
   * (answered silently) puts this page in the tile's line, so it goes first when the hold ends.
   * One ask per tile at a time.
   */
  #ask(item) {
    const msg = this.open ? this.remote.ask(item) : null;
    if (msg) this.send(msg);
  }

  /** Ends the lift (`silent`: the server already released the hold, so nothing is sent). */
  cancelLift({ silent = false } = {}) {
    const d = this.drag;
    if (!d) return;
    this.emit({ type: 'hoverReset' });
    this.drag = null;
    if (!silent && this.open) {
      // Point the hover back at the tile's own place first, so other screens' previews of
      // this drag end at once instead of waiting for an op that will not come.
      const at = this.#where(d.item);
      if (at) this.send(P.hover(d.item, d.item, at.zone.id, this.mode));
      this.send(P.drop(d.item));
    }
    this.emit(render(d.item), { type: 'announce', text: `Cancelled. ${this.#labelOf(d.item)} is back in its place.` });
  }

  #offerHover() {
    const d = this.drag;
    if (!d || !this.open) return;
    // Outside every target: the hand goes back over the tile's own place.
    const at = d.target ? null : this.#where(d.item);
    const t = d.target ?? (at ? { over: d.item, zone: at.zone.id } : null);
    if (t) this.emit({ type: 'hover', msg: P.hover(d.item, t.over, t.zone, this.mode), key: `${d.item}|${targetKey(t)}` });
  }

  /** A new op message from an op body, against the last applied seq. */
  #makeOp(body) {
    return P.opMessage(this.newOpId(), this.state.seq, body);
  }

  /**
   * The moveMany a group's drop makes (lead first, then the others in board order), or null:
   * the lead goes where a single drag's move would put it, and the anchor skips the group.
   */
  #groupOp(d) {
    const board = this.state.view();
    const t = d.target;
    if (!board || !t || t.over === d.item) return null;
    const items = [d.item, ...d.group];
    const zone = board.zones.find((z) => z.id === (t.over != null ? locate(board, t.over)?.zone.id : t.zone));
    if (!zone) return null;
    const at = t.over != null && !items.includes(t.over) ? zone.items.indexOf(t.over) : -1;
    const before = at < 0 ? null : zone.items.slice(at).find((id) => !items.includes(id)) ?? null;
    return this.#makeOp({ type: 'moveMany', items, zone: zone.id, before });
  }

  /** The op a drop on target `t` makes, or null when it would change nothing. */
  #opForTarget(item, t) {
    if (!t || t.over === item) return null;
    const board = this.state.view();
    if (t.over != null && this.mode !== 'move') {
      if (!locate(board, t.over)) return null;
      return this.#makeOp({ type: 'swap', a: item, b: t.over });
    }
    const mt = moveTarget(board, item, t.over, t.zone);
    return mt ? this.#makeOp({ type: 'move', item, ...mt }) : null;
  }

  /**
   * Applies an op optimistically and sends it (as a drop of `dropItem` when it ends a drag held
   * on this connection). Returns the undo entry {op, inverse}.
   */
  #submit(op, dropItem = null) {
    const entry = { op, inverse: inverseOp(op, this.state.view()) };
    this.state.addPending(op);
    // Closed: the client keeps it (durably, with a queue) and it goes after the welcome.
    if (this.open) this.send(dropItem ? P.drop(dropItem, op) : op);
    else this.emit({ type: 'queue', msg: op });
    return entry;
  }

  /**
   * Puts a change on the undo (or redo) stack. Ops of a paint stroke may already have been
   * answered while the stroke went on; their outcome is taken from the state.
   */
  #recordChange(entries, kind = 'do') {
    const change = this.history.record(entries, kind);
    for (const e of entries) {
      if (this.state.isPending(e.op.op)) continue;
      const done = this.state.log.find((l) => l.op === e.op.op);
      if (done) this.history.committed(e.op.op, done.seq, done.body);
      else this.history.rejected(e.op.op);
    }
    return change;
  }

  /** Undoes or redoes the last change, or (`target`, an undo) that change wherever it is (undo.js plans it). */
  #revert(kind, target = null) {
    const plan = planRevert(this.history, kind, target, this.state, this.me, (id) => isolate(this.user(id).name));
    if (plan.refuse) {
      this.emit({ type: 'toast', text: plan.refuse });
      if (plan.announce) this.emit({ type: 'announce', text: plan.refuse });
      return;
    }
    const entries = plan.steps.map(({ inverse, ...remaps }) => (
      Object.assign(this.#submit(this.#makeOp(withKnownTags(inverse, this.state.view()))), remaps)));
    if (entries.length) this.#recordChange(entries, kind);
    this.emit(render(), { type: 'announce', text: kind === 'undo' ? 'Undone.' : 'Redone.' });
  }

  #where(item) {
    const b = this.state.view();
    return b ? locate(b, item) : null;
  }

  #labelOf(id) {
    return E.labelOf(this.state.view(), id);
  }

  #describePlace(item) {
    return E.describePlace(this.state.view(), item);
  }

  #describeTarget(t) {
    return E.describeTarget(this.state.view(), t);
  }
}
