// The shuffleboard JavaScript SDK (docs/sdk.md): one board over the wire protocol v1
// (docs/protocol.md). An ES module with no dependencies and no build step; the bundled web client
// uses it for its socket too.
//
//   import { connect } from './sdk/shuffleboard.js';
//   const board = connect({ url: 'http://127.0.0.1:8080', board: 'demo', name: 'Ada' });
//   board.on('op', (op) => console.log(op.seq, op.type));
//   await board.op({ type: 'swap', a: 't1', b: 't2' });
//
// What it does for its user: connects, says hello, and reconnects with backoff, resuming with
// `since`; checks that committed ops arrive gapless (and starts over when they do not); keeps the
// ops it was given until the server commits, acknowledges or refuses them, resending them with
// their op ids after a reconnect, and settles each op's promise; keeps a session's token fresh with
// a `getToken()` hook, and stops on a refused or expired token instead of looping.

import {
  CLOSE_UNAUTHORIZED, ID_PATTERN, OP_TYPES, dragStart, drop, hello, hover, isCommitted, newOpId, opFromDrop,
} from './wire.js';
import { TokenKeeper } from './tokens.js';
import { OpError, Outbox } from './outbox.js';
import { BoardStream } from './stream.js';
import { JOIN_TIMEOUT_MS, OPEN, SocketKeeper, boardSocketURL } from './socket.js';

export * from './wire.js';
export { TokenKeeper, refreshDelay } from './tokens.js';
export { Roster } from './roster.js';
export { OpError } from './outbox.js';
export { boardSocketURL } from './socket.js';

/** Connects to a board (see `Client`); the client starts connecting at once. */
export function connect(options) {
  const client = new Client(options);
  client.start();
  return client;
}

/**
 * One board, kept connected. Events (`on(type, fn)`):
 *   'state'       the client's state changed (`client.state`)
 *   'connecting'  a socket is being opened
 *   'open'        the socket opened; the hello goes next
 *   'welcome'     the server's welcome (with `board`, or `ops` when resumed)
 *   'op'          a committed op, in seq order, gapless: live, or one a resuming welcome carried
 *   'ack', 'reject', 'error', 'auth', 'pong'   the server's message of that type
 *   'notice'      a new notice in the inbox of the client's member, from any board (a mention or
 *                 an assignment: {id, kind, board, item, label, by, at, seq, read})
 *   'dragStart', 'hover', 'drop'               other people's (and one's own) drags
 *   'join', 'leave'                            a user came or went
 *   'presence'    who is here changed: {users, userCount} (userCount only on a large board)
 *   'message'     every server message, in order, after the client's own bookkeeping
 *   'close'       the socket closed: {code, reason}; the client reconnects unless it stopped
 *   'stalled'     no welcome came `joinTimeout` ms after the socket was opened (a server, or a
 *                 board's owner in a cluster, that never answers): {after}; the client drops the
 *                 socket and tries again, with the usual backoff, until a welcome comes
 *   'expired', 'revoked', 'unauthorized'      the token ended (or was refused): the client stopped
 *   'warning'     something worth a console line: {message, error}
 *   'queueError'  the durable queue could not keep or forget an op: {op, error} (the op itself
 *                 is still tracked while this client lives)
 */
export class Client {
  #listeners = new Map();
  #outbox; // the ops not yet answered (outbox.js)
  #socket; // the socket, its timers and backoff (socket.js)
  #snapshotNext = false;
  #stream; // what the server's messages said: seq, you, roster, drags (stream.js)

