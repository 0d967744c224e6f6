// A board embedded in another site's page with the shuffleboard SDK (docs/sdk.md): its own small
// board model and rendering, nothing of the bundled client's. Configured by the page's URL:
//   ?server=http://127.0.0.1:8080   the shuffleboard server (default: that)
//   &board=demo&name=Ada            the board and the name to join as
//   &tokenUrl=/token                where this site's backend hands out access tokens (getToken),
//                                   or #token=… for one fixed token
// Served from any static server at the repository's root, so that ../web/sdk/ resolves (a real
// site would copy web/sdk/ next to its own files); see docs/sdk.md, "The example page".

import { connect } from '../web/sdk/shuffleboard.js';

const params = new URLSearchParams(location.search);
const server = params.get('server') || 'http://127.0.0.1:8080';
const boardId = params.get('board') || 'demo';
const name = (params.get('name') || 'Guest').slice(0, 64);
const tokenUrl = params.get('tokenUrl');
const fixedToken = new URLSearchParams(location.hash.slice(1)).get('token');

/** Asks this site's backend for a fresh token (it decides who may have one). */
async function getToken() {
  const url = new URL(tokenUrl, location.href);
  url.searchParams.set('board', boardId);
  const res = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
  if (!res.ok) throw new Error(`token endpoint: HTTP ${res.status}`);
  return (await res.text()).trim();
}

const client = connect({
  url: server,
  board: boardId,
  name,
  token: fixedToken,
  getToken: tokenUrl ? getToken : null,
});
// For the browser tests and the console.
window.board = client;

// ---- The board, as this page keeps it: the snapshot and every committed op applied in order.

let board = null;
let selected = null;
/** Where other people's lifted cards are aimed: user id → the item under their hand. */
const aims = new Map();

function zoneOf(itemId) {
  return board.zones.find((z) => z.items.includes(itemId));
}

function take(itemId) {
  const z = zoneOf(itemId);
  if (z) z.items.splice(z.items.indexOf(itemId), 1);
}

function insert(zoneId, itemId, before) {
  const z = board.zones.find((x) => x.id === zoneId);
  if (!z) return;
  const at = before === null ? -1 : z.items.indexOf(before);
  if (at < 0) z.items.push(itemId);
  else z.items.splice(at, 0, itemId);
}

function itemById(id) {
  return board.items.find((i) => i.id === id);
}

/** Applies a committed op (docs/protocol.md, "Committed ops"). */
function apply(op) {
  switch (op.type) {
    case 'swap': {
      const za = zoneOf(op.a);
      const zb = zoneOf(op.b);
      if (!za || !zb) return;
      const ia = za.items.indexOf(op.a);
      const ib = zb.items.indexOf(op.b);
      za.items[ia] = op.b;
      zb.items[ib] = op.a;
      return;
    }
    case 'move':
      take(op.item);
      insert(op.zone, op.item, op.before);
      return;
    case 'toggle': {
      const it = itemById(op.item);
      if (it) it.on = op.on;
      return;
    }
    case 'add':
      board.items.push({ ...op.item });
      insert(op.zone, op.item.id, op.before);
      return;
    case 'edit': {
      const it = itemById(op.item);
      if (!it) return;
      if (op.label !== undefined) it.label = op.label;
      if (op.color !== undefined) it.color = op.color;
      if (op.detail === null) delete it.detail;
      else if (op.detail !== undefined) it.detail = op.detail;
      return;
    }
    case 'remove':
      take(op.item);
      board.items = board.items.filter((i) => i.id !== op.item);
      return;
    case 'addZone': {
      const at = op.before === null ? -1 : board.zones.findIndex((z) => z.id === op.before);
      const zone = { ...op.zone, items: [] };
      if (at < 0) board.zones.push(zone);
      else board.zones.splice(at, 0, zone);
      return;
    }
    case 'editZone': {
      const z = board.zones.find((x) => x.id === op.zone);
      if (!z) return;
      for (const f of ['title', 'layout', 'columns']) if (op[f] !== undefined) z[f] = op[f];
      if (z.layout && z.layout !== 'grid') delete z.columns;
      return;
    }
    case 'removeZone':
      board.zones = board.zones.filter((z) => z.id !== op.zone);
      return;
    case 'retitle':
      board.title = op.title;
      return;
    default:
      // An op this page does not know (a newer server): start again from the board.
      client.resync({ snapshot: true });
  }
}

