// The ops a client sent or holds to send, until the server answers each (part of the SDK's client,
// shuffleboard.js): their promises, the connection each last went out on (so each goes once per
// connection, and again after a reconnect with its op id), a resend after `unavailable`, and the
// durable queue (queue.js) that keeps them across reloads when the client was given one.

import { OP_TYPES } from './wire.js';

/** After `error unavailable` naming an op on a connection that stays open (the server's store is behind):
 * how long before the op is sent again on it. */
const AGAIN_MS = 1000;

/**
 * An op the server did not commit: `reason` is the reject's reason (`conflict`, `held`, …) or the
 * error's code (`bad_message`, `forbidden`, …), or `closed` when the client was closed first.
 */
export class OpError extends Error {
  constructor(reason, { op = null, by = null, seq = null, message = null, kind = 'reject' } = {}) {
    super(message || `op ${op ?? ''} ${kind === 'reject' ? 'rejected' : 'failed'}: ${reason}`);
    this.name = 'OpError';
    /** `reject`, `error` or `closed`: which answer it was. */
    this.kind = kind;
    this.reason = reason;
    this.op = op;
    this.by = by;
    this.seq = seq;
  }
}

export class Outbox {
  #pending = new Map(); // op id → {msg, sentOn, autoBase, promise, resolve, reject}

  /**
   * `client`: what the outbox asks of its client — `isOpen()` (welcomed), `seq()` (the last seq
   * applied, or null), `send(msg)` (false when it could not), `after(ms, fn)` (a timer the client
   * clears when it stops), `emit(type, value)`; `queue`: the durable queue, or null.
   */
  constructor(client, queue) {
    this.client = client;
    this.queue = queue;
    /** Counts the client's sockets; a pending op remembers the one it went out on. */
    this.connection = 0;
  }

  /** The op messages not yet answered, oldest first. */
  get messages() {
    return [...this.#pending.values()].map((p) => p.msg);
  }

  /** The entry of op `opId`, or undefined. */
  get(opId) {
    return this.#pending.get(opId);
  }

  /**
   * Keeps op message `msg` until it is answered and sends it (as `wire`: a drop carrying it) when
   * the session is open; `autoBase`: its base is filled in when it first goes out. The same op id
   * again is the same op. Returns its promise.
   */
  track(msg, wire, autoBase) {
    const known = this.#pending.get(msg.op);
    if (known) {
      this.sendPending(known, known.msg);
      return known.promise;
    }
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody has to wait for an op: an unhandled refusal is not an error of the page.
    promise.catch(() => {});
    const entry = { msg, sentOn: 0, autoBase, promise, resolve, reject };
    this.#pending.set(msg.op, entry);
    this.#keep(msg);
    this.sendPending(entry, wire);
    return promise;
  }

  /** Takes back the ops the durable queue kept (Client.restore). */
  async restore() {
    if (!this.queue || typeof this.queue.ops !== 'function') return [];
    const msgs = (await this.queue.ops()).filter((m) => m && OP_TYPES.has(m.type) && typeof m.op === 'string');
    for (const m of msgs) this.track(m, m, false);
    return msgs;
  }

  /** The durable queue keeps `msg` (a failure is the page's to show: 'queueError'). */
  #keep(msg) {
    this.queue?.put(msg).catch((error) => this.client.emit('queueError', { op: msg.op, error }));
  }

  /** The durable queue forgets op `opId`: it was answered. */
  #forget(opId) {
    this.queue?.delete(opId).catch((error) => this.client.emit('queueError', { op: opId, error }));
  }

  /** After a welcome: every op not answered goes out (once on this connection), with its op id. */
  sendAll() {
    for (const p of [...this.#pending.values()]) this.sendPending(p, p.msg);
  }

  /** Sends a pending op once per connection, and only to a session that is open (welcomed). */
  sendPending(entry, wire) {
    if (!this.client.isOpen() || entry.sentOn === this.connection) return;
    if (entry.autoBase) {
      entry.msg.base = this.client.seq() ?? 0;
      entry.autoBase = false;
      this.#keep(entry.msg);
    }
    if (this.client.send(wire === entry.msg ? entry.msg : wire)) entry.sentOn = this.connection;
  }

  /** After `unavailable` on an open connection: the op goes again on it after `AGAIN_MS`, if
   * it is still pending and the connection is the same (a reconnect resends it anyway). */
  sendAgainLater(opId) {
    const connection = this.connection;
    this.client.after(AGAIN_MS, () => {
      const p = this.#pending.get(opId);
      if (!p || this.connection !== connection || !this.client.isOpen()) return;
      p.sentOn = 0;
      this.sendPending(p, p.msg);
    });
  }

  /** Op `opId` was committed or acknowledged: its promise resolves with `value`. */
  settle(opId, value) {
    const p = this.#pending.get(opId);
    if (!p) return;
    this.#pending.delete(opId);
    this.#forget(opId);
    p.resolve(value);
  }

  /** An op refused by the server (`durable`: forgotten by the queue), or given up by close(). */
  refuse(opId, error, { durable = true } = {}) {
    const p = this.#pending.get(opId);
    if (!p) return;
    this.#pending.delete(opId);
    if (durable) this.#forget(opId);
    p.reject(error);
  }

  /** The client closed: every op not answered is refused with `reason` (a durable queue keeps them). */
  failAll(reason) {
    // Not answered: a durable queue keeps them for the next client (restore()).
    for (const [id] of [...this.#pending]) this.refuse(id, new OpError(reason, { op: id, kind: 'closed' }), { durable: false });
  }
}
