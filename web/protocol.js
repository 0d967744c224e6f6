// Wire protocol v1 (docs/protocol.md), client side: the wire itself (message builders, frame
// parsing, tokens' expiry) is the SDK's (sdk/wire.js, re-exported here); this module adds what
// the bundled page needs besides: text limits, links, API paths, the human wording of server
// reasons and the hover throttle. Pure: no DOM, no sockets, no clocks.

import { EDIT_TYPES, isValidId } from './sdk/wire.js';

export * from './sdk/wire.js';

/**
 * The bounds the server keeps on texts (docs/protocol.md, "Text"): Unicode scalars, UTF-8 bytes,
 * and whether empty is allowed. Control characters are never allowed.
 */
export const LIMITS = {
  label: { scalars: 200, bytes: 800, empty: true },
  detail: { scalars: 200, bytes: 800, empty: true },
  zoneTitle: { scalars: 100, bytes: 400, empty: false },
  title: { scalars: 200, bytes: 800, empty: false },
  items: 10000,
  zones: 64,
};

/** Why `text` breaks `limit` (a sentence), or null when the server will take it. */
export function textProblem(text, limit) {
  if (typeof text !== 'string') return 'must be text';
  if (!limit.empty && text.length === 0) return 'must not be empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(text)) return 'must not contain control characters';
  if ([...text].length > limit.scalars) return `must be at most ${limit.scalars} characters`;
  if (new TextEncoder().encode(text).length > limit.bytes) return `must be at most ${limit.bytes} bytes`;
  if (text.length > 0 && !VISIBLE.test(text)) return 'must show something, not only spaces or invisible characters';
  return null;
}

/** A character that shows: what the server's Text.hasVisible looks for (issue 29). */
const VISIBLE = /[^\s\p{Cc}\p{Cf}\p{Z}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800\u3164\uFFA0\u115F\u1160]/u;


/**
 * A board id made from a board's name: lower case, accents dropped, every run of other characters
 * one `-`, at most 64 characters. Null when nothing is left (a name in another script): then the
 * server makes the id.
 */
