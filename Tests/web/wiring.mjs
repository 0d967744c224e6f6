// Test wiring for the web client's node tests: a WebSocket and a clock the test drives, and a
// page's session wired to a real SDK client over them, the way the page wires them
// (web/connection.js and app.js's `run`). The client owns the connection — hello and resume, seq
// checks and resyncs, who is here, who holds what — and the session reads it (issue 31), so the
// session's tests speak through the client as the server would.
import assert from 'node:assert/strict';
import { Client } from '../../web/sdk/shuffleboard.js';
import { sendThroughClient } from '../../web/connection.js';

/** A WebSocket the test drives: it records what the client sends and opens, says and closes on cue. */
export class FakeSocket {
  static made = [];

  constructor(url, protocol) {
    this.url = url;
    this.protocol = protocol;
    this.readyState = 0;
    this.sent = [];
    this.listeners = {};
    this.closedWith = null;
    FakeSocket.made.push(this);
  }

  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }

  send(data) {
    assert.equal(this.readyState, 1, 'sent on a socket that is not open');
    this.sent.push(JSON.parse(data));
  }

  close(code = 1000, reason = '') {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    this.closedWith = { code, reason };
  }

  fire(type, e = {}) {
    for (const fn of this.listeners[type] ?? []) fn(e);
  }

  /** The server side: */
  open() {
    this.readyState = 1;
    this.fire('open');
  }

  say(...messages) {
    this.fire('message', { data: JSON.stringify(messages.length === 1 ? messages[0] : messages) });
  }

  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.fire('close', { code, reason });
  }
}

/** Timers on a clock the test moves. */
export class FakeClock {
  constructor() {
    this.now = 1_764_000_000_000;
    this.timers = [];
    this.next = 1;
  }

  setTimeout = (fn, ms) => {
    const id = this.next++;
    this.timers.push({ id, at: this.now + ms, fn });
    return id;
  };

  clearTimeout = (id) => {
    this.timers = this.timers.filter((t) => t.id !== id);
  };

  /** Moves the clock `ms` on, running every timer that falls due, in order. */
  run(ms) {
    const end = this.now + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = due.at;
      due.fn();
    }
    this.now = end;
  }
}


const wirings = new WeakMap(); // session → its wiring

/**
 * Wires `session` to a new SDK client over fake sockets, as connection.js does: the client's
 * messages and close go to the session, and every effect list the session hands out (`take`) is
 * carried out on the client as app.js's `run` does (ops, and drops carrying one, through
 * `submit`; other messages through `send`). `since`: the client's resume seq; by default the
 * saved board's, as pending.js passes it; `queue`: the client's durable queue (sdk/queue.js).
 * Called by `reopen` for a session not wired yet.
 */
export function wire(session, { since = session.state.loaded ? session.state.seq : null, name = 'Ann', queue = null } = {}) {
  const made = [];
  class Socket extends FakeSocket {
    constructor(...args) {
      super(...args);
      made.push(this);
    }
  }
  const clock = new FakeClock();
  const client = new Client({
    url: 'http://127.0.0.1:1', board: 'b1', name, since, queue, WebSocket: Socket,
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout, now: () => clock.now, random: () => 0,
  });
  const w = { client, clock, socket: () => made.at(-1), heard: [] };
  session.useClient(client);
  const take = session.take.bind(session);
  session.take = () => {
    const fx = take();
    for (const e of fx) if (e.type === 'send' || e.type === 'queue') sendThroughClient({ client }, e.msg);
    return fx;
  };
  client.on('message', (m) => {
    w.heard.push(...session.receive(m));
    // One seq: the board the session shows is at the seq the client resumes from.
    if (session.state.loaded) assert.equal(session.state.seq, client.seq, 'the session and its client disagree on seq');
  });
  client.on('close', () => w.heard.push(...session.disconnected()));
  wirings.set(session, w);
  return w;
}

function wiring(session) {
  const w = wirings.get(session);
  assert.ok(w, 'the session is not wired to a client (reopen it first)');
  return w;
}

/**
 * Opens the next socket of `session`'s client (the first one, wiring the session when it is not
 * yet; else the reconnect after the backoff): the hello the client sent on it.
 */
export function reopen(session) {
  const w = wirings.get(session) ?? wire(session);
  const before = w.socket();
  if (!before) w.client.start();
  else w.clock.run(6000); // past the longest first backoff (random 0: at most 2.5 s)
  const socket = w.socket();
  assert.notEqual(socket, before, 'no new socket');
  socket.open();
  return socket.sent[0];
}

/** The server says `messages` (one frame) on the open socket: the session's effects meanwhile. */
export function hear(session, ...messages) {
  const w = wiring(session);
  w.heard = [];
  w.socket().say(...messages);
  return w.heard;
}

/** The socket closes (code 1006, or the close the client asked for): the session's effects. */
export function lose(session) {
  const w = wiring(session);
  w.heard = [];
  w.socket().drop(w.socket().closedWith?.code ?? 1006);
  return w.heard;
}

/** What the client sent on the socket now open, after its hello; `clear`: forget it after. */
export function onSocket(session, { clear = false } = {}) {
  const socket = wiring(session).socket();
  const sent = socket.sent.filter((m) => m.type !== 'hello');
  if (clear) socket.sent = socket.sent.filter((m) => m.type === 'hello');
  return sent;
}

/** The socket the session's client opened last. */
export function lastSocket(session) {
  return wiring(session).socket();
}

/** The session's client (sdk/shuffleboard.js). */
export function clientOf(session) {
  return wiring(session).client;
}
