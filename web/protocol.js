// Wire protocol v1 (docs/protocol.md), client side: message builders, frame parsing,
// and the human wording of server reasons. Pure: no DOM, no sockets, no clocks.

/** The WebSocket subprotocol the client offers. */
export const SUBPROTOCOL = 'shuffleboard.v1';

/** The WebSocket path on the server. */
export const WS_PATH = '/ws';

/** Board, item and zone ids: 1–64 characters of [A-Za-z0-9_-]. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Types of committed (numbered) ops. */
export const OP_TYPES = new Set([
  'swap', 'move', 'toggle', 'add', 'edit', 'remove', 'addZone', 'editZone', 'removeZone', 'retitle',
]);

/** The ops that change a board's content rather than where its tiles are (issue 19). */
export const EDIT_TYPES = new Set(['add', 'edit', 'remove', 'addZone', 'editZone', 'removeZone', 'retitle']);

/**
 * The bounds the server keeps on texts (docs/protocol.md, "Text"): Unicode scalars, UTF-8 bytes,
 * and whether empty is allowed. Control characters are never allowed.
 */
export const LIMITS = {
  label: { scalars: 200, bytes: 800, empty: true },
  detail: { scalars: 200, bytes: 800, empty: true },
  zoneTitle: { scalars: 100, bytes: 400, empty: false },
  title: { scalars: 200, bytes: 800, empty: false },
  items: 1000,
  zones: 16,
};

/** Why `text` breaks `limit` (a sentence), or null when the server will take it. */
export function textProblem(text, limit) {
  if (typeof text !== 'string') return 'must be text';
  if (!limit.empty && text.length === 0) return 'must not be empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(text)) return 'must not contain control characters';
  if ([...text].length > limit.scalars) return `must be at most ${limit.scalars} characters`;
  if (new TextEncoder().encode(text).length > limit.bytes) return `must be at most ${limit.bytes} bytes`;
  return null;
}

/** True when `s` is a valid board, item or zone id. */
export function isValidId(s) {
  return typeof s === 'string' && ID_PATTERN.test(s);
}

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

/** True for text that can be a token (what `tokenFrom` accepts). */
export function isToken(token) {
  return typeof token === 'string' && /^[A-Za-z0-9._-]{1,2048}$/.test(token);
}

/**
 * A token's expiry (`e`, seconds since 1970) as its payload says, or null when it does not say
 * (not a `v1.PAYLOAD.SIGNATURE` token). Unverified: the page only uses it to plan a refresh and
 * to word a refusal; the server decides.
 */
export function tokenExpiry(token) {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3 || parts[0] !== 'v1' || !/^[A-Za-z0-9_-]{1,2048}$/.test(parts[1])) return null;
  try {
    const json = JSON.parse(atob(parts[1].replace(/-/g, '+').replace(/_/g, '/')));
    return Number.isSafeInteger(json?.e) ? json.e : null;
  } catch {
    return null;
  }
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

/** The close code for a refused token: the client must not reconnect on its own. */
export const CLOSE_UNAUTHORIZED = 4401;

/**
 * A WebSocket URL for the page at `location` ({protocol, host}), naming `board` in the query
 * (`/ws?board=ID`) when there is one: the server ignores it, but a load balancer in front of a
 * cluster hashes on it, so a board's users land on one node (docs/cluster.md).
 */
export function socketURL(location, board = null) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = board ? `?board=${encodeURIComponent(board)}` : '';
  return `${scheme}//${location.host}${WS_PATH}${query}`;
}

let counter = 0;

