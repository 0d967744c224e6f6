// What one client knows of its board from the server's messages, and the rules that keep it true
// (part of the SDK's client, shuffleboard.js): the last seq applied — committed ops gapless, or a
// resync —, which user this connection is, who is here (roster.js) and who holds which tile. The
// page's session reads all of it through the client instead of keeping its own (issue 31). Pure:
// no sockets, no timers.

import { isCommitted } from './wire.js';
import { Roster } from './roster.js';

export class BoardStream {
  /** `since`: the seq of a board kept from before (null: none, the first welcome brings one). */
  constructor(since = null) {
    /** The last committed seq applied (null before the first welcome). */
    this.seq = Number.isSafeInteger(since) && since >= 0 ? since : null;
    /** This connection's user id (from the welcome). */
    this.you = null;
    /** Who is on the board (roster.js: `users`, `userCount`). */
    this.roster = new Roster();
    /** Items held: item id → the holder's user id (a group's items all name its holder). */
    this.drags = new Map();
  }

  /**
   * A committed op broadcast: 'next' (it follows the last seq applied, which it now is), 'old'
   * (before any board, or applied already: nothing to do) or 'gap' (one is missing: resume).
   */
  committed(m) {
    if (this.seq === null || m.seq <= this.seq) return 'old';
    if (m.seq !== this.seq + 1) return 'gap';
    this.seq = m.seq;
    return 'next';
  }

  /**
   * A welcome: the ops it carried past the last seq applied (now applied), or null when it does
   * not fit (a resumed history with a gap, one that ends short of the welcome's seq, or neither a
   * board nor ops): the board must come anew.
   */
  welcome(m) {
    const applied = [];
    if (m.board && typeof m.board === 'object') {
      this.seq = Number.isSafeInteger(m.seq) ? m.seq : 0;
    } else if (Array.isArray(m.ops) && this.seq !== null) {
      let seq = this.seq;
      for (const op of m.ops) {
        if (!isCommitted(op) || op.seq <= seq) continue;
        if (op.seq !== seq + 1) return null;
        seq = op.seq;
        applied.push(op);
      }
      if (seq !== m.seq) return null;
      this.seq = seq;
    } else {
      return null;
    }
    this.you = m.you;
    this.roster.apply(m);
    this.drags = new Map((m.drags ?? []).map((d) => [d.item, d.by]));
    return applied;
  }

  /** A message about people or holds (join, leave, presence, dragStart, drop): true when who is here changed. */
  apply(m) {
    if (m.type === 'dragStart') {
      if (typeof m.item === 'string') this.drags.set(m.item, m.by);
      // A group (issue 36): held all by its lead's holder.
      for (const other of Array.isArray(m.items) ? m.items : []) if (typeof other === 'string') this.drags.set(other, m.by);
    } else if (m.type === 'drop') {
      // A drag ends whole: a group's items with its lead.
      if (this.drags.get(m.item) === m.by) for (const [item, by] of this.drags) if (by === m.by) this.drags.delete(item);
    }
    return this.roster.apply(m);
  }

  /** The socket closed: the holds died with it. */
  closed() {
    this.drags.clear();
  }
}
