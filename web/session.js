// One page's session with one board, without the socket: what the server said (welcome, resume,
// committed ops, acks, rejects, other people's holds and hovers), what this page did (pending
// ops, the drag in progress, paint strokes, undo and redo), and what follows from it.
// Pure: no DOM, no sockets, no timers, no clock.
//
// In: the socket's life (hello, receive, disconnected), timers running out (wake), and the
// intents of gestures.js (lift, aim, aimKey, drop, cancel, paint, paintEnd, refuse, setMode,
// undo, redo, undoChange, and the editing ones). Each of those returns effects, plain objects
// that the wiring (app.js) carries out in order (hello returns the message to send). Out,
// besides: scene() for the view.
//   {type:'send', msg}              send on the socket (asked for only while the session is open)
//   {type:'resync', snapshot}       close the socket and start over (with the whole board when
//                                   `snapshot`); the next hello() says how
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

import * as P from './protocol.js';
import {
  applyOp, BoardState, canRevert, cloneBoard, inverseOp, isPendingId, itemById, locate, moveTarget, opMovesItem,
  pendingId, previewRemoteMoves, UndoHistory,
} from './state.js';
import { describeOp } from './announce.js';
import { Selection } from './selection.js';
import { isolate } from './bidi.js';
import { nextKeyboardTarget, targetKey } from './geometry.js';
import { layoutOfItem, zoneLayout, zoneLayouts } from './layout.js';

/**
 * After someone else's move-mode drop, how long their live reorder preview may stay on screen
 * waiting for the committed op (ms). The server sends the op right after the `drop`, so the
 * preview normally gives way to the op at once (no jump back in between); this only bounds the
 * wait when no op comes (the drop was refused, or only released the tile).
 */
export const SETTLE_MS = 1000;

/** The drag modes. */
export const MODES = ['swap', 'move', 'paint'];

export class Session {
  #fx = []; // effects of the call under way
  #tokens = 0; // the last wake token handed out

  /** `newOpId`: fresh op ids (tests pass a counter). */
  constructor({ newOpId = P.newOpId } = {}) {
    this.newOpId = newOpId;
    /** Confirmed board + pending ops; `history`: undo and redo of own changes. */
    this.state = new BoardState();
    this.history = new UndoHistory();
    this.mode = 'swap';
    this.me = null;
    this.users = new Map(); // user id → {id, name, color}
    this.userCount = null; // on a large board: how many users in all (the list names only some)
    this.held = new Map(); // item → user id
    this.remoteOver = new Map(); // user id → {item, over, zone, mode}
    this.settling = new Map(); // item → {hover, token}: a dropped move preview awaiting its op
    /** True between a welcome and the end of its connection (or a resync). */
    this.open = false;
    this.resyncing = false;
    this.forceSnapshot = false;
    /**
     * The lift in progress: {item, source ('pointer' | 'keyboard'), target}. While the session
     * is open its hold has been asked for on this connection (at the lift, or again by the
     * welcome after a reconnect).
     */
    this.drag = null;
    this.stroke = null; // the ops of a paint stroke in progress: [{op, inverse}]
    /**
     * Tiles asked for while someone else held them (`refuse`), so that this page waits in their
     * line on the server and goes first when the hold ends (docs/conflicts.md). Should the server
     * grant one because the hold was already over, the page gives it back at once.
     */
    this.asked = new Set();
    /** The cards selected for bulk actions and group drags (selection.js, issue 36). */
    this.selection = new Selection();
  }

  // ---- The connection.

  /** The socket opened: the hello to send. Resumes with `since` unless a snapshot is needed. */
  hello(board, name, token = null, member = null) {
    const since = this.state.loaded && !this.forceSnapshot ? this.state.seq : undefined;
    this.forceSnapshot = false;
    this.resyncing = false;
    return P.hello(board, name, since, token, member);
  }

  /** The socket closed. Holds and hovers died with it; a drag in progress goes on locally. */
  disconnected() {
    this.open = false;
    this.resyncing = false;
    // A drag in progress lost its hold: its drop goes as a plain op, or the welcome asks again.
    this.held.clear();
    this.asked.clear();
    this.remoteOver.clear();
    this.#clearSettling();
    this.#emit({ type: 'connection', state: 'closed' }, { type: 'handEnd', by: null }, render());
    return this.#take();
  }