  /**
   * `url`: the server (`http://HOST:PORT`) or its WebSocket URL; `board`, `name`: whom to join as;
   * `token`: an access token, or `getToken()`: returns (a promise of) a fresh one, asked for first
   * when there is no token and then before each expiry. `since`: resume from this seq (a board
   * kept from before). Tests and other environments may pass `WebSocket`, `setTimeout`,
   * `clearTimeout`, `now` and `random`. `joinTimeout`: how long a socket may go without a
   * welcome before the client says so ('stalled') and tries again (ms, default 30,000).
   * `queue`: a durable queue for the ops not yet answered (sdk/queue.js; see `restore`).
   */
  constructor({
    url, board, name, token = null, getToken = null, since = null, member = null,
    WebSocket = null, setTimeout: setT = null, clearTimeout: clearT = null, now = () => Date.now(),
    random = Math.random, newOpId: makeOpId = newOpId, joinTimeout = JOIN_TIMEOUT_MS, queue = null,
  } = {}) {
    if (typeof board !== 'string' || !board) throw new TypeError('connect: `board` is required');
    if (typeof name !== 'string' || !name) throw new TypeError('connect: `name` is required');
    if (getToken !== null && typeof getToken !== 'function') throw new TypeError('connect: `getToken` must be a function');
    this.url = boardSocketURL(url, board);
    this.board = board;
    this.name = name;
    /** The stable id of the person (`hello.member`); a token's `sub` wins over it. */
    this.member = typeof member === 'string' && ID_PATTERN.test(member) ? member : null;
    this.getToken = getToken;
    this.WebSocket = WebSocket;
    this.setTimeout = setT ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this.clearTimeout = clearT ?? ((t) => globalThis.clearTimeout(t));
    this.now = now;
    this.random = random;
    this.newOpId = makeOpId;
    this.joinTimeout = Number.isFinite(joinTimeout) && joinTimeout > 0 ? joinTimeout : JOIN_TIMEOUT_MS;
    this.tokens = new TokenKeeper(token, { canFetch: !!getToken, random });
    /**
     * A durable queue (sdk/queue.js `PendingStore`, or anything with its `put`, `delete` and `ops`),
     * or null: every op tracked is kept there until it is answered, and `restore()` takes back
     * those a page before this one left.
     */
    this.queue = queue && typeof queue.put === 'function' && typeof queue.delete === 'function' ? queue : null;
    this.#outbox = new Outbox({
      isOpen: () => this.state === 'open',
      seq: () => this.seq,
      send: (msg) => this.send(msg),
      after: (ms, fn) => this.#socket.after(ms, fn),
      emit: (type, value) => this.#emit(type, value),
    }, this.queue);
    /** The last seq applied, this connection's user, who is here and who holds what (stream.js). */
    this.#stream = new BoardStream(since);
    this.#socket = new SocketKeeper(this, {
      open: (ws) => this.#opened(ws),
      message: (m) => this.#receive(m),
      closed: (code, reason) => this.#closed(code, reason),
      stalled: (s) => this.#emit('stalled', s),
      warning: (w) => this.#emit('warning', w),
    });
    /**
     * 'idle', 'connecting', 'joining' (hello sent), 'open' (welcomed), 'reconnecting', 'closed'
     * (close() was called), 'expired', 'revoked' or 'unauthorized' (stopped on its token).
     */
    this.state = 'idle';
  }

  /** The socket (null between connections). */
  get ws() {
    return this.#socket.ws;
  }

  /** The last committed seq applied (null before the first welcome). */
  get seq() {
    return this.#stream.seq;
  }

  /** This connection's user id (from the welcome). */
  get you() {
    return this.#stream.you;
  }

  /** Who is on the board (roster.js: `users`, `userCount`). */
  get roster() {
    return this.#stream.roster;
  }

  /** Items held: item id → the holder's user id. */
  get drags() {
    return this.#stream.drags;
  }

  /** Who is on the board: user id → {id, name, color}. */
  get users() {
    return this.roster.users;
  }

  /** On a large board, how many users in all (`users` names only some); else null. */
  get userCount() {
    return this.roster.userCount;
  }

  /** The token the session runs on (a refreshed one once the server took it). */
  get token() {
    return this.tokens.token;
  }

  /** Ops sent or waiting to be sent, not yet committed, acknowledged or refused (op messages). */
  get pending() {
    return this.#outbox.messages;
  }

  // ---- Events.

  /** Calls `fn` for every event of `type`; returns a function that stops it. */
  on(type, fn) {
    if (!this.#listeners.has(type)) this.#listeners.set(type, new Set());
    this.#listeners.get(type).add(fn);
    return () => this.off(type, fn);
  }

  /** Stops calling `fn` for `type`. */
  off(type, fn) {
    this.#listeners.get(type)?.delete(fn);
  }

  #emit(type, value) {
    const set = this.#listeners.get(type);
    if (!set || set.size === 0) {
      if (type === 'warning') console.warn(`shuffleboard: ${value.message}`, value.error ?? '');
      return;
    }
    for (const fn of [...set]) fn(value);
  }

  #setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.#emit('state', state);
  }

  // ---- The connection.

  /** Starts connecting (connect() calls it). With `getToken` and no token, asks for one first. */
  start() {
    if (this.state !== 'idle') return;
    if (this.getToken && !this.tokens.token) {
      this.#setState('connecting');
      // Without a token the server would refuse the hello: one is asked for first (failing that,
      // the hello goes without, and the 4401 asks once more).
      const go = (token) => {
        if (this.state !== 'connecting' || this.ws) return;
        if (typeof token === 'string' && token) this.tokens.token = token;
        this.#open();
      };
      this.#fetchToken().then(go, () => go(null));
      return;
    }
    this.#open();
  }

  /**
   * Closes for good: no reconnect; ops not yet answered are rejected with reason `closed` (a
   * durable queue keeps them for a later client's `restore()`).
   */
  close() {
    this.#stop('closed');
    this.#outbox.failAll('closed');
  }

  /**
   * Reconnects: at once when stopped (after `setToken`, say), else by closing the socket (the
   * next one comes after the usual backoff). Ops not answered are resent after the welcome.
   */
  reconnect() {
    if (this.ws) {
      this.ws.close(1000, 'reconnect');
      return;
    }
    if (this.state === 'reconnecting' || this.state === 'idle' || this.#stopped()) this.#open();
  }

  /** Uses `name` from the next hello on; the protocol has no rename, so the session rejoins. */
  rename(name) {
    if (typeof name !== 'string' || !name || name === this.name) return;
    this.name = name;
    if (this.ws) this.ws.close(1000, 'rename');
  }

  /** Uses `token` from the next hello on (a session keeps its token until it reconnects). */
  setToken(token) {
    this.tokens.token = token;
  }

  /**
   * Starts over on a fresh connection, with `since` (or, with `snapshot`, without, so that the
   * welcome carries the whole board). The rest of the current socket's messages are ignored.
   */
  resync({ snapshot = false } = {}) {
    if (snapshot) this.#snapshotNext = true;
    this.#socket.retire();
  }

  #stopped() {
    return ['closed', 'expired', 'revoked', 'unauthorized'].includes(this.state);
  }

  #open() {
    this.#outbox.connection += 1;
    this.#setState('connecting');
    this.#emit('connecting', { attempt: this.#socket.attempt });
    if (!this.#socket.open()) this.#scheduleReconnect();
  }

  /** The socket opened: the hello, resuming from the last seq applied unless the board must come anew. */
  #opened(ws) {
    this.#setState('joining');
    this.#emit('open', {});
    if (ws !== this.ws || ws.readyState !== OPEN) return;
    const since = this.#snapshotNext ? undefined : this.seq ?? undefined;
    this.#snapshotNext = false;
    ws.send(JSON.stringify(hello(this.board, this.name, since, this.tokens.token, this.member)));
  }

  #closed(code, reason) {
    this.#stream.closed();
    this.#emit('close', { code, reason });
    if (this.#stopped()) return;
    // A 4401 is the token keeper's: a fresh token and one more try, or no reconnect at all.
    const effects = this.tokens.closed(code, this.now());
    if (code === CLOSE_UNAUTHORIZED) {
      this.#setState('reconnecting');
      this.#runTokens(effects);
      return;
    }
    this.#scheduleReconnect();
  }

  #scheduleReconnect() {
    this.#setState('reconnecting');
    this.#socket.retry(() => { if (this.state === 'reconnecting') this.#open(); });
  }

  #stop(state) {
    this.#setState(state);
    this.#socket.stop();
  }

  // ---- Sending.

  /** Sends `msg` as it is when the socket is open (drags, pings); false when it could not. */
  send(msg) {
    return this.#socket.send(msg);
  }

  /**
   * Commits an op: `{type, …fields}` as in docs/protocol.md (`swap` `{a, b}`, `move` `{item,
   * zone, before}`, `toggle`, `add`, `edit`, …). `op` (a fresh id) and `base` (the last seq
   * applied) are filled in unless given. Resolves with the committed op as everyone got it (or,
   * when the server says it committed that op id before, with the op as sent plus `seq` and
   * `ack: true`); rejects with an `OpError` when the server refuses it.
   */
  op(body) {
    if (!body || !OP_TYPES.has(body.type)) return Promise.reject(new TypeError(`not an op type: ${body?.type}`));
    const autoBase = body.base === undefined && this.seq === null;
    const msg = { ...body, op: body.op ?? this.newOpId(), base: body.base ?? this.seq ?? 0 };
    return this.#outbox.track(msg, msg, autoBase);
  }

  /**
   * Sends an op message (`op` and `base` set) or a drop carrying one, and keeps its op until it is
   * answered: unsent while the session is not open, resent after each reconnect as a plain op with
   * its op id. The same op id again is the same op (sent once per connection).
   */
  submit(msg) {
    if (msg?.type === 'drop') {
      const plain = opFromDrop(msg);
      if (!plain) {
        this.send(msg);
        return Promise.resolve(null);
      }
      return this.#outbox.track(plain, msg, false);
    }
    if (!msg || !OP_TYPES.has(msg.type) || typeof msg.op !== 'string') {
      return Promise.reject(new TypeError('submit: not an op message'));
    }
    return this.#outbox.track(msg, msg, false);
  }

  /** Lifts `item` (the server answers with a `dragStart` to everyone, or a `reject`). */
  dragStart(item) {
    return this.send(dragStart(item));
  }

  /** Where the lifted `item` is over: an item, or a zone's empty space (`over` null). */
  hover(item, over, zone, mode) {
    return this.send(hover(item, over, zone, mode));
  }

  /**
   * Releases `item`; with an action (`{type:'swap', with}` or `{type:'move', zone, before}`) the
   * drop commits it as an op and returns that op's promise (see `op`).
   */
  drop(item, action = null) {
    if (!action) {
      this.send(drop(item));
      return Promise.resolve(null);
    }
    const body = action.type === 'swap'
      ? { type: 'swap', a: item, b: action.with }
      : { type: 'move', item, zone: action.zone, before: action.before ?? null };
    const msg = { ...body, op: this.newOpId(), base: this.seq ?? 0 };
    return this.#outbox.track(msg, drop(item, msg), false);
  }

  /** Sends a ping (the server answers `pong`). */
  ping() {
    return this.send({ type: 'ping' });
  }

  /**
   * Takes back the ops the durable queue kept (a page before this one sent or queued them and
   * never saw them answered): each is tracked again as it was, with its op id and base, and goes
   * out once the session is open. Resolves with their messages, in the order they were made.
   */
  restore() {
    return this.#outbox.restore();
  }

  // ---- Receiving.

  #receive(m) {
    if (isCommitted(m)) {
      const order = this.#stream.committed(m);
      // A gap: resume from the last seq applied (the server sends what is missing).
      if (order === 'gap') return this.resync();
      if (order !== 'next') return undefined; // before any board, or a duplicate
      this.#outbox.settle(m.op, m);
      this.#emit('message', m);
      this.#emit('op', m);
      return undefined;
    }
    let presenceChanged = false;
    switch (m.type) {
      case 'welcome': return this.#welcome(m);
      case 'ack': {
        const p = this.#outbox.get(m.op);
        // Committed at a seq not applied yet: its broadcast comes, in order, and settles it.
        if (p && !(Number.isInteger(m.seq) && this.seq !== null && m.seq > this.seq)) {
          this.#outbox.settle(m.op, { ...p.msg, seq: m.seq, ack: true });
        }
        break;
      }
      case 'reject':
        if (typeof m.op === 'string') {
          this.#outbox.refuse(m.op, new OpError(m.reason, { op: m.op, by: m.by ?? null, seq: m.seq ?? null }));
        }
        break;
      case 'error':
        // `unavailable` may or may not have stored the op: it stays pending. After a board
        // moved a close follows and the op is resent after the reconnect (acknowledged if it was
        // stored); when the server's store is behind (--max-unstored-ops) the connection stays
        // open and the op is sent again on it after a pause, with the same op id.
        if (typeof m.op === 'string' && m.code !== 'unavailable') {
          this.#outbox.refuse(m.op, new OpError(m.code, { op: m.op, kind: 'error', message: m.message }));
        } else if (typeof m.op === 'string') {
          this.#outbox.sendAgainLater(m.op);
        }
        break;
      case 'dragStart': case 'drop': case 'join': case 'leave': case 'presence':
        presenceChanged = this.#stream.apply(m);
        break;
      default:
        break;
    }
    this.#emit('message', m);
    // `presence` is the client's event (who is here); the server's message of that name is in 'message'.
    if (m.type !== 'presence') this.#emit(m.type, m);
    if (presenceChanged) this.#emit('presence', { users: [...this.users.values()], userCount: this.userCount });
    const now = this.now();
    if (m.type === 'auth') this.#runTokens(this.tokens.answered(m, now));
    else if (m.type === 'error') this.#runTokens(this.tokens.error(m, now));
    // The server's history is not this client's (a restarted in-memory server): the board anew.
    else if (m.type === 'reject' && m.reason === 'bad_base') this.resync({ snapshot: true });
    return undefined;
  }

  #welcome(m) {
    const applied = this.#stream.welcome(m);
    if (!applied) return this.resync({ snapshot: true });
    for (const op of applied) this.#outbox.settle(op.op, op);
    this.#socket.joined();
    this.#setState('open');
    // Ops not answered before the connection dropped (or made while it was down): resent with
    // their op ids, so the server acknowledges any it had committed instead of applying it twice.
    this.#outbox.sendAll();
    this.#emit('message', m);
    this.#emit('welcome', m);
    for (const op of applied) this.#emit('op', op);
    this.#emit('presence', { users: [...this.users.values()], userCount: this.userCount });
    this.#runTokens(this.tokens.welcomed(this.now()));
    return undefined;
  }

  // ---- Tokens (tokens.js says what each effect means).

  #fetchToken() {
    return Promise.resolve()
      .then(() => this.getToken())
      .catch((error) => {
        this.#emit('warning', { message: 'getToken() failed', error });
        throw error;
      });
  }

  #runTokens(effects) {
    for (const e of effects) {
      switch (e.type) {
        case 'wake':
          this.#socket.after(e.after, () => this.#runTokens(this.tokens.wake(e.token, this.now())));
          break;
        case 'fetch':
          this.#fetchToken().then(
            (token) => { if (!this.#stopped()) this.#runTokens(this.tokens.fetched(token, this.now())); },
            () => { if (!this.#stopped()) this.#runTokens(this.tokens.fetchFailed(this.now())); },
          );
          break;
        case 'send': this.send(e.msg); break;
        case 'reconnect': if (!this.ws && !this.#stopped()) this.#open(); break;
        case 'expired': this.#stop('expired'); this.#emit('expired', { token: this.token }); break;
        case 'revoked': this.#stop('revoked'); this.#emit('revoked', { token: this.token }); break;
        case 'refused': this.#stop('unauthorized'); this.#emit('unauthorized', { token: this.token }); break;
        default: break;
      }
    }
  }
}
