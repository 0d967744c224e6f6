// Unit tests of web/protocol.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as P from '../../web/protocol.js';

test('frames are one object or an array of them, in order', () => {
  assert.deepEqual(P.parseFrame('{"type":"join","user":{"id":"u1"}}').map((m) => m.type), ['join']);
  assert.deepEqual(P.parseFrame('[{"type":"a"},{"type":"b"},3,null,{"x":1}]').map((m) => m.type), ['a', 'b']);
  assert.throws(() => P.parseFrame('{nope'));
});

test('client messages carry exactly the protocol fields', () => {
  assert.deepEqual(P.hello('b1', 'Ann'), { type: 'hello', board: 'b1', name: 'Ann' });
  assert.deepEqual(P.hello('b1', 'Ann', 7), { type: 'hello', board: 'b1', name: 'Ann', since: 7 });
  assert.deepEqual(P.swap('o', 3, 't1', 't2'), { type: 'swap', op: 'o', base: 3, a: 't1', b: 't2' });
  assert.deepEqual(P.move('o', 3, 't1', 'tray'), { type: 'move', op: 'o', base: 3, item: 't1', zone: 'tray', before: null });
  assert.deepEqual(P.toggle('o', 3, 't1', 1), { type: 'toggle', op: 'o', base: 3, item: 't1', on: true });
  assert.deepEqual(P.hover('t1', undefined, 'tray'), { type: 'hover', item: 't1', over: null, zone: 'tray' });
  assert.deepEqual(P.hover('t1', 't3', 'grid', 'move'), { type: 'hover', item: 't1', over: 't3', zone: 'grid', mode: 'move' });
  assert.deepEqual(P.hover('t1', 't3', 'grid', 'swap'), { type: 'hover', item: 't1', over: 't3', zone: 'grid', mode: 'swap' });
  assert.deepEqual(P.hover('t1', 't3', 'grid', 'paint'), { type: 'hover', item: 't1', over: 't3', zone: 'grid' });
});

test('a drop carries its op as an action and converts back for a resend', () => {
  const s = P.swap('o1', 4, 't1', 't5');
  const d = P.drop('t1', s);
  assert.deepEqual(d, { type: 'drop', item: 't1', op: 'o1', base: 4, action: { type: 'swap', with: 't5' } });
  assert.deepEqual(P.opFromDrop(d), s);
  const m = P.move('o2', 4, 't1', 'grid', 't3');
  assert.deepEqual(P.opFromDrop(P.drop('t1', m)), m);
  assert.deepEqual(P.drop('t1'), { type: 'drop', item: 't1' });
});

test('op ids are unique and 1-128 characters, with or without crypto.randomUUID', () => {
  const ids = new Set();
  for (let i = 0; i < 100; i += 1) ids.add(P.newOpId(null));
  assert.equal(ids.size, 100);
  for (const id of ids) assert.ok(id.length >= 1 && id.length <= 128);
  assert.equal(P.newOpId({ randomUUID: () => 'x' }), 'x');
});

test('committed ops are recognised by type, seq and by', () => {
  assert.equal(P.isCommitted({ type: 'swap', seq: 1, by: 'u1' }), true);
  assert.equal(P.isCommitted({ type: 'swap', op: 'x' }), false);
  assert.equal(P.isCommitted({ type: 'drop', seq: 1, by: 'u1' }), false);
});

test('rejects read as sentences naming who won', () => {
  assert.equal(P.rejectText('conflict', 'u2', () => 'Bo'), 'Bo moved that tile first');
  assert.equal(P.rejectText('held', 'u2', () => 'Bo'), 'Bo is holding that tile');
  assert.equal(P.rejectText('cooldown', 'u2', () => 'Bo'), 'Bo asked for that tile first; it is their turn');
  assert.match(P.rejectText('cooldown'), /^Your hold on that tile just ended/);
  assert.match(P.rejectText('hold_limit'), /^Too many tiles are held from your network/);
  assert.match(P.rejectText('weird'), /weird/);
});

test('ids follow the protocol rule; socket URL follows the page', () => {
  assert.equal(P.isValidId('ok-board_1'), true);
  assert.equal(P.isValidId('no spaces'), false);
  assert.equal(P.isValidId('x'.repeat(65)), false);
  assert.equal(P.socketURL({ protocol: 'http:', host: 'h:1' }), 'ws://h:1/ws');
  assert.equal(P.socketURL({ protocol: 'https:', host: 'h' }), 'wss://h/ws');
});

test('the socket URL names the board, for a load balancer that hashes on it', () => {
  assert.equal(P.socketURL({ protocol: 'http:', host: 'h:1' }, 'demo-1'), 'ws://h:1/ws?board=demo-1');
  assert.equal(P.socketURL({ protocol: 'https:', host: 'h' }, 'b_2'), 'wss://h/ws?board=b_2');
  // Ids are [A-Za-z0-9_-] (checked before connecting), but the query is encoded whatever it is.
  assert.equal(P.socketURL({ protocol: 'http:', host: 'h' }, 'a&b=c'), 'ws://h/ws?board=a%26b%3Dc');
});

