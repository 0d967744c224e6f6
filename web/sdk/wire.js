// The shuffleboard wire protocol v1 (docs/protocol.md), client side: the messages a client sends,
// frame parsing, token expiry and the reconnect delay. Pure: no DOM, no sockets, no clocks. Part of
// the SDK (web/sdk/); the bundled web client's protocol.js re-exports it.

import { OPS, OP_TYPES } from './ops.js';

export { EDIT_TYPES, OPS, OP_TYPES } from './ops.js';

/** The WebSocket subprotocol the client offers. */
export const SUBPROTOCOL = 'shuffleboard.v1';

/** The WebSocket path on the server. */
export const WS_PATH = '/ws';

/** Board, item and zone ids: 1–64 characters of [A-Za-z0-9_-]. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** True when `s` is a valid board, item or zone id. */
export function isValidId(s) {
  return typeof s === 'string' && ID_PATTERN.test(s);
}

/** True for text that can be a token (what `tokenFrom` accepts). */
export function isToken(token) {
  return typeof token === 'string' && /^[A-Za-z0-9._-]{1,2048}$/.test(token);
}

/**
 * A `v1.PAYLOAD.SIGNATURE` token's payload, parsed, or null for anything else. Unverified: the
 * page reads it only to plan, word or show things; the server decides.
 */
