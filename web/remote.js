// Other people's drags as this page sees them (a part of the session, session.js): where each
// holder's tile hovers, the move previews dropped and awaiting their op, and the tiles this page
// asked for while someone else held them. Who holds which tile is the SDK client's (its `drags`,
// sdk/stream.js), which the session reads. Pure: the methods take the server's
// messages and return effects (session.js lists them); `me` is this page's user id, `user(id)`
// gives a user, `dragging` the item this page itself drags (or null).

import * as P from './protocol.js';
import { opMovesItem } from './state.js';

/**
 * After someone else's move-mode drop, how long their live reorder preview may stay on screen
 * waiting for the committed op (ms). The server sends the op right after the `drop`, so the
 * preview normally gives way to the op at once (no jump back in between); this only bounds the
 * wait when no op comes (the drop was refused, or only released the tile).
 */
export const SETTLE_MS = 1000;

const render = () => ({ type: 'render', glide: null });

export class RemoteDrags {
  #tokens = 0; // the last wake token handed out

  constructor() {
    this.remoteOver = new Map(); // user id → {item, over, zone, mode}
    this.settling = new Map(); // item → {hover, token}: a dropped move preview awaiting its op
    /**
     * Tiles asked for while someone else held them (`refuse`), so that this page waits in their
     * line on the server and goes first when the hold ends (docs/conflicts.md). Should the server
     * grant one because the hold was already over, the page gives it back at once.
     */
    this.asked = new Set();
  }

  /** A welcome: hovers and previews start over. */
  welcomed() {
    this.remoteOver.clear();
    this.clearSettling();
  }

  /** The connection ended: asks, hovers and previews died with it. */
  disconnected() {
    this.asked.clear();
    this.remoteOver.clear();
    this.clearSettling();
  }

  /** Asks for `item` to wait in its line: the dragStart to send, or null when asked already. */
  ask(item) {
    if (this.asked.has(item)) return null;
    this.asked.add(item);
    return P.dragStart(item);
  }

  /** A `reject` without an op answering an ask: true when it was one (this page waits in line). */
  answeredAsk(item, dragging) {
    return this.asked.delete(item) && dragging !== item;
  }

  /** A `dragStart`: someone (maybe this page) holds a tile (or a group of them, issue 36). */
  dragStart(m, { me, user, dragging }) {
    if (m.by === me && this.asked.delete(m.item) && dragging !== m.item) {
      // An ask granted because the hold had just ended: nobody is dragging it here, so give it back.
      return [{ type: 'send', msg: P.drop(m.item) }];
    }
    this.clearSettling(m.item);
    const fx = m.by !== me ? [{ type: 'handStart', user: user(m.by), item: m.item }, { type: 'taken', item: m.item }] : [];
    return [...fx, render()];
  }

  /** A `hover` of someone else's tile. */
  hover(m, { me }) {
    if (m.by === me) return [];
    const mode = m.mode === 'move' || m.mode === 'swap' ? m.mode : null;
    this.remoteOver.set(m.by, { item: m.item, over: m.over ?? null, zone: m.zone, mode });
    // Move mode: the held tile itself is shown at its new place (scene), and the hand holds it
    // there. Otherwise the hand points at the target.
    const target = mode === 'move' ? { over: m.item, zone: m.zone } : { over: m.over ?? null, zone: m.zone };
    return [{ type: 'handHover', by: m.by, target }, render()];
  }

  /** A `drop`: a hold ended (the session ends its own lift when the server expired it). */
  drop(m, { me }) {
    const last = this.remoteOver.get(m.by);
    this.remoteOver.delete(m.by);
    const fx = [];
    // A released move preview stays until the op it announces arrives (or SETTLE_MS pass), so
    // the tile does not jump back between the drop and the op. A hold that ended without a
    // drop (left, expired) commits nothing: its preview goes at once.
    if (m.by !== me && !m.reason && last && last.mode === 'move' && last.item === m.item) {
      this.clearSettling(m.item);
      this.#tokens += 1;
      this.settling.set(m.item, { hover: last, token: this.#tokens });
      fx.push({ type: 'wake', after: SETTLE_MS, token: this.#tokens });
    }
    if (m.by !== me) fx.push({ type: 'handEnd', by: m.by });
    return fx;
  }

  /** Someone left: their hand and hover go. */
  left(userId) {
    this.remoteOver.delete(userId);
  }

  /** A committed op: a dropped preview gives way to the op that moved its tile. */
  committed(m) {
    for (const item of [...this.settling.keys()]) if (opMovesItem(m, item)) this.clearSettling(item);
  }

  /** A `wake` timer ran out: true when it ended a dropped preview (the scene changed). */
  wake(token) {
    let changed = false;
    for (const [item, s] of this.settling) {
      if (s.token === token) {
        this.settling.delete(item);
        changed = true;
      }
    }
    return changed;
  }

  /** Forgets the dropped preview of `item` (of every item when omitted). */
  clearSettling(item) {
    for (const id of [...this.settling.keys()]) if (item === undefined || id === item) this.settling.delete(id);
  }

  /**
   * Other people's move-mode drags as hovers to preview: dropped ones still waiting for their
   * op first, then the live ones. None while this page drags itself (`dragging`), so tiles never
   * slide under one's own pointer (their hands and target outlines still show).
   */
  previews(dragging) {
    if (dragging) return [];
    const live = [...this.remoteOver.values()].filter((h) => h.mode === 'move' && !this.settling.has(h.item));
    return [...[...this.settling.values()].map((s) => s.hover), ...live];
  }
}