export function boardIdFromName(name) {
  const id = String(name ?? '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return isValidId(id) ? id : null;
}

/** The body of `POST /api/boards` for a board from `template`; `title` and `id` only when set. */
export function newBoardRequest(template, title, id) {
  const body = { template };
  const t = typeof title === 'string' ? title.trim() : '';
  if (t) body.title = t;
  if (id) body.id = id;
  return body;
}

/** The path of one page of the board list (`after`: the `next` of the page before). */
export function boardsPagePath(after, limit) {
  const q = new URLSearchParams();
  if (after) q.set('after', after);
  if (limit) q.set('limit', String(limit));
  const s = q.toString();
  return s ? `/api/boards?${s}` : '/api/boards';
}

/**
 * The link to a board, for sharing: this page's origin and path with `?board=`, and `&mode=`
 * when a mode is given (the name stays out: it is the sharer's own).
 */
export function boardLink(location, board, mode = null, token = null) {
  const m = mode ? `&mode=${encodeURIComponent(mode)}` : '';
  return `${location.origin}${location.pathname}?board=${encodeURIComponent(board)}${m}${tokenFragment(token)}`;
}

/**
 * The access token in a page URL's fragment (`#token=…`), or null. A fragment is never sent to
 * the server in a request line, so the token stays out of its logs.
 */
export function tokenFrom(location) {
  const hash = (location.hash || '').replace(/^#/, '');
  const token = new URLSearchParams(hash).get('token');
  return token && /^[A-Za-z0-9._-]{1,2048}$/.test(token) ? token : null;
}


/** `#token=…` for links that keep the token, or '' without one. */
export function tokenFragment(token) {
  return token ? `#token=${token}` : '';
}

/** Request headers for the API, with the bearer token when there is one. */
export function apiHeaders(token, extra = {}) {
  const headers = { accept: 'application/json', ...extra };
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}



/** The items an op involves, as the server's conflict rule sees them. */
export function involvedItems(op) {
  switch (op.type) {
    case 'swap': return [op.a, op.b];
    case 'move': return op.before ? [op.item, op.before] : [op.item];
    case 'toggle': case 'edit': case 'remove': case 'tag': case 'assign': case 'addCheck': case 'editCheck':
    case 'removeCheck': case 'comment': case 'editComment': case 'removeComment': return [op.item];
    case 'add': return [op.before, op.item?.id].filter((id) => typeof id === 'string');
    // A committed restore moved everything it brought back.
    case 'restore': return (op.board?.items ?? []).map((it) => it.id);
    case 'moveMany': case 'unarchive': return op.before ? [...(op.items ?? []), op.before] : [...(op.items ?? [])];
    case 'archive': return [...(op.items ?? [])];
    // The undo of a bulk op from several places: one op per place, sent together.
    case 'many': return (op.ops ?? []).flatMap(involvedItems);
    default: return [];
  }
}

/**
 * A short sentence saying why the server refused an op. `nameOf(userId)` gives display names.
 */
export function rejectText(reason, by, nameOf = (id) => id, opType = null) {
  const who = by ? nameOf(by) : 'Someone';
  const editing = EDIT_TYPES.has(opType);
  switch (reason) {
    case 'conflict': return editing ? `${who} changed that first; the board is as they left it` : `${who} moved that tile first`;
    case 'not_empty': return 'That column still has cards: move or remove them first';
    case 'board_full': return 'The board is full (at most 10,000 cards and 64 columns)';
    case 'forbidden': return 'This link only lets you watch';
    case 'held': return `${who} is holding that tile`;
    case 'stale': return 'Your view was too old; the board has been refreshed';
    case 'bad_base': return 'Out of sync with the server; refreshing';
    case 'unknown_item': return 'That tile no longer exists';
    case 'unknown_zone': return 'That area no longer exists';
    case 'unknown_tag': return 'That tag no longer exists';
    case 'unknown_check': return 'That checklist item no longer exists';
    case 'unknown_comment': return 'That comment no longer exists';
    case 'invalid': return editing ? 'That change is not possible' : 'That move is not possible';
    case 'not_holding': return 'You are no longer holding that tile';
    // A lift refused by the turn rules (docs/conflicts.md): `by` is whose turn it is, if anyone's.
    case 'cooldown': return by
      ? `${who} asked for that tile first; it is their turn`
      : 'Your hold on that tile just ended; others go first for a few seconds';
    case 'hold_limit': return 'Too many tiles are held from your network at once; drop one first';
    case 'compacted': return 'That version is too old: the server no longer keeps it';
    case 'unavailable': return 'The server could not store that just now; try again in a moment';
    default: return `The server refused that (${String(reason)})`;
  }
}

/** The message for a drop the server made on a holder's behalf. */
export function dropReasonText(reason) {
  if (reason === 'expired') return 'Your hold expired (30 seconds without movement, or 2 minutes in all); others go first for a few seconds';
  if (reason === 'left') return 'The holder left';
  return '';
}

/**
 * Limits how often hovers are sent: only changes, at most one per `interval` ms, and the last
 * change is always sent (trailing edge). `send` gets the value; `schedule(fn, ms)` returns a
 * cancel function (setTimeout in the page, a fake clock in tests).
 */
export class HoverThrottle {
  constructor(send, { interval = 33, now = () => Date.now(), schedule = defaultSchedule } = {}) {
    this.send = send;
    this.interval = interval;
    this.now = now;
    this.schedule = schedule;
    this.lastKey = undefined;
    this.lastSentAt = -Infinity;
    this.waiting = null;
    this.cancelTimer = null;
  }

  /** Offers a value; `key` says whether it differs from the last one. */
  offer(value, key = JSON.stringify(value)) {
    if (key === this.lastKey && !this.waiting) return;
    if (this.waiting && key === this.waiting.key) return;
    if (this.waiting && key === this.lastKey) {
      // Back to what was last sent before the pending one went out: nothing to send.
      this.clear();
      return;
    }
    const wait = this.lastSentAt + this.interval - this.now();
    if (wait <= 0) {
      this.clear();
      this.emit(value, key);
      return;
    }
    this.waiting = { value, key };
    if (!this.cancelTimer) {
      this.cancelTimer = this.schedule(() => {
        this.cancelTimer = null;
        const w = this.waiting;
        this.waiting = null;
        if (w) this.emit(w.value, w.key);
      }, wait);
    }
  }

  /** Sends what is waiting now (before a drop, so the last hover is never lost). */
  flush() {
    const w = this.waiting;
    this.clear();
    if (w) this.emit(w.value, w.key);
  }

  /** Forgets everything (a new drag). */
  reset() {
    this.clear();
    this.lastKey = undefined;
  }

  clear() {
    this.waiting = null;
    if (this.cancelTimer) this.cancelTimer();
    this.cancelTimer = null;
  }

  emit(value, key) {
    this.lastKey = key;
    this.lastSentAt = this.now();
    this.send(value);
  }
}

function defaultSchedule(fn, ms) {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
}