  /** One server message. After a resync the rest of the old connection's messages are ignored. */
  receive(m) {
    if (this.resyncing) return [];
    if (P.isCommitted(m)) this.#committed(m);
    else {
      switch (m.type) {
        case 'welcome': this.#welcome(m); break;
        case 'reject': this.#rejected(m); break;
        case 'ack': this.#acked(m); break;
        case 'dragStart':
          // On a large board a hand names its holder, whom this page may not have been told of.
          if (m.user?.id && !this.users.has(m.user.id)) {
            this.users.set(m.user.id, m.user);
            this.#emit(this.#presence());
          }
          this.#remoteDragStart(m);
          break;
        case 'presence':
          if (Array.isArray(m.users)) {
            this.users = new Map(m.users.filter((u) => u?.id).map((u) => [u.id, u]));
            this.userCount = null;
          } else if (Number.isInteger(m.userCount)) {
            this.userCount = m.userCount;
          }
          this.#emit(this.#presence());
          break;
        case 'hover': this.#remoteHover(m); break;
        case 'drop': this.#remoteDrop(m); break;
        case 'join':
          if (m.user?.id) this.users.set(m.user.id, m.user);
          this.#emit(this.#presence());
          break;
        case 'leave':
          if (m.user?.id) {
            this.users.delete(m.user.id);
            this.#emit({ type: 'handEnd', by: m.user.id });
            this.remoteOver.delete(m.user.id);
          }
          this.#emit(this.#presence(), render());
          break;
        case 'error':
          // An op the server did not apply (its store is failing and enough ops of the board
          // wait for it, or the board moved or could not be stored): take it back like a
          // rejected one, so that the page never shows what the server does not have. Had it
          // been stored after all (a board that moved), the resume brings it back.
          if (m.code === 'unavailable' && m.op && this.state.pending.some((p) => p.op === m.op)) {
            this.#rejected({ op: m.op, reason: 'unavailable' });
            break;
          }
          this.#emit(
            { type: 'warn', text: `server error ${m.code}: ${m.message}` },
            { type: 'toast', text: `Server: ${m.message || m.code}` },
          );
          break;
        default:
          break; // newer servers may add types
      }
    }
    return this.#take();
  }

  /** A timer asked for with a `wake` effect ran out. */
  wake(token) {
    for (const [item, s] of this.settling) {
      if (s.token === token) {
        this.settling.delete(item);
        this.#emit(render());
      }
    }
    return this.#take();
  }

  // ---- Local intents.

  /** Switches the drag mode (a drag in progress is cancelled). */
  setMode(mode) {
    if (!MODES.includes(mode)) return [];
    if (this.drag) this.#cancelDrag();
    this.mode = mode;
    this.#emit({ type: 'mode', mode });
    return this.#take();
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
    this.#emit({ type: 'toast', text });
    this.#emit(source === 'pointer' ? { type: 'pulse', items: [item], kind: 'reject' } : { type: 'announce', text });
    if (ask) this.#ask(item);
    return this.#take();
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
    this.#emit({ type: 'hoverReset' });
    if (source === 'pointer') this.#emit(group.length ? { type: 'ghost', item, count: group.length + 1 } : { type: 'ghost', item });
    this.#send(group.length ? P.dragStartMany([item, ...group]) : P.dragStart(item));
    this.#emit(render(), {
      type: 'announce',
      text: source === 'keyboard'
        ? `Picked up ${this.#labelOf(item)}. Arrow keys choose a target, Space or Enter drops, Escape cancels.`
        : `Picked up ${this.#labelOf(item)}.`,
    });
    return this.#take();
  }

  /** The pointer's target changed to `t` ({over, zone}, or null outside every target). */
  aim(t) {
    const d = this.drag;
    if (!d || targetKey(t) === targetKey(d.target)) return [];
    d.target = t;
    this.#emit(render());
    this.#offerHover();
    return this.#take();
  }

  /** An arrow key during a keyboard lift. */
  aimKey(key) {
    const d = this.drag;
    const b = this.state.view();
    if (!d || !b) return [];
    const zones = zoneLayouts(b).map((l, i) => ({ ...l, items: b.zones[i].items }));
    d.target = nextKeyboardTarget(zones, d.target ?? { over: d.item, zone: this.#where(d.item)?.zone.id }, key);
    this.#emit(render());
    this.#offerHover();
    this.#emit({
      type: 'announce',
      text: d.target.over === d.item ? 'Over its own place.' : `Over ${this.#describeTarget(d.target)}.`,
    });
    return this.#take();
  }

  /** Drops the lifted tile on its target (or puts it back when there is none). */
  drop() {
    const d = this.drag;
    if (!d) return [];
    const op = d.group?.length ? this.#groupOp(d) : this.#opForTarget(d.item, d.target);
    this.#emit({ type: 'hoverFlush' });
    this.drag = null;
    if (op) {
      // Open: the hold is ours on this connection, so a drop carries the op. Otherwise the hold
      // died with the connection and the op goes after the welcome as a plain pending op.
      this.#recordChange([this.#submit(op, this.open ? d.item : null)]);
    } else {
      this.#send(P.drop(d.item)); // only releases (nothing to release when closed)
    }
    this.#emit(render(d.item));
    if (d.source === 'keyboard') this.#emit({ type: 'focus', item: d.item });
    let text = `Dropped ${this.#labelOf(d.item)} in its place; nothing changed.`;
    if (op?.type === 'moveMany') text = `Moved ${op.items.length} cards to ${this.#describePlace(d.item)}.`;
    else if (op?.type === 'swap') text = `Swapped ${this.#labelOf(d.item)} with ${this.#labelOf(op.b)}.`;
    else if (op) text = `Moved ${this.#labelOf(d.item)} to ${this.#describePlace(d.item)}.`;
    this.#emit({ type: 'announce', text });
    return this.#take();
  }

  /** Puts the lifted tile back; it glides home. */
  cancel() {
    this.#cancelDrag();
    return this.#take();
  }

  /** Flips `item` as part of a paint stroke (one stroke is one undo step). */
  paint(item) {
    const b = this.state.view();
    if (b && this.heldByOther(item)) {
      this.#ask(item); // so that this page may paint it first once the hold ends
      return this.#take();
    }
    const it = b ? itemById(b, item) : null;
    if (!it) return [];
    this.stroke ??= [];
    this.stroke.push(this.#submit(this.#makeOp({ type: 'toggle', item, on: !it.on })));
    this.#emit(render());
    return this.#take();
  }

  /** Ends the paint stroke: its ops become one undoable change. */
  paintEnd() {
    const s = this.stroke;
    this.stroke = null;
    if (s && s.length) {
      this.#recordChange(s);
      this.#emit({ type: 'announce', text: `Painted ${s.length} tile${s.length === 1 ? '' : 's'}.` });
    }
    return this.#take();
  }

  /** Reverts this page's last change, as new ops under the usual conflict rules. */
  undo() {
    this.#revert('undo');
    return this.#take();
  }

  /** Makes the last undone change again. */
  redo() {
    this.#revert('redo');
    return this.#take();
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
      this.#emit({ type: 'toast', text }, { type: 'announce', text });
      return this.#take();
    }
    this.#revert('undo', change);
    return this.#take();
  }

  // ---- Editing (issue 19): each intent is one op, shown at once, undoable, checked by the server.

  /** Adds a card labelled `label` at the end of `zone` (or before `before`). */
  addCard(zone, label, { before = null, color, detail } = {}) {
    const b = this.state.view();
    const text = String(label ?? '').trim();
    if (!b || !b.zones.some((z) => z.id === zone) || isPendingId(zone)) return [];
    if (!text) return this.#refuseEdit('Type a label for the new card first');
    const problem = P.textProblem(text, P.LIMITS.label);
    if (problem) return this.#refuseEdit(`A card's label ${problem}`);
    if (b.items.length >= P.LIMITS.items) return this.#refuseEdit(P.rejectText('board_full'));
    const item = { label: text };
    if (color) item.color = color;
    if (typeof detail === 'string' && detail) item.detail = detail;
    const change = this.#change({ type: 'add', zone, before, item }, `Added ${text} to ${this.#zoneTitle(zone)}.`);
    // Shown where it will stay, scrolled into sight (the end of a long strip is off to the side).
    this.#emit({ type: 'reveal', item: pendingId(change.ops[0].op.op) });
    return this.#take();
  }

  /** Changes some of `item`'s label, color and detail; unchanged fields are left out. */
  editCard(item, changes) {
    const b = this.state.view();
    const it = b && !isPendingId(item) ? itemById(b, item) : null;
    if (!it) return [];
    const body = { type: 'edit', item };
    if (typeof changes.label === 'string') {
      const label = changes.label.trim();
      if (!label) return this.#refuseEdit('A card needs a label; to delete it, press Delete');
      const problem = P.textProblem(label, P.LIMITS.label);
      if (problem) return this.#refuseEdit(`A card's label ${problem}`);
      if (label !== it.label) body.label = label;
    }
    if (typeof changes.color === 'string' && changes.color !== it.color) body.color = changes.color;
    if (changes.detail !== undefined) {
      const detail = typeof changes.detail === 'string' && changes.detail.trim() ? changes.detail.trim() : null;
      const problem = detail === null ? null : P.textProblem(detail, P.LIMITS.detail);
      if (problem) return this.#refuseEdit(`A card's detail ${problem}`);
      if (detail !== (it.detail ?? null)) body.detail = detail;
    }
    if (Object.keys(body).length === 2) return this.#take(); // nothing changed
    this.#change(body, `Changed ${it.label}${body.label ? ` to ${body.label}` : ''}.`);
    return this.#take();
  }

  /**
   * An op about a card's content (issue 32) from the card panel: `edit` of description or due,
   * `tag`, `assign`, `addTag`, `editTag`, `removeTag`, `addCheck`, `editCheck`, `removeCheck`.
   * Sent as it is (the panel checked its texts); `text` is what screen readers hear. Undoable.
   */
  cardOp(body, text) {
    const b = this.state.view();
    if (!b || (body.item && (isPendingId(body.item) || !itemById(b, body.item)))) return [];
    this.#change(body, text);
    return this.#take();
  }

  /**
   * Several ops as one undoable change, sent together (issue 36: a selection tagged, assigned,
   * archived or deleted at once); `text` is what screen readers hear.
   */
  bulk(bodies, text) {
    if (!this.state.view() || !bodies.length) return [];
    this.#recordChange(bodies.map((body) => this.#submit(this.#makeOp(body))));
    this.#emit(render(), { type: 'announce', text });
    return this.#take();
  }

  /** Removes `item` (refused at once when someone else holds it). */
  removeCard(item) {
    const b = this.state.view();
    const it = b && !isPendingId(item) ? itemById(b, item) : null;
    if (!it) return [];
    // Not a lift: a remove of a held card waits in no tile's line.
    if (this.heldByOther(item)) return this.refuse(item, 'keyboard', { ask: false });
    if (this.drag?.item === item) this.#cancelDrag();
    this.#change({ type: 'remove', item }, `Removed ${isolate(it.label)}.`, { undoToast: `Removed “${isolate(it.label)}”` });
    return this.#take();
  }

  /** Adds a zone titled `title` (a list) before zone `before`, or last. */
  addZone(title, { before = null, layout = 'list' } = {}) {
    const b = this.state.view();
    const text = String(title ?? '').trim();
    if (!b) return [];
    const problem = P.textProblem(text, P.LIMITS.zoneTitle);
    if (problem) return this.#refuseEdit(`A column's title ${problem}`);
    if (b.zones.length >= P.LIMITS.zones) return this.#refuseEdit(P.rejectText('board_full'));
    this.#change({ type: 'addZone', before, zone: { title: text, layout } }, `Added the column ${text}.`);
    return this.#take();
  }

  /** Renames zone `zone`. */
  renameZone(zone, title) {
    const b = this.state.view();
    const z = b && !isPendingId(zone) ? b.zones.find((x) => x.id === zone) : null;
    const text = String(title ?? '').trim();
    if (!z) return [];
    const problem = P.textProblem(text, P.LIMITS.zoneTitle);
    if (problem) return this.#refuseEdit(`A column's title ${problem}`);
    if (text === z.title) return [];
    this.#change({ type: 'editZone', zone, title: text }, `Renamed the column to ${text}.`);
    return this.#take();
  }

  /** Removes zone `zone`, which must be empty (refused at once, saying why, otherwise). */
  removeZone(zone) {
    const b = this.state.view();
    const z = b && !isPendingId(zone) ? b.zones.find((x) => x.id === zone) : null;
    if (!z) return [];
    if (z.items.length) return this.#refuseEdit(P.rejectText('not_empty'));
    if (b.zones.length === 1) return this.#refuseEdit('A board keeps at least one column');
    const name = this.#zoneTitle(zone);
    this.#change({ type: 'removeZone', zone }, `Removed the column ${name}.`, { undoToast: `Removed the column “${name}”` });
    return this.#take();
  }

  /** Renames the board. */
  retitle(title) {
    const b = this.state.view();
    const text = String(title ?? '').trim();
    if (!b) return [];
    const problem = P.textProblem(text, P.LIMITS.title);
    if (problem) return this.#refuseEdit(`The board's name ${problem}`);
    if (text === b.title) return [];
    this.#change({ type: 'retitle', title: text }, `Renamed the board to ${text}.`);
    return this.#take();
  }

  /**
   * Puts the whole board back as it was right after op `to` (the History panel's "Restore");
   * `when`: that change's time in words, for the notice.
   */
  restore(to, when = null) {
    if (!this.state.loaded || !Number.isInteger(to) || to < 0 || to > this.state.seq) return [];
    const undoToast = when ? `Restored the board to how it was on ${when} (change ${to})` : `Restored the board as of change ${to}`;
    this.#change({ type: 'restore', to }, `Restoring the board as of change ${to}.`, { undoToast });
    return this.#take();
  }

  /**
   * One editing op as one undoable change, announced; `undoToast`: a toast offering Undo of this
   * change (`change`: what its button reverts, even after later changes).
   */
  #change(body, text, { undoToast = null } = {}) {
    const change = this.#recordChange([this.#submit(this.#makeOp(body))]);
    this.#emit(render(), { type: 'announce', text });
    if (undoToast) this.#emit({ type: 'toast', text: `${undoToast}.`, action: 'undo', change });
    return change;
  }

  #refuseEdit(text) {
    this.#emit({ type: 'toast', text }, { type: 'announce', text });
    return this.#take();
  }

  // ---- What to show.

  /**
   * The board to show and its decorations for View.renderBoard: confirmed + pending, other
   * people's move previews, and the live preview of this page's drag. Null before a board.
   */
  scene() {
    let board = this.state.view();
    if (!board) return null;
    const previews = this.#remotePreviews();
    board = previewRemoteMoves(board, previews);
    const d = this.drag;
    let over = null;
    let overZone = null;
    if (d && d.target) {
      if (d.target.over == null) overZone = d.target.zone;
      if (this.mode === 'move' || d.target.over == null) {
        const mt = moveTarget(board, d.item, d.target.over, d.target.zone);
        if (mt && this.mode === 'move') {
          board = cloneBoard(board);
          applyOp(board, { type: 'move', item: d.item, ...mt });
        }
      } else if (d.target.over !== d.item) {
        over = d.target.over;
      }
    }
    const held = new Map();
    for (const [item, by] of this.held) held.set(item, this.user(by));
    const remoteOver = new Map();
    for (const [by, h] of this.remoteOver) {
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

  /** A user by id (a placeholder for one who has left). */
  user(id) {
    return this.users.get(id) ?? { id, name: id, color: '#555' };
  }

  // ---- Server messages.

  #welcome(m) {
    this.me = m.you;
    this.users = new Map((m.users ?? []).map((u) => [u.id, u]));
    this.userCount = Number.isInteger(m.userCount) ? m.userCount : null;
    this.held = new Map((m.drags ?? []).map((d) => [d.item, d.by]));
    this.remoteOver.clear();
    this.#clearSettling();
    if (m.board) {
      this.state.reset(m.board, m.seq);
    } else if (Array.isArray(m.ops)) {
      for (const op of m.ops) {
        const r = this.state.applyCommitted(op);
        if (r.status === 'gap') return this.#resync(true);
        if (r.status === 'applied' && r.own) this.history.committed(op.op, op.seq, op);
      }
      if (this.state.seq !== m.seq) return this.#resync(true);
    } else {
      return this.#resync(true);
    }
    this.open = true;
    this.#emit({ type: 'connection', state: 'open' }, this.#presence());
    for (const d of m.drags ?? []) if (d.by !== this.me) this.#emit({ type: 'handStart', user: this.user(d.by), item: d.item });
    // Ops in flight when the connection dropped: resend with the same op id (the server
    // answers `ack` for any it had already committed, so none is applied twice).
    for (const p of this.state.pending) this.#send(p);
    if (this.drag) {
      // A drag survived the reconnect: hold the tile again.
      this.#send(P.dragStart(this.drag.item));
    }
    this.#emit(render());
    return undefined;
  }

  #committed(m) {
    // Said from the board as it was before the op, so a move can tell where the tile came from.
    const change = m.by !== this.me && this.state.loaded ? describeOp(m, this.state.board, (id) => this.user(id).name) : null;
    const r = this.state.applyCommitted(m);
    // A live gap resumes from the last applied seq (the server sends what is missing).
    if (r.status === 'gap') return this.#resync(false);
    if (r.status !== 'applied') return undefined;
    if (r.own) this.history.committed(m.op, m.seq, m);
    // A dropped preview gives way to the op that moved its tile: the confirmed board now shows it.
    for (const item of [...this.settling.keys()]) if (opMovesItem(m, item)) this.#clearSettling(item);
    // Someone else's remove: the card fades out where it was, before the render takes it away.
    if (m.by !== this.me && m.type === 'remove') this.#emit({ type: 'fade', item: m.item, by: this.user(m.by) });
    if (m.by !== this.me && m.type === 'removeZone') this.#emit({ type: 'zoneGone', zone: m.zone, by: this.user(m.by) });
    this.#emit(render());
    if (m.by !== this.me) {
      const items = P.involvedItems(m).filter((id) => id !== m.before);
      if (m.type !== 'remove') this.#emit({ type: 'pulse', items, kind: 'remote', color: this.user(m.by).color });
      if (change) this.#emit({ type: 'remoteChange', change });
      // A card someone removed under this page's keyboard or pointer lift: the lift ends.
      if (this.drag && m.type === 'remove' && m.item === this.drag.item) this.#cancelDrag({ silent: true });
    }
    return undefined;
  }

  #rejected(m) {
    const pendingType = m.op ? this.state.pending.find((p) => p.op === m.op)?.type : null;
    // A conflict with this page's own earlier op (two changes of one card before the first came
    // back: docs/conflicts.md, "Own ops count too") is not someone else's doing.
    const text = m.op && m.reason === 'conflict' && m.by && m.by === this.me
      ? 'You changed that a moment ago; try again'
      : P.rejectText(m.reason, m.by, (id) => isolate(this.user(id).name), pendingType);
    if (!m.op && m.item && this.asked.delete(m.item) && this.drag?.item !== m.item) return; // an ask: in line
    if (!m.op && m.reason === 'held' && m.by === this.me) return; // the hold is ours already: nothing to undo
    if (!m.op) {
      // A refused dragStart (held by someone else), or a hover/drop for a hold we lost.
      if (this.drag && (!m.item || m.item === this.drag.item)) {
        const item = this.drag.item;
        this.#cancelDrag({ silent: true });
        this.#emit({ type: 'pulse', items: [item], kind: 'reject' }, { type: 'toast', text }, { type: 'announce', text });
      }
      return;
    }
    const p = this.state.reject(m.op);
    this.history.rejected(m.op);
    if (!p) return;
    this.#emit(
      render(),
      { type: 'pulse', items: P.involvedItems(p), kind: 'reject' },
      { type: 'toast', text },
      { type: 'announce', text },
    );
    // The server's history is not ours (a restarted in-memory server): start from its snapshot.
    if (m.reason === 'bad_base') this.#resync(true);
  }

  #acked(m) {
    if (this.state.ack(m.op, m.seq)) this.history.committed(m.op, m.seq);
    this.#emit(render());
  }

  #remoteDragStart(m) {
    if (m.by === this.me && this.asked.delete(m.item) && this.drag?.item !== m.item) {
      // An ask granted because the hold had just ended: nobody is dragging it here, so give it back.
      this.#send(P.drop(m.item));
      return;
    }
    this.held.set(m.item, m.by);
    for (const other of Array.isArray(m.items) ? m.items : []) this.held.set(other, m.by); // a group (issue 36)
    this.#clearSettling(m.item);
    if (m.by !== this.me) this.#emit({ type: 'handStart', user: this.user(m.by), item: m.item }, { type: 'taken', item: m.item });
    this.#emit(render());
  }

  #remoteHover(m) {
    if (m.by === this.me) return;
    const mode = m.mode === 'move' || m.mode === 'swap' ? m.mode : null;
    this.remoteOver.set(m.by, { item: m.item, over: m.over ?? null, zone: m.zone, mode });
    // Move mode: the held tile itself is shown at its new place (scene), and the hand holds it
    // there. Otherwise the hand points at the target.
    const target = mode === 'move' ? { over: m.item, zone: m.zone } : { over: m.over ?? null, zone: m.zone };
    this.#emit({ type: 'handHover', by: m.by, target }, render());
  }

  #remoteDrop(m) {
    // A drag ends whole: a group's items with its lead (issue 36).
    if (this.held.get(m.item) === m.by) for (const [item, by] of this.held) if (by === m.by) this.held.delete(item);
    const last = this.remoteOver.get(m.by);
    this.remoteOver.delete(m.by);
    // A released move preview stays until the op it announces arrives (or SETTLE_MS pass), so
    // the tile does not jump back between the drop and the op. A hold that ended without a
    // drop (left, expired) commits nothing: its preview goes at once.
    if (m.by !== this.me && !m.reason && last && last.mode === 'move' && last.item === m.item) {
      this.#clearSettling(m.item);
      this.#tokens += 1;
      this.settling.set(m.item, { hover: last, token: this.#tokens });
      this.#emit({ type: 'wake', after: SETTLE_MS, token: this.#tokens });
    }
    if (m.by !== this.me) {
      this.#emit({ type: 'handEnd', by: m.by });
    } else if (m.reason === 'expired' && this.drag && this.drag.item === m.item) {
      this.#cancelDrag({ silent: true });
      this.#emit({ type: 'toast', text: P.dropReasonText('expired') });
    }
    this.#emit(render());
  }

  // ---- Helpers.

  /**
   * Asks the server for a tile someone else holds, though the page will not lift it: the refusal
   * (answered silently) puts this page in the tile's line, so it goes first when the hold ends.
   * One ask per tile at a time.
   */
  #ask(item) {
    if (!this.open || this.asked.has(item)) return;
    this.asked.add(item);
    this.#send(P.dragStart(item));
  }

  #emit(...effects) {
    this.#fx.push(...effects);
  }

  #take() {
    const fx = this.#fx;
    this.#fx = [];
    return fx;
  }

  #send(msg) {
    if (this.open) this.#emit({ type: 'send', msg });
  }

  #presence() {
    return { type: 'presence', users: this.users, me: this.me, count: this.userCount };
  }

  /** Starts over from a fresh connection (a gap in seq, or an out-of-sync base). */
  #resync(snapshot) {
    if (snapshot) this.forceSnapshot = true;
    this.open = false;
    this.resyncing = true;
    this.#emit({ type: 'resync', snapshot });
  }

  /** Forgets the dropped preview of `item` (of every item when omitted). */
  #clearSettling(item) {
    for (const id of [...this.settling.keys()]) if (item === undefined || id === item) this.settling.delete(id);
  }

  /**
   * Other people's move-mode drags as hovers to preview: dropped ones still waiting for their
   * op first, then the live ones. None while this page drags itself, so tiles never slide under
   * one's own pointer (their hands and target outlines still show).
   */
  #remotePreviews() {
    if (this.drag) return [];
    const live = [...this.remoteOver.values()].filter((h) => h.mode === 'move' && !this.settling.has(h.item));
    return [...[...this.settling.values()].map((s) => s.hover), ...live];
  }

  /** `silent`: the server already released the hold, so nothing is sent. */
  #cancelDrag({ silent = false } = {}) {
    const d = this.drag;
    if (!d) return;
    this.#emit({ type: 'hoverReset' });
    this.drag = null;
    if (!silent && this.open) {
      // Point the hover back at the tile's own place first, so other screens' previews of
      // this drag end at once instead of waiting for an op that will not come.
      const at = this.#where(d.item);
      if (at) this.#send(P.hover(d.item, d.item, at.zone.id, this.mode));
      this.#send(P.drop(d.item));
    }
    this.#emit(render(d.item), { type: 'announce', text: `Cancelled. ${this.#labelOf(d.item)} is back in its place.` });
  }

  #offerHover() {
    const d = this.drag;
    if (!d || !this.open) return;
    // Outside every target: the hand goes back over the tile's own place.
    const at = d.target ? null : this.#where(d.item);
    const t = d.target ?? (at ? { over: d.item, zone: at.zone.id } : null);
    if (t) this.#emit({ type: 'hover', msg: P.hover(d.item, t.over, t.zone, this.mode), key: `${d.item}|${targetKey(t)}` });
  }

  /** A new op message from an op body, against the last applied seq. */
  #makeOp(body) {
    const id = this.newOpId();
    const base = this.state.seq;
    switch (body.type) {
      case 'swap': return P.swap(id, base, body.a, body.b);
      case 'move': return P.move(id, base, body.item, body.zone, body.before);
      case 'toggle': return P.toggle(id, base, body.item, body.on);
      case 'add': return P.add(id, base, body.zone, body.before, body.item);
      case 'edit': return P.edit(id, base, body.item, body);
      case 'remove': return P.remove(id, base, body.item);
      case 'addZone': return P.addZone(id, base, body.before, body.zone);
      case 'editZone': return P.editZone(id, base, body.zone, body);
      case 'removeZone': return P.removeZone(id, base, body.zone);
      case 'retitle': return P.retitle(id, base, body.title);
      case 'restore': return P.restore(id, base, body.to);
      case 'tag': return P.tag(id, base, body.item, body.add ?? [], body.remove ?? []);
      case 'assign': return P.assign(id, base, body.item, body.add ?? [], body.remove ?? []);
      case 'addTag': return P.addTag(id, base, body.tag, body.items);
      case 'editTag': return P.editTag(id, base, body.tag, body);
      case 'removeTag': return P.removeTag(id, base, body.tag);
      case 'addCheck': return P.addCheck(id, base, body.item, body.before, body.text);
      case 'editCheck': return P.editCheck(id, base, body.item, body.check, body);
      case 'removeCheck': return P.removeCheck(id, base, body.item, body.check);
      case 'moveMany': return P.moveMany(id, base, body.items, body.zone, body.before);
      case 'archive': return P.archive(id, base, body.items);
      case 'unarchive': return P.unarchive(id, base, body.items, body.zone, body.before);
      default: throw new Error(`unknown op ${body.type}`);
    }
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
    this.#send(dropItem ? P.drop(dropItem, op) : op);
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

  /** Undoes or redoes the last change, or (`target`, an undo) that change wherever it is. */
  #revert(kind, target = null) {
    const undo = kind === 'undo';
    const change = target ?? (undo ? this.history.peekUndo() : this.history.peekRedo());
    if (!change) {
      this.#emit({ type: 'toast', text: undo ? 'Nothing to undo' : 'Nothing to redo' });
      return;
    }
    const outOfOrder = !!target && target !== this.history.peekUndo();
    const check = canRevert(change, this.state, this.me, { outOfOrder });
    if (!check.ok && check.why === 'pending') {
      this.#emit({ type: 'toast', text: 'Still saving that change; try again in a moment' });
      return;
    }
    // Reverted now, or never: either way it leaves the stack, so the next one is reachable.
    if (target) this.history.takeUndo(target);
    else if (undo) this.history.popUndo();
    else this.history.popRedo();
    if (!check.ok) {
      const who = check.by === this.me ? 'you' : isolate(this.user(check.by).name);
      const text = check.why === 'changed'
        ? `Can't ${kind}: ${who} changed those tiles since`
        : `Can't ${kind}: that change is too old`;
      this.#emit({ type: 'toast', text }, { type: 'announce', text });
      return;
    }
    const entries = [];
    // A bulk op's undo may be several ops (`many`, bulk.js), sent together.
    const inverses = [...change.ops].reverse().flatMap((e) => (e.inverse?.type === 'many' ? e.inverse.ops : [e.inverse]).map((inverse) => ({ inverse })));
    for (const e of inverses) {
      if (!e.inverse) continue;
      const entry = this.#submit(this.#makeOp(withKnownTags(e.inverse, this.state.view())));
      // An add that brings back a removed item (or zone): once it commits, the other changes
      // on the stack name its new id (UndoHistory.committed).
      if (e.inverse.restores) entry.restores = e.inverse.restores;
      // …and its checks' new ids (in the same order) replace the old ones there too.
      if (e.inverse.type === 'add' && e.inverse.item?.checklist) entry.restoresChecks = e.inverse.item.checklist.map((c) => c.id);
      // …and a tag made again (the undo of a removeTag) replaces the old id there too.
      if (e.inverse.restoresTag) entry.restoresTag = e.inverse.restoresTag;
      entries.push(entry);
    }
    if (entries.length) this.#recordChange(entries, kind);
    this.#emit(render(), { type: 'announce', text: undo ? 'Undone.' : 'Redone.' });
  }

  #where(item) {
    const b = this.state.view();
    return b ? locate(b, item) : null;
  }

  /** A card's label, or its id, isolated for a composed sentence (bidi.js). */
  #labelOf(id) {
    const b = this.state.view();
    return isolate((b && itemById(b, id)?.label) || id);
  }

  #zoneTitle(id) {
    const b = this.state.view();
    const i = b ? b.zones.findIndex((z) => z.id === id) : -1;
    return isolate(i < 0 ? id : zoneLayout(b, b.zones[i], i).title);
  }

  #describePlace(item) {
    const at = this.#where(item);
    return at ? `${this.#zoneTitle(at.zone.id)} position ${at.index + 1} of ${at.zone.items.length}` : 'its place';
  }

  #describeTarget(t) {
    if (!t) return 'no target';
    if (t.over == null) return `the end of ${this.#zoneTitle(t.zone)}`;
    const at = this.#where(t.over);
    const where = at ? `, ${this.#zoneTitle(at.zone.id)} position ${at.index + 1} of ${at.zone.items.length}` : '';
    return `${this.#labelOf(t.over)}${where}`;
  }
}

function render(glide = null) {
  return { type: 'render', glide };
}

/**
 * `body`, an undo step, without what the board no longer has: an add bringing back a removed card
 * without the tags removed since (the rest of its content still comes back), an addTag making a
 * removed tag again without the cards removed since. Other bodies as they are.
 */
function withKnownTags(body, board) {
  if (body.type === 'addTag' && body.items?.length) {
    const items = body.items.filter((id) => board?.items.some((i) => i.id === id));
    return { ...body, items };
  }
  if (body.type !== 'add' || !body.item?.tags?.length) return body;
  const known = new Set((board?.tags ?? []).map((t) => t.id));
  const tags = body.item.tags.filter((t) => known.has(t));
  return { ...body, item: { ...body.item, tags } };
}