/** A fresh op id (1–128 characters), unique per client. */
export function newOpId(random = globalThis.crypto) {
  if (random && typeof random.randomUUID === 'function') return random.randomUUID();
  counter += 1;
  return `op-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The hello message; `since` only when resuming. */
export function hello(board, name, since, token = null) {
  const m = { type: 'hello', board, name };
  if (Number.isInteger(since) && since >= 0) m.since = since;
  if (token) m.token = token;
  return m;
}

/** A fresh token for the session (`auth`); the server answers with `auth` or `error`. */
export function auth(token) {
  return { type: 'auth', token };
}

/** A swap of two items. */
export function swap(op, base, a, b) {
  return { type: 'swap', op, base, a, b };
}

/** A move of `item` into `zone` before item `before` (null appends). */
export function move(op, base, item, zone, before) {
  return { type: 'move', op, base, item, zone, before: before ?? null };
}

/** Sets the paint state of `item`. */
export function toggle(op, base, item, on) {
  return { type: 'toggle', op, base, item, on: !!on };
}

/** Adds an item {label, color?, detail?} to `zone` before item `before` (null: at the end). */
export function add(op, base, zone, before, item) {
  const content = { label: item.label };
  if (item.color) content.color = item.color;
  if (typeof item.detail === 'string') content.detail = item.detail;
  return { type: 'add', op, base, zone, before: before ?? null, item: content };
}

/** Changes some of `item`'s label, color and detail (`detail: null` clears it). */
export function edit(op, base, item, changes) {
  const m = { type: 'edit', op, base, item };
  for (const f of ['label', 'color', 'detail']) if (changes[f] !== undefined) m[f] = changes[f];
  return m;
}

/** Removes `item`. */
export function remove(op, base, item) {
  return { type: 'remove', op, base, item };
}

/** Adds a zone {title, layout?, columns?, handle?, axis?} before zone `before` (null: last). */
export function addZone(op, base, before, zone) {
  const content = { title: zone.title };
  for (const f of ['layout', 'columns', 'handle', 'axis']) if (zone[f] !== undefined && zone[f] !== null) content[f] = zone[f];
  return { type: 'addZone', op, base, before: before ?? null, zone: content };
}

/** Changes some of a zone's title, layout and columns. */
export function editZone(op, base, zone, changes) {
  const m = { type: 'editZone', op, base, zone };
  for (const f of ['title', 'layout', 'columns']) if (changes[f] !== undefined) m[f] = changes[f];
  return m;
}

/** Removes an empty zone. */
export function removeZone(op, base, zone) {
  return { type: 'removeZone', op, base, zone };
}

/** Renames the board. */
export function retitle(op, base, title) {
  return { type: 'retitle', op, base, title };
}

/** Lifts `item`. */
export function dragStart(item) {
  return { type: 'dragStart', item };
}

/**
 * Where the held `item` hovers: over an item, or over `zone`'s empty space (over null).
 * `mode` ('swap' or 'move') says what a drop there would do, so other screens can preview it.
 */
export function hover(item, over, zone, mode) {
  const m = { type: 'hover', item, over: over ?? null, zone };
  if (mode === 'swap' || mode === 'move') m.mode = mode;
  return m;
}

/**
 * Releases `item`. With an op (`swap` or `move` message built above) the drop carries it as
 * its action and the op's id and base; without one it only releases.
 */
export function drop(item, opMessage) {
  if (!opMessage) return { type: 'drop', item };
  const action = opMessage.type === 'swap'
    ? { type: 'swap', with: opMessage.a === item ? opMessage.b : opMessage.a }
    : { type: 'move', zone: opMessage.zone, before: opMessage.before ?? null };
  return { type: 'drop', item, op: opMessage.op, base: opMessage.base, action };
}

/** The op message a drop action stands for, so it can be resent as a plain op. */
export function opFromDrop(dropMessage) {
  const { item, op, base, action } = dropMessage;
  if (!action) return null;
  if (action.type === 'swap') return swap(op, base, item, action.with);
  if (action.type === 'move') return move(op, base, item, action.zone, action.before);
  return null;
}

/**
 * The messages in one server frame, in order. A frame is one JSON object or an array of them.
 * Throws on text that is not JSON; drops array members that are not objects with a type.
 */
export function parseFrame(text) {
  const value = JSON.parse(text);
  const list = Array.isArray(value) ? value : [value];
  return list.filter((m) => m && typeof m === 'object' && !Array.isArray(m) && typeof m.type === 'string');
}

/** True for a committed op broadcast (numbered, attributed). */
export function isCommitted(m) {
  return OP_TYPES.has(m.type) && Number.isInteger(m.seq) && typeof m.by === 'string';
}

/** The items an op involves, as the server's conflict rule sees them. */
export function involvedItems(op) {
  switch (op.type) {
    case 'swap': return [op.a, op.b];
    case 'move': return op.before ? [op.item, op.before] : [op.item];
    case 'toggle': case 'edit': case 'remove': return [op.item];
    case 'add': return [op.before, op.item?.id].filter((id) => typeof id === 'string');
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
    case 'board_full': return 'The board is full (at most 1000 cards and 16 columns)';
    case 'forbidden': return 'This link only lets you watch';
    case 'held': return `${who} is holding that tile`;
    case 'stale': return 'Your view was too old; the board has been refreshed';
    case 'bad_base': return 'Out of sync with the server; refreshing';
    case 'unknown_item': return 'That tile no longer exists';
    case 'unknown_zone': return 'That area no longer exists';
    case 'invalid': return editing ? 'That change is not possible' : 'That move is not possible';
    case 'not_holding': return 'You are no longer holding that tile';
    // A lift refused by the turn rules (docs/conflicts.md): `by` is whose turn it is, if anyone's.
    case 'cooldown': return by
      ? `${who} asked for that tile first; it is their turn`
      : 'Your hold on that tile just ended; others go first for a few seconds';
    case 'hold_limit': return 'Too many tiles are held from your network at once; drop one first';
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

/** Reconnect delay for attempt n (0-based): exponential from `base` ms, capped, with jitter. */
export function backoffDelay(attempt, { base = 250, cap = 5000, random = Math.random } = {}) {
  const raw = Math.min(cap, base * 2 ** Math.min(attempt, 16));
  return Math.round(raw / 2 + random() * (raw / 2));
}