function tokenPayload(token) {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3 || parts[0] !== 'v1' || !/^[A-Za-z0-9_-]{1,2048}$/.test(parts[1])) return null;
  try {
    return JSON.parse(atob(parts[1].replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
}

/**
 * A token's expiry (`e`, seconds since 1970) as its payload says, or null when it does not say.
 * Only to plan a refresh and to word a refusal.
 */
export function tokenExpiry(token) {
  const e = tokenPayload(token)?.e;
  return Number.isSafeInteger(e) ? e : null;
}

/**
 * The member a token's payload names (`sub`), or null when it names none. Only to know whether
 * the server can say whose inbox it is.
 */
export function tokenMember(token) {
  const sub = tokenPayload(token)?.sub;
  return typeof sub === 'string' && sub ? sub : null;
}

/** The role a token's payload names (`r`), or null. Only to show or hide the Share button. */
export function tokenRole(token) {
  const r = tokenPayload(token)?.r;
  return ['view', 'edit', 'admin'].includes(r) ? r : null;
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

/** The hello message; `since` only when resuming; `member`: the stable id of the person (issue 32). */
export function hello(board, name, since, token = null, member = null) {
  const m = { type: 'hello', board, name };
  if (Number.isInteger(since) && since >= 0) m.since = since;
  if (token) m.token = token;
  if (member) m.member = member;
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

/**
 * Adds an item {label, color?, detail?, on?, description?, due?, tags?, assignees?, checklist?}
 * to `zone` before item `before` (null: at the end); `on: true` adds it painted on (the undo of a
 * remove), left out otherwise. The content (issue 32) brings a removed card back whole: tag ids
 * of the board, [{member, name}], [{text, done?}] (the server gives the checks their ids).
 */
export function add(op, base, zone, before, item) {
  const content = { label: item.label };
  if (item.color) content.color = item.color;
  for (const f of ['detail', 'description', 'due']) if (typeof item[f] === 'string') content[f] = item[f];
  if (item.on === true) content.on = true;
  if (Array.isArray(item.tags) && item.tags.length) content.tags = item.tags.slice();
  if (Array.isArray(item.assignees) && item.assignees.length) {
    content.assignees = item.assignees.map((p) => ({ member: p.member, name: p.name }));
  }
  if (Array.isArray(item.checklist) && item.checklist.length) {
    content.checklist = item.checklist.map((c) => ({ text: c.text, done: !!c.done }));
  }
  return { type: 'add', op, base, zone, before: before ?? null, item: content };
}

/**
 * Changes some of `item`'s label, color, detail, description (Markdown) and due date
 * (`YYYY-MM-DD` or `YYYY-MM-DDTHH:MMZ`); null clears detail, description and due.
 */
export function edit(op, base, item, changes) {
  const m = { type: 'edit', op, base, item };
  for (const f of ['label', 'color', 'detail', 'description', 'due']) if (changes[f] !== undefined) m[f] = changes[f];
  return m;
}

/** Adds tags (ids) to `item` and takes others off it: a set change that never conflicts. */
export function tag(op, base, item, add = [], remove = []) {
  return { type: 'tag', op, base, item, add, remove };
}

/** Assigns people ({member, name}) to `item` and unassigns others (member ids). */
export function assign(op, base, item, add = [], remove = []) {
  return { type: 'assign', op, base, item, add, remove };
}

/**
 * Defines a tag {name, color} on the board; the server chooses its id. `items`: cards to put it
 * on at once (the undo of a removeTag), left out when none.
 */
export function addTag(op, base, newTag, items = []) {
  const msg = { type: 'addTag', op, base, tag: { name: newTag.name, color: newTag.color } };
  if (Array.isArray(items) && items.length) msg.items = items.slice();
  return msg;
}

/** Renames or recolors a tag. */
export function editTag(op, base, tagId, changes) {
  const m = { type: 'editTag', op, base, tag: tagId };
  for (const f of ['name', 'color']) if (changes[f] !== undefined) m[f] = changes[f];
  return m;
}

/** Takes a tag off the board and off every card. */
export function removeTag(op, base, tagId) {
  return { type: 'removeTag', op, base, tag: tagId };
}

/** Adds a checklist entry to `item` before entry `before` (null: at the end). */
export function addCheck(op, base, item, before, text) {
  return { type: 'addCheck', op, base, item, before: before ?? null, text };
}

/** Changes a checklist entry's text or ticks it. */
export function editCheck(op, base, item, check, changes) {
  const m = { type: 'editCheck', op, base, item, check };
  for (const f of ['text', 'done']) if (changes[f] !== undefined) m[f] = changes[f];
  return m;
}

/** Takes an entry out of `item`'s checklist. */
export function removeCheck(op, base, item, check) {
  return { type: 'removeCheck', op, base, item, check };
}

/** Moves `items` (1–200, distinct), in order, before `before` in `zone` (null: at its end): one op. */
export function moveMany(op, base, items, zone, before) {
  return { type: 'moveMany', op, base, items: [...items], zone, before: before ?? null };
}

/** Takes `items` (1–200, distinct) off the board's zones into its archive. */
export function archive(op, base, items) {
  return { type: 'archive', op, base, items: [...items] };
}

/** Puts archived `items` back, in order, before `before` in `zone` (null: at its end). */
export function unarchive(op, base, items, zone, before) {
  return { type: 'unarchive', op, base, items: [...items], zone, before: before ?? null };
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

/** Writes a comment on `item` (Markdown); `mentions`: [{member, name}] named by `@Name` in it. */
export function comment(op, base, item, text, mentions) {
  return { type: 'comment', op, base, item, text, mentions: mentions ?? [] };
}

/** Changes one's own comment. */
export function editComment(op, base, item, commentId, text, mentions) {
  return { type: 'editComment', op, base, item, comment: commentId, text, mentions: mentions ?? [] };
}

/** Takes a comment off `item` (its author's, or any as an admin). */
export function removeComment(op, base, item, commentId) {
  return { type: 'removeComment', op, base, item, comment: commentId };
}

/** Renames the board. */
export function retitle(op, base, title) {
  return { type: 'retitle', op, base, title };
}

/** A restore: the board as it was right after op `to` (issue 21); the server sends the board back. */
export function restore(op, base, to) {
  return { type: 'restore', op, base, to };
}

/** The builders by op type, from an op's body ({type, …fields} as docs/protocol.md has them). */
const FROM_BODY = {
  swap: (id, base, b) => swap(id, base, b.a, b.b),
  move: (id, base, b) => move(id, base, b.item, b.zone, b.before),
  toggle: (id, base, b) => toggle(id, base, b.item, b.on),
  add: (id, base, b) => add(id, base, b.zone, b.before, b.item),
  edit: (id, base, b) => edit(id, base, b.item, b),
  remove: (id, base, b) => remove(id, base, b.item),
  addZone: (id, base, b) => addZone(id, base, b.before, b.zone),
  editZone: (id, base, b) => editZone(id, base, b.zone, b),
  removeZone: (id, base, b) => removeZone(id, base, b.zone),
  retitle: (id, base, b) => retitle(id, base, b.title),
  restore: (id, base, b) => restore(id, base, b.to),
  tag: (id, base, b) => tag(id, base, b.item, b.add ?? [], b.remove ?? []),
  assign: (id, base, b) => assign(id, base, b.item, b.add ?? [], b.remove ?? []),
  addTag: (id, base, b) => addTag(id, base, b.tag, b.items),
  editTag: (id, base, b) => editTag(id, base, b.tag, b),
  removeTag: (id, base, b) => removeTag(id, base, b.tag),
  addCheck: (id, base, b) => addCheck(id, base, b.item, b.before, b.text),
  editCheck: (id, base, b) => editCheck(id, base, b.item, b.check, b),
  removeCheck: (id, base, b) => removeCheck(id, base, b.item, b.check),
  comment: (id, base, b) => comment(id, base, b.item, b.text, b.mentions),
  editComment: (id, base, b) => editComment(id, base, b.item, b.comment, b.text, b.mentions),
  removeComment: (id, base, b) => removeComment(id, base, b.item, b.comment),
  moveMany: (id, base, b) => moveMany(id, base, b.items, b.zone, b.before),
  archive: (id, base, b) => archive(id, base, b.items),
  unarchive: (id, base, b) => unarchive(id, base, b.items, b.zone, b.before),
};
for (const type of OP_TYPES) if (!FROM_BODY[type]) throw new Error(`wire.js: no builder for ${type}`);
for (const type of Object.keys(FROM_BODY)) if (!OPS[type]) throw new Error(`wire.js: ${type} is not in ops.js`);

/** The op message for `body` (an op's type and fields) with op id `id` and `base`, only its fields kept. */
export function opMessage(id, base, body) {
  const build = FROM_BODY[body?.type];
  if (!build) throw new Error(`unknown op ${body?.type}`);
  return build(id, base, body);
}

/** Lifts `item`. */
export function dragStart(item) {
  return { type: 'dragStart', item };
}

/** Lifts a group (issue 36): `items[0]` leads (hovers and drops name it); all held or none. */
export function dragStartMany(items) {
  return { type: 'dragStart', items: [...items] };
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


/** Reconnect delay for attempt n (0-based): exponential from `base` ms, capped, with jitter. */
export function backoffDelay(attempt, { base = 250, cap = 5000, random = Math.random } = {}) {
  const raw = Math.min(cap, base * 2 ** Math.min(attempt, 16));
  return Math.round(raw / 2 + random() * (raw / 2));
}
