// The server's side of one page's session with one board (session.js builds on it): what the
// server said — welcome and resume, committed ops, acks, rejects, other people's hovers and drops
// (remote.js) — onto the confirmed board and its pending ops (state.js). The connection is the SDK
// client's (sdk/shuffleboard.js, `useClient`): its phase, the hello and resume, the seq checks and
// resyncs, this connection's user, who is here and who holds what are kept there once, and the
// session reads them; the client hands the session only messages that fit (committed ops gapless,
// a welcome whose resumed ops follow the board the session has), so the session checks no seq.
// Pure: no DOM, no sockets, no timers, no clock. Effects as session.js lists them.

import * as P from './protocol.js';
import { BoardState } from './state.js';
import { describeOp } from './announce.js';
import { isolate } from './bidi.js';
import { RemoteDrags } from './remote.js';
import { Roster } from './sdk/roster.js';

/** The client a session has before it is given one (`useClient`): not connected, nobody here. */
const NO_CLIENT = Object.freeze({ state: 'idle', you: null, roster: new Roster(), drags: new Map() });

/** The render effect; `glide`: the item whose lift ended (it glides from the ghost's place). */
export function render(glide = null) {
  return { type: 'render', glide };
}

export class SessionLink {
  #fx = []; // effects of the call under way

  constructor() {
    /** Confirmed board + pending ops. */
    this.state = new BoardState();
    /** The SDK client whose connection this is (sdk/shuffleboard.js). */
    this.client = NO_CLIENT;
    /** Other people's hovers and dropped previews, and this page's asks (remote.js). */
    this.remote = new RemoteDrags();
  }

  /**
   * Takes the connection from the SDK client `client`: its phase (`open`), this connection's user
   * (`me`), who is here (`roster`) and who holds what (`held`). The client keeps them up to date
   * before it hands the session a message.
   */
  useClient(client) {
    this.client = client;
  }

  /** True while the client's session is open (welcomed, and the socket not closed since). */
  get open() {
    return this.client.state === 'open';
  }

  /** This connection's user id (the welcome's `you`), or null before one. */
  get me() {
    return this.client.you;
  }

  /** Who is on the board (sdk/roster.js), as the client keeps it. */
  get roster() {
    return this.client.roster;
  }

  /** Holds: item → user id, as the client keeps them. */
  get held() {
    return this.client.drags;
  }

  /** Dropped move previews awaiting their op (remote.js). */
  get settling() {
    return this.remote.settling;
  }

  // ---- The connection.

  /**
   * Before any server: the board as last confirmed (`board` at `seq`) and the ops a page before
   * this one left pending (durable, web/pending.js). Shown at once; the next hello resumes from
   * `seq` (the client is made with it), and the client sends the ops again with their op ids.
   */
  loadSaved(board, seq, ops = []) {
    if (this.state.loaded || !board || !Number.isSafeInteger(seq)) return [];
    this.state.reset(board, seq);
    for (const op of ops) if (P.OP_TYPES.has(op?.type) && typeof op.op === 'string') this.state.addPending(op);
    this.emit(render());
    return this.take();
  }

  /** The socket closed. Holds and hovers died with it; a drag in progress goes on locally. */
  disconnected() {
    // A drag in progress lost its hold: its drop goes as a plain op, or the welcome asks again.
    this.remote.disconnected();
    this.emit({ type: 'connection', state: 'closed' }, { type: 'handEnd', by: null }, render());
    return this.take();
  }