// ---- Rendering: text only (labels are other people's text), rebuilt on each change.

const $ = (id) => document.getElementById(id);

function nameOf(userId) {
  return client.users.get(userId)?.name ?? userId;
}

function labelOf(itemId) {
  return itemById(itemId)?.label || itemId;
}

function render() {
  if (!board) return;
  $('title').textContent = board.title;
  $('embed').dataset.seq = String(client.seq);
  const zones = board.zones.map((z, i) => {
    const section = document.createElement('section');
    section.className = 'zone';
    section.dataset.zone = z.id;
    const h = document.createElement('h2');
    h.textContent = z.title || (i === 0 ? 'Board' : z.id);
    const list = document.createElement('ol');
    for (const id of z.items) {
      const it = itemById(id);
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'card';
      b.dataset.item = id;
      b.textContent = it?.label || id;
      b.style.backgroundColor = it?.color || '#ffe08a';
      b.setAttribute('aria-pressed', String(selected === id));
      const aimer = [...aims].find(([, over]) => over === id)?.[0];
      if (aimer) b.dataset.aimedBy = aimer;
      const holder = client.drags.get(id);
      if (holder && holder !== client.you) {
        b.dataset.heldBy = holder;
        const span = document.createElement('span');
        span.className = 'holder';
        span.textContent = `held by ${nameOf(holder)}`;
        b.append(span);
      }
      li.append(b);
      list.append(li);
    }
    section.append(h, list);
    return section;
  });
  $('zones').replaceChildren(...zones);
}

function say(text) {
  $('last').textContent = text;
}

// ---- The SDK's events.

client.on('state', (state) => {
  $('embed').dataset.state = state;
  $('state').textContent = {
    connecting: 'Connecting…', joining: 'Joining…', open: 'Live', reconnecting: 'Offline — reconnecting…',
    expired: 'Access expired', revoked: 'Access revoked', unauthorized: 'Not allowed', closed: 'Closed',
  }[state] ?? state;
});

client.on('welcome', (w) => {
  // A resume carries `ops` instead (each also comes as an 'op' event).
  if (w.board) board = structuredClone(w.board);
  render();
});

client.on('op', (op) => {
  if (!board) return;
  apply(op);
  if (op.by !== client.you) {
    const what = op.type === 'swap' ? `swapped ${labelOf(op.a)} and ${labelOf(op.b)}` : `made a ${op.type}`;
    say(`${nameOf(op.by)} ${what}`);
  }
  render();
});

client.on('dragStart', render);
client.on('hover', (h) => {
  if (h.by === client.you) return;
  if (h.over && h.over !== h.item) aims.set(h.by, h.over);
  else aims.delete(h.by);
  render();
});
client.on('drop', (d) => {
  aims.delete(d.by);
  render();
});
client.on('close', () => aims.clear());
client.on('presence', ({ users, userCount }) => {
  const names = users.map((u) => (u.id === client.you ? `${u.name} (you)` : u.name));
  $('people').textContent = userCount ? `${names.join(', ')} and ${userCount - names.length} more` : names.join(', ');
});

client.on('expired', () => say('Your access has expired.'));
client.on('revoked', () => say('Your access has been revoked.'));
client.on('unauthorized', () => say('This board needs an access token.'));

// ---- Swapping: click one card, then another.

$('zones').addEventListener('click', async (e) => {
  const id = e.target.closest?.('[data-item]')?.dataset.item;
  if (!id || !board) return;
  if (!selected || selected === id) {
    selected = selected === id ? null : id;
    render();
    return;
  }
  const a = selected;
  selected = null;
  render();
  try {
    const op = await client.op({ type: 'swap', a, b: id });
    say(`You swapped ${labelOf(op.a)} and ${labelOf(op.b)} (op ${op.seq})`);
  } catch (err) {
    const by = err.by ? ` (${nameOf(err.by)})` : '';
    say(`Not swapped: ${err.reason ?? err.message}${by}`);
  }
});