function fakeClock() {
  let now = 0;
  const timers = [];
  return {
    now: () => now,
    schedule(fn, ms) { const t = { at: now + ms, fn, live: true }; timers.push(t); return () => { t.live = false; }; },
    advance(ms) {
      now += ms;
      for (const t of timers.filter((x) => x.live && x.at <= now)) { t.live = false; t.fn(); }
    },
  };
}

test('hover throttle: only changes, at most one per interval, and the last one always goes out', () => {
  const clock = fakeClock();
  const sent = [];
  const th = new P.HoverThrottle((v) => sent.push(v), { interval: 33, now: clock.now, schedule: clock.schedule });
  th.offer('a');
  th.offer('a');
  assert.deepEqual(sent, ['a']);
  th.offer('b');
  th.offer('c');
  th.offer('d');
  assert.deepEqual(sent, ['a']);
  clock.advance(33);
  assert.deepEqual(sent, ['a', 'd']);
  clock.advance(100);
  th.offer('e');
  assert.deepEqual(sent, ['a', 'd', 'e']);
  th.offer('f');
  th.flush();
  assert.deepEqual(sent, ['a', 'd', 'e', 'f']);
  clock.advance(100);
  assert.deepEqual(sent, ['a', 'd', 'e', 'f']);
});

test('hover throttle: going back to the last sent value cancels the waiting one', () => {
  const clock = fakeClock();
  const sent = [];
  const th = new P.HoverThrottle((v) => sent.push(v), { interval: 33, now: clock.now, schedule: clock.schedule });
  th.offer('a');
  th.offer('b');
  th.offer('a');
  clock.advance(50);
  assert.deepEqual(sent, ['a']);
});

test('backoff grows, is capped and jittered', () => {
  const mid = { random: () => 0.5 };
  assert.equal(P.backoffDelay(0, mid), 188);
  assert.ok(P.backoffDelay(3, mid) > P.backoffDelay(1, mid));
  assert.equal(P.backoffDelay(40, { random: () => 1 }), 5000);
});

test('a board id from a name: lower case, no accents, dashes for the rest, or null', () => {
  assert.equal(P.boardIdFromName('Team Retro'), 'team-retro');
  assert.equal(P.boardIdFromName('  Sprint 12 / Q3!  '), 'sprint-12-q3');
  assert.equal(P.boardIdFromName('Café déjà vu'), 'cafe-deja-vu');
  assert.equal(P.boardIdFromName('my_board--2'), 'my_board-2');
  assert.equal(P.boardIdFromName('플레이리스트'), null);
  assert.equal(P.boardIdFromName(''), null);
  assert.equal(P.boardIdFromName(null), null);
  const long = P.boardIdFromName(`${'a'.repeat(63)} b`);
  assert.equal(long, 'a'.repeat(63));
  assert.ok(P.isValidId(P.boardIdFromName('x'.repeat(300))));
});

test('board API helpers: the new-board body, list pages and the share link', () => {
  assert.deepEqual(P.newBoardRequest('kanban', '  Sprint  ', 'sprint'), { template: 'kanban', title: 'Sprint', id: 'sprint' });
  assert.deepEqual(P.newBoardRequest('paint', '   ', null), { template: 'paint' });
  assert.equal(P.boardsPagePath(null, 20), '/api/boards?limit=20');
  assert.equal(P.boardsPagePath('b-7', 20), '/api/boards?after=b-7&limit=20');
  assert.equal(P.boardsPagePath(), '/api/boards');
  assert.equal(P.boardLink({ origin: 'http://127.0.0.1:8080', pathname: '/' }, 'team-retro'), 'http://127.0.0.1:8080/?board=team-retro');
  assert.equal(P.boardLink({ origin: 'http://h', pathname: '/' }, 'p1', 'paint'), 'http://h/?board=p1&mode=paint');
});

test('an access token comes from the fragment and goes into hello, links and API headers', async () => {
  const P = await import('../../web/protocol.js');
  const loc = { origin: 'https://b.example', pathname: '/', hash: '#token=v1.abc.DEF-_' };
  assert.equal(P.tokenFrom(loc), 'v1.abc.DEF-_');
  assert.equal(P.tokenFrom({ hash: '' }), null);
  assert.equal(P.tokenFrom({ hash: '#token=<script>' }), null, 'nothing but token characters');
  assert.deepEqual(P.hello('demo', 'Ada', 3, 'v1.x.y'), { type: 'hello', board: 'demo', name: 'Ada', since: 3, token: 'v1.x.y' });
  assert.deepEqual(P.hello('demo', 'Ada'), { type: 'hello', board: 'demo', name: 'Ada' });
  assert.equal(P.boardLink(loc, 'demo', null, 'v1.x.y'), 'https://b.example/?board=demo#token=v1.x.y');
  assert.equal(P.boardLink(loc, 'demo'), 'https://b.example/?board=demo');
  assert.deepEqual(P.apiHeaders('v1.x.y'), { accept: 'application/json', authorization: 'Bearer v1.x.y' });
  assert.deepEqual(P.apiHeaders(null), { accept: 'application/json' });
});