  /**
   * One server message, as the client hands it on ('message'), after its own bookkeeping: a
   * committed op is the next in seq; a welcome fits (or the client starts over without it).
   */
  receive(m) {
    if (P.isCommitted(m)) this.#committed(m);
    else {
      switch (m.type) {
        case 'welcome': this.#welcome(m); break;
        case 'reject': this.#rejected(m); break;
        case 'ack': this.#acked(m); break;
        case 'dragStart':
          // On a large board a hand names its holder, whom this page may not have been told of.
          if (m.user?.id) this.emit(this.#presence());
          this.emit(...this.remote.dragStart(m, this.#about()));
          break;
        case 'presence': case 'join':
          this.emit(this.#presence());
          break;
        case 'hover': this.emit(...this.remote.hover(m, this.#about())); break;
        case 'drop': this.#remoteDrop(m); break;
        case 'leave':
          if (m.user?.id) {
            this.emit({ type: 'handEnd', by: m.user.id });
            this.remote.left(m.user.id);
          }
          this.emit(this.#presence(), render());
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
          this.emit(
            { type: 'warn', text: `server error ${m.code}: ${m.message}` },
            { type: 'toast', text: `Server: ${m.message || m.code}` },
          );
          break;
        default:
          break; // newer servers may add types
      }
    }
    return this.take();
  }

  /** A timer asked for with a `wake` effect ran out. */
  wake(token) {
    if (this.remote.wake(token)) this.emit(render());
    return this.take();
  }

  /** A user by id (a placeholder for one who has left). */
  user(id) {
    return this.roster.user(id);
  }

  // ---- Server messages.

  /**
   * A welcome with the board, or resuming from the seq the session has: the ops it carries are
   * applied quietly (the client checked that they follow on). The ops not answered before the
   * connection dropped go again from the client's outbox, with their op ids.
   */
  #welcome(m) {
    this.remote.welcomed();
    if (m.board) {
      this.state.reset(m.board, m.seq);
    } else {
      for (const op of m.ops ?? []) {
        const r = this.state.applyCommitted(op);
        if (r.status === 'applied' && r.own) this.history.committed(op.op, op.seq, op);
      }
    }
    this.emit({ type: 'connection', state: 'open' }, this.#presence());
    for (const d of m.drags ?? []) if (d.by !== this.me) this.emit({ type: 'handStart', user: this.user(d.by), item: d.item });
    if (this.drag) {
      // A drag survived the reconnect: hold the tile again.
      this.send(P.dragStart(this.drag.item));
    }
    this.emit(render());
    return undefined;
  }

  #committed(m) {
    // Said from the board as it was before the op, so a move can tell where the tile came from.
    const change = m.by !== this.me && this.state.loaded ? describeOp(m, this.state.board, (id) => this.user(id).name) : null;
    const r = this.state.applyCommitted(m);
    if (r.status !== 'applied') return undefined;
    if (r.own) this.history.committed(m.op, m.seq, m);
    // A dropped preview gives way to the op that moved its tile: the confirmed board now shows it.
    this.remote.committed(m);
    // Someone else's remove: the card fades out where it was, before the render takes it away.
    if (m.by !== this.me && m.type === 'remove') this.emit({ type: 'fade', item: m.item, by: this.user(m.by) });
    if (m.by !== this.me && m.type === 'removeZone') this.emit({ type: 'zoneGone', zone: m.zone, by: this.user(m.by) });
    this.emit(render());
    if (m.by !== this.me) {
      const items = P.involvedItems(m).filter((id) => id !== m.before);
      if (m.type !== 'remove') this.emit({ type: 'pulse', items, kind: 'remote', color: this.user(m.by).color });
      if (change) this.emit({ type: 'remoteChange', change });
      // A card someone removed under this page's keyboard or pointer lift: the lift ends.
      if (this.drag && m.type === 'remove' && m.item === this.drag.item) this.cancelLift({ silent: true });
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
    if (!m.op && m.item && this.remote.answeredAsk(m.item, this.drag?.item)) return; // an ask: in line
    if (!m.op && m.reason === 'held' && m.by === this.me) return; // the hold is ours already: nothing to undo
    if (!m.op) {
      // A refused dragStart (held by someone else), or a hover/drop for a hold we lost.
      if (this.drag && (!m.item || m.item === this.drag.item)) {
        const item = this.drag.item;
        this.cancelLift({ silent: true });
        this.emit({ type: 'pulse', items: [item], kind: 'reject' }, { type: 'toast', text }, { type: 'announce', text });
      }
      return;
    }
    const p = this.state.reject(m.op);
    this.history.rejected(m.op);
    if (!p) return;
    // A bad_base (the server's history is not ours: a restarted in-memory server) has the client
    // start over from the server's board; the op is taken back like any refused one.
    this.emit(
      render(),
      { type: 'pulse', items: P.involvedItems(p), kind: 'reject' },
      { type: 'toast', text },
      { type: 'announce', text },
    );
  }

  #acked(m) {
    if (this.state.ack(m.op, m.seq)) this.history.committed(m.op, m.seq);
    this.emit(render());
  }

  #remoteDrop(m) {
    this.emit(...this.remote.drop(m, this.#about()));
    if (m.by === this.me && m.reason === 'expired' && this.drag && this.drag.item === m.item) {
      this.cancelLift({ silent: true });
      this.emit({ type: 'toast', text: P.dropReasonText('expired') });
    }
    this.emit(render());
  }

  /** What remote.js needs to know of this page. */
  #about() {
    return { me: this.me, user: (id) => this.user(id), dragging: this.drag?.item ?? null };
  }

  // ---- Effects.

  /** Adds effects to those of the call under way (for session.js). */
  emit(...effects) {
    this.#fx.push(...effects);
  }

  /** The effects of the call under way, handed out once. */
  take() {
    const fx = this.#fx;
    this.#fx = [];
    return fx;
  }

  /** Sends `msg` on the socket, only while the session is open. */
  send(msg) {
    if (this.open) this.emit({ type: 'send', msg });
  }

  #presence() {
    return { type: 'presence', users: this.roster.users, me: this.me, count: this.roster.userCount };
  }
}
