// One WebSocket to the server at a time, kept up (part of the SDK's client, shuffleboard.js): the
// socket's URL, opening it, frames into messages, the join timer (a socket with no welcome in time
// is given up), the backoff between tries, a socket retired for a resync (what it still says is
// ignored), and the client's timers, all cleared at once when it stops. The client keeps its
// phases (`state`) and says what each message and close means.

import { SUBPROTOCOL, WS_PATH, backoffDelay, parseFrame } from './wire.js';

/** The WebSocket's readyState when it can send. */
export const OPEN = 1;

/** How long a socket may go without a welcome before the client says so and tries again (ms):
 * past a cluster's own bound on an unanswered hello at its default lease (docs/protocol.md#clusters). */
export const JOIN_TIMEOUT_MS = 30_000;

/**
 * The WebSocket URL for `url` and `board`: `http(s)://HOST[:PORT]` (or `ws(s)://`) becomes
 * `ws(s)://HOST:PORT/ws`, a path given is kept, and `?board=ID` is added for a load balancer in
 * front of a cluster (docs/cluster.md).
 */
export function boardSocketURL(url, board) {
  const u = new URL(url);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  else if (u.protocol === 'https:') u.protocol = 'wss:';
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new TypeError(`not a server URL: ${url}`);
  if (u.pathname === '' || u.pathname === '/') u.pathname = WS_PATH;
  if (board && !u.searchParams.has('board')) u.searchParams.set('board', board);
  u.hash = '';
  return u.toString();
}

export class SocketKeeper {
  #timers = new Set();
  #reconnectTimer = null;
  #joinTimer = null; // while a socket has no welcome yet: when it is given up ('stalled')
  #retiring = null; // a socket being closed for a resync: what it still says is ignored

  /**
   * `options` (the client's own fields): `url`, `WebSocket` (null: the global one), `setTimeout`,
   * `clearTimeout`, `random`, `joinTimeout` (ms). `on`: the client's — `open(ws)` (the socket opened), `message(m)` (each
   * message of a frame, while the socket is live), `closed(code, reason)`, `stalled({after})`,
   * `warning({message, error})`.
   */
  constructor({ url, WebSocket, setTimeout, clearTimeout, random, joinTimeout }, on) {
    Object.assign(this, { url, WebSocket, setTimeout, clearTimeout, random, joinTimeout, on });
    /** The socket (null between connections). */
    this.ws = null;
    /** Tries since the last welcome (the backoff grows with it). */
    this.attempt = 0;
  }

  /** Opens a socket now (a reconnect waiting is dropped); false when none could be made. */
  open() {
    this.#clearReconnect();
    let ws;
    try {
      ws = new (this.WebSocket ?? globalThis.WebSocket)(this.url, SUBPROTOCOL);
    } catch (error) {
      this.on.warning({ message: `cannot open ${this.url}`, error });
      return false;
    }
    this.ws = ws;
    this.#joinTimer = this.after(this.joinTimeout, () => this.#joinTimedOut(ws));
    ws.addEventListener('open', () => { if (ws === this.ws) this.on.open(ws); });
    ws.addEventListener('message', (e) => {
      if (!this.#live(ws)) return;
      let messages;
      try {
        messages = parseFrame(e.data);
      } catch (error) {
        this.on.warning({ message: 'a frame that is not JSON', error });
        return;
      }
      for (const m of messages) {
        this.on.message(m);
        if (!this.#live(ws)) return;
      }
    });
    ws.addEventListener('close', (e) => this.#closed(ws, e.code, e.reason));
    return true;
  }

  /** Sends `msg` when the socket is open; false when it could not. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** A welcome came: the join timer ends and the backoff starts over. */
  joined() {
    this.attempt = 0;
    if (this.#joinTimer === null) return;
    this.#cancel(this.#joinTimer);
    this.#joinTimer = null;
  }

  /** Closes the socket to start over at once (a resync); the rest of what it says is ignored. */
  retire() {
    this.attempt = 0;
    const ws = this.ws;
    if (!ws || this.#retiring === ws) return;
    this.#retiring = ws;
    ws.close(1000, 'resync');
  }

  /** Calls `go()` after the backoff of this try (each try waits longer, up to a cap). */
  retry(go) {
    const delay = backoffDelay(this.attempt, { random: this.random });
    this.attempt += 1;
    this.#clearReconnect();
    this.#reconnectTimer = this.after(delay, () => {
      this.#reconnectTimer = null;
      go();
    });
  }

  /** Stops: every timer cleared, the socket closed and forgotten (its close is not heard). */
  stop() {
    this.#reconnectTimer = null;
    this.#joinTimer = null;
    for (const t of this.#timers) this.clearTimeout(t);
    this.#timers.clear();
    const ws = this.ws;
    this.ws = null;
    this.#retiring = null;
    if (ws && ws.readyState <= OPEN) ws.close(1000, 'closed');
  }

  /** Calls `fn` after `ms` unless the keeper stops first; returns the timer. */
  after(ms, fn) {
    const t = this.setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
    return t;
  }

  #cancel(t) {
    this.#timers.delete(t);
    this.clearTimeout(t);
  }

  #live(ws) {
    return ws === this.ws && this.#retiring !== ws;
  }

  /**
   * No welcome within `joinTimeout`: whatever holds it up (a server or an owner that never
   * answers, a connect that hangs), the user hears of it and the client tries again.
   */
  #joinTimedOut(ws) {
    this.#joinTimer = null;
    if (ws !== this.ws) return;
    this.on.stalled({ after: this.joinTimeout });
    if (ws.readyState <= OPEN) ws.close(1000, 'no welcome in time');
    this.#closed(ws, 1006, 'no welcome in time');
  }

  #closed(ws, code, reason) {
    if (ws !== this.ws) return;
    if (this.#joinTimer !== null) this.#cancel(this.#joinTimer);
    this.#joinTimer = null;
    this.ws = null;
    this.#retiring = null;
    this.on.closed(code, reason);
  }

  #clearReconnect() {
    if (this.#reconnectTimer === null) return;
    this.#cancel(this.#reconnectTimer);
    this.#reconnectTimer = null;
  }
}
