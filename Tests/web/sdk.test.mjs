// Unit tests of the SDK's client (web/sdk/shuffleboard.js) over a fake WebSocket and a fake clock:
// hello and resume, reconnect with backoff, pending ops resent with their op ids, op promises,
// gaps, and tokens. Run with `node --test Tests/web/*.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, OpError, boardSocketURL, connect } from '../../web/sdk/shuffleboard.js';
import { FakeClock, FakeSocket } from './wiring.mjs';

const BOARD = { id: 'b1', title: 'b1', columns: 3, zones: [{ id: 'grid', items: ['t1', 't2', 't3'] }], items: [] };
const ANN = { id: 'u1', name: 'Ann', color: '#a00' };
const welcome = (fields) => ({ type: 'welcome', you: 'u1', seq: 0, drags: [], users: [ANN], ...fields });
const committed = (seq, by, body, op = `${by}-${seq}`) => ({ ...body, op, seq, by });
const tokenWith = (claims) => `v1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;

function setup(options = {}) {
  FakeSocket.made = [];
  const clock = new FakeClock();
  let n = 0;
  const client = connect({
    url: 'http://127.0.0.1:8080', board: 'b1', name: 'Ann',
    WebSocket: FakeSocket, setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout,
    now: () => clock.now, random: () => 0, newOpId: () => `op${++n}`, ...options,
  });
  const events = [];
  for (const type of ['welcome', 'op', 'close', 'expired', 'revoked', 'unauthorized', 'presence', 'dragStart']) {
    client.on(type, (v) => events.push([type, v]));
  }
  const socket = () => FakeSocket.made.at(-1);
  return { client, clock, events, socket };
}

/** Lets promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Where a promise is: ['resolved', v], ['rejected', e] or ['pending']. */
function watch(promise) {
  const box = { state: ['pending'] };
  promise.then((v) => { box.state = ['resolved', v]; }, (e) => { box.state = ['rejected', e]; });
  return box;
}

test('the server URL becomes its WebSocket URL, naming the board for a load balancer', () => {
  assert.equal(boardSocketURL('http://127.0.0.1:8080', 'b1'), 'ws://127.0.0.1:8080/ws?board=b1');
  assert.equal(boardSocketURL('https://boards.example/', 'a b'), 'wss://boards.example/ws?board=a+b');
  assert.equal(boardSocketURL('ws://127.0.0.1:9/ws?board=x', 'b1'), 'ws://127.0.0.1:9/ws?board=x');
  assert.equal(boardSocketURL('http://h/boards/ws', 'b1'), 'ws://h/boards/ws?board=b1');
  assert.throws(() => boardSocketURL('ftp://h', 'b1'), TypeError);
  assert.throws(() => new Client({ url: 'http://h', name: 'Ann' }), TypeError);
});

test('a first hello has no since; a welcome opens the session and says who is here', () => {
  const { client, socket, events } = setup();
  assert.equal(socket().protocol, 'shuffleboard.v1');
  assert.equal(client.state, 'connecting');
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', board: 'b1', name: 'Ann' }]);
  socket().say(welcome({ seq: 4, board: BOARD }));
  assert.equal(client.state, 'open');
  assert.equal(client.seq, 4);
  assert.equal(client.you, 'u1');
  assert.deepEqual(events.map((e) => e[0]), ['welcome', 'presence']);
  assert.deepEqual(events[1][1], { users: [ANN], userCount: null });
});

test('a dropped connection reconnects with growing delays and resumes with since', () => {
  const { client, clock, socket, events } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }), committed(1, 'u2', { type: 'swap', a: 't1', b: 't2' }));
  assert.equal(client.seq, 1);
  socket().drop(1006);
  assert.equal(client.state, 'reconnecting');
  // Attempt 0 waits 125–250 ms (random 0: 125), attempt 1 250–500, and so on up to 5 s.
  clock.run(124);
  assert.equal(FakeSocket.made.length, 1);
  clock.run(1);
  assert.equal(FakeSocket.made.length, 2);
  socket().drop(1006); // refused before it opened
  clock.run(249);
  assert.equal(FakeSocket.made.length, 2);
  clock.run(1);
  assert.equal(FakeSocket.made.length, 3);
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', board: 'b1', name: 'Ann', since: 1 }]);
  socket().say(welcome({ seq: 2, ops: [committed(2, 'u2', { type: 'toggle', item: 't3', on: true })] }));
  assert.equal(client.seq, 2);
  assert.deepEqual(events.filter((e) => e[0] === 'op').map((e) => e[1].seq), [1, 2]);
  // A welcome resets the backoff.
  socket().drop(1006);
  clock.run(125);
  assert.equal(FakeSocket.made.length, 4);
});

test('a socket with no welcome in time is given up, said so, and tried again until a welcome comes', () => {
  const { client, clock, socket, events } = setup({ joinTimeout: 30_000 });
  const stalled = [];
  client.on('stalled', (v) => stalled.push(v));
  // Opened, hello sent, and nothing: a forwarded hello nobody answers (issue 29).
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', board: 'b1', name: 'Ann' }]);
  clock.run(29_999);
  assert.deepEqual(stalled, []);
  assert.equal(client.state, 'joining');
  clock.run(1);
  assert.deepEqual(stalled, [{ after: 30_000 }]);
  assert.deepEqual(socket().closedWith, { code: 1000, reason: 'no welcome in time' });
  assert.equal(client.state, 'reconnecting');
  assert.deepEqual(events.filter((e) => e[0] === 'close').map((e) => e[1]), [{ code: 1006, reason: 'no welcome in time' }]);
  // Its late close event changes nothing; the next socket comes after the backoff.
  socket().drop(1000);
  clock.run(125);
  assert.equal(FakeSocket.made.length, 2);
  // A socket that never even opens is given up the same way.
  clock.run(30_000);
  assert.equal(stalled.length, 2);
  assert.equal(FakeSocket.made[1].closedWith.reason, 'no welcome in time');
  clock.run(250);
  assert.equal(FakeSocket.made.length, 3);
  // A welcome ends it: no more timeouts, and the session is open.
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  clock.run(120_000);
  assert.equal(stalled.length, 2);
  assert.equal(client.state, 'open');
  assert.equal(FakeSocket.made.length, 3);
});

test('op() resolves with the committed op, and rejects with the reason of a reject or an error', async () => {
  const { client, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 3, board: BOARD }));
  const a = watch(client.op({ type: 'swap', a: 't1', b: 't2' }));
  const b = watch(client.op({ type: 'move', item: 't3', zone: 'grid', before: 't1' }));
  const c = watch(client.op({ type: 'edit', item: 't3', label: '' }));
  assert.deepEqual(socket().sent.slice(1), [
    { type: 'swap', a: 't1', b: 't2', op: 'op1', base: 3 },
    { type: 'move', item: 't3', zone: 'grid', before: 't1', op: 'op2', base: 3 },
    { type: 'edit', item: 't3', label: '', op: 'op3', base: 3 },
  ]);
  socket().say(
    committed(4, 'u1', { type: 'swap', a: 't1', b: 't2' }, 'op1'),
    { type: 'reject', op: 'op2', reason: 'held', by: 'u2', seq: 4 },
    { type: 'error', code: 'bad_message', message: '"label" must not be empty', op: 'op3' },
  );
  await settle();
  assert.deepEqual(a.state, ['resolved', { type: 'swap', a: 't1', b: 't2', op: 'op1', seq: 4, by: 'u1' }]);
  assert.equal(b.state[0], 'rejected');
  assert.ok(b.state[1] instanceof OpError);
  assert.deepEqual([b.state[1].kind, b.state[1].reason, b.state[1].by, b.state[1].seq], ['reject', 'held', 'u2', 4]);
  assert.deepEqual([c.state[1].kind, c.state[1].reason], ['error', 'bad_message']);
  assert.deepEqual(client.pending, []);
  await assert.rejects(client.op({ type: 'nope' }), TypeError);
});

test('ops not answered when the connection drops are resent after the welcome with their op ids and bases', async () => {
  const { client, clock, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  const first = watch(client.op({ type: 'swap', a: 't1', b: 't2' }));
  const second = watch(client.op({ type: 'toggle', item: 't3', on: true }));
  socket().drop(1006);
  // Made while down: kept, sent after the next welcome.
  const third = watch(client.op({ type: 'toggle', item: 't1', on: true }));
  clock.run(250);
  socket().open();
  assert.deepEqual(socket().sent, [{ type: 'hello', board: 'b1', name: 'Ann', since: 0 }], 'nothing before the welcome');
  // The first op was committed before the drop: the resume carries it, so it is not resent.
  socket().say(welcome({ seq: 1, ops: [committed(1, 'u1', { type: 'swap', a: 't1', b: 't2' }, 'op1')] }));
  assert.deepEqual(socket().sent.slice(1), [
    { type: 'toggle', item: 't3', on: true, op: 'op2', base: 0 },
    { type: 'toggle', item: 't1', on: true, op: 'op3', base: 0 },
  ]);
  // Submitting one again on the same connection sends nothing more (the bundled page does).
  client.submit({ type: 'toggle', item: 't3', on: true, op: 'op2', base: 0 });
  assert.equal(socket().sent.length, 3);
  // The server had committed op2 too (its broadcast was lost with the socket): it acknowledges.
  socket().say({ type: 'ack', op: 'op2', seq: 1 }, committed(2, 'u3', { type: 'toggle', item: 't1', on: true }, 'op3'));
  await settle();
  assert.deepEqual(first.state, ['resolved', { type: 'swap', a: 't1', b: 't2', op: 'op1', seq: 1, by: 'u1' }]);
  assert.deepEqual(second.state, ['resolved', { type: 'toggle', item: 't3', on: true, op: 'op2', base: 0, seq: 1, ack: true }]);
  assert.equal(third.state[1].seq, 2);
  assert.deepEqual(client.pending, []);
});

test('a drop that carries an op is resent as a plain op after a reconnect', async () => {
  const { client, clock, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  client.dragStart('t1');
  const p = watch(client.drop('t1', { type: 'swap', with: 't3' }));
  assert.deepEqual(socket().sent.slice(1), [
    { type: 'dragStart', item: 't1' },
    { type: 'drop', item: 't1', op: 'op1', base: 0, action: { type: 'swap', with: 't3' } },
  ]);
  socket().drop(1012);
  clock.run(250);
  socket().open();
  socket().say(welcome({ seq: 0, ops: [] }));
  assert.deepEqual(socket().sent.at(-1), { type: 'swap', a: 't1', b: 't3', op: 'op1', base: 0 });
  socket().say(committed(1, 'u9', { type: 'swap', a: 't1', b: 't3' }, 'op1'));
  await settle();
  assert.equal(p.state[0], 'resolved');
});

test('an ack for a seq not applied yet waits for its broadcast', async () => {
  const { client, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  const p = watch(client.op({ type: 'toggle', item: 't1', on: true }));
  socket().say({ type: 'ack', op: 'op1', seq: 1 });
  await settle();
  assert.deepEqual(p.state, ['pending']);
  socket().say(committed(1, 'u1', { type: 'toggle', item: 't1', on: true }, 'op1'));
  await settle();
  assert.equal(p.state[1].seq, 1);
});

test('a gap in the live stream resumes from the last seq applied; a resume with a gap asks for the board', () => {
  const { client, clock, socket, events } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  socket().say(committed(2, 'u2', { type: 'toggle', item: 't1', on: true }), committed(3, 'u2', { type: 'toggle', item: 't2', on: true }));
  assert.deepEqual(socket().closedWith, { code: 1000, reason: 'resync' });
  assert.equal(client.seq, 0);
  assert.deepEqual(events.filter((e) => e[0] === 'op'), [], 'nothing after the gap is passed on');
  socket().drop(1000);
  clock.run(250);
  socket().open();
  assert.equal(socket().sent[0].since, 0);
  // This resume skips seq 1: the next hello goes without since.
  socket().say(welcome({ seq: 2, ops: [committed(2, 'u2', { type: 'toggle', item: 't1', on: true })] }));
  assert.equal(socket().closedWith.reason, 'resync');
  socket().drop(1000);
  clock.run(250);
  socket().open();
  assert.deepEqual(socket().sent[0], { type: 'hello', board: 'b1', name: 'Ann' });
  socket().say(welcome({ seq: 3, board: BOARD }));
  assert.equal(client.seq, 3);
});

test('a client given since resumes from it on its first hello', () => {
  const { socket } = setup({ since: 7 });
  socket().open();
  assert.equal(socket().sent[0].since, 7);
});

test('ops made before the first welcome get the base of the board they are sent to', () => {
  const { client, socket } = setup();
  client.op({ type: 'swap', a: 't1', b: 't2' });
  socket().open();
  socket().say(welcome({ seq: 9, board: BOARD }));
  assert.deepEqual(socket().sent[1], { type: 'swap', a: 't1', b: 't2', op: 'op1', base: 9 });
});

test('close() stops reconnecting and rejects what is pending', async () => {
  const { client, clock, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  const p = watch(client.op({ type: 'toggle', item: 't1', on: true }));
  client.close();
  assert.equal(client.state, 'closed');
  socket().drop(1000);
  clock.run(60_000);
  assert.equal(FakeSocket.made.length, 1);
  await settle();
  assert.equal(p.state[1].reason, 'closed');
});

test('with getToken the client refreshes at 70–80% of the token\'s life and keeps its session', async () => {
  const clockNow = 1_764_000_000_000;
  const first = tokenWith({ b: 'b1', r: 'edit', e: clockNow / 1000 + 10 });
  const fresh = tokenWith({ b: 'b1', r: 'edit', e: clockNow / 1000 + 3600 });
  let asked = 0;
  const { client, clock, socket } = setup({ token: first, getToken: () => { asked += 1; return fresh; } });
  socket().open();
  assert.equal(socket().sent[0].token, first);
  socket().say(welcome({ seq: 0, board: BOARD }));
  clock.run(7_999); // random 0: at 80% of 10 s
  await settle();
  assert.equal(asked, 0);
  clock.run(1);
  await settle();
  assert.equal(asked, 1);
  assert.deepEqual(socket().sent.at(-1), { type: 'auth', token: fresh });
  assert.equal(client.token, first, 'not the session\'s until the server takes it');
  socket().say({ type: 'auth', role: 'edit', exp: clockNow / 1000 + 3600 });
  assert.equal(client.token, fresh);
  assert.equal(FakeSocket.made.length, 1);
});

test('with getToken and no token, one is asked for before the hello', async () => {
  const t = tokenWith({ b: 'b1', r: 'edit', e: 2_000_000_000 });
  const { socket } = setup({ getToken: async () => t });
  assert.equal(FakeSocket.made.length, 0);
  await settle();
  socket().open();
  assert.equal(socket().sent[0].token, t);
});

test('without getToken, a 4401 for an expired or revoked token stops the client and says so', () => {
  for (const [message, event] of [['token expired', 'expired'], ['token revoked', 'revoked'], ['bad token', 'unauthorized']]) {
    const t = tokenWith({ b: 'b1', r: 'edit', e: 1_764_000_000 + 5 });
    const { client, clock, socket, events } = setup({ token: t });
    socket().open();
    socket().say(welcome({ seq: 0, board: BOARD }));
    socket().say({ type: 'error', code: 'unauthorized', message });
    socket().drop(4401);
    assert.equal(client.state, event);
    assert.ok(events.some((e) => e[0] === event), event);
    clock.run(60_000);
    assert.equal(FakeSocket.made.length, 1, `${event}: no reconnect`);
  }
});

test('with getToken, a 4401 fetches one fresh token and reconnects with it once', async () => {
  const t = tokenWith({ b: 'b1', r: 'edit', e: 1_764_000_000 + 5 });
  const fresh = tokenWith({ b: 'b1', r: 'edit', e: 1_764_000_000 + 3600 });
  const { client, socket } = setup({ token: t, getToken: () => fresh });
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  socket().say({ type: 'error', code: 'unauthorized', message: 'token expired' });
  socket().drop(4401);
  await settle();
  assert.equal(FakeSocket.made.length, 2);
  socket().open();
  assert.deepEqual(socket().sent[0], { type: 'hello', board: 'b1', name: 'Ann', since: 0, token: fresh });
  // Refused again: it ends there.
  socket().drop(4401);
  await settle();
  assert.equal(FakeSocket.made.length, 2);
  assert.equal(client.state, 'unauthorized');
});

test('presence follows joins, leaves, large boards and holders named by their hand', () => {
  const { client, socket, events } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  const BO = { id: 'u2', name: 'Bo', color: '#0b0' };
  socket().say({ type: 'join', user: BO });
  assert.deepEqual(events.at(-1), ['presence', { users: [ANN, BO], userCount: null }]);
  socket().say({ type: 'dragStart', item: 't1', by: 'u7', at: 0, user: { id: 'u7', name: 'Cy', color: '#00c' } });
  assert.deepEqual(client.drags, new Map([['t1', 'u7']]));
  assert.equal(events.at(-1)[1].users.length, 3);
  socket().say({ type: 'presence', userCount: 70 }, { type: 'leave', user: BO });
  assert.deepEqual(events.at(-1), ['presence', { users: [ANN, { id: 'u7', name: 'Cy', color: '#00c' }], userCount: 70 }]);
  socket().say({ type: 'drop', item: 't1', by: 'u7', at: 0 });
  assert.equal(client.drags.size, 0);
});

test('a bad_base reject refuses the op and starts over from the board', async () => {
  const { client, clock, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 5, board: BOARD }));
  const p = watch(client.op({ type: 'toggle', item: 't1', on: true }));
  socket().say({ type: 'reject', op: 'op1', reason: 'bad_base', seq: 0 }, committed(6, 'u2', { type: 'toggle', item: 't2', on: true }));
  await settle();
  assert.equal(p.state[1].reason, 'bad_base');
  assert.deepEqual(socket().closedWith, { code: 1000, reason: 'resync' });
  assert.equal(client.seq, 5, 'what the old socket said after it is ignored');
  socket().drop(1000);
  clock.run(250);
  socket().open();
  assert.deepEqual(socket().sent[0], { type: 'hello', board: 'b1', name: 'Ann' });
});

test('an op the server may or may not have stored (error unavailable) stays, and is resent after the reconnect', async () => {
  const { client, clock, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  const p = watch(client.op({ type: 'toggle', item: 't1', on: true }));
  socket().say({ type: 'error', code: 'unavailable', message: 'the board moved', op: 'op1' });
  socket().drop(1012);
  await settle();
  assert.deepEqual(p.state, ['pending']);
  clock.run(250);
  socket().open();
  socket().say(welcome({ seq: 1, ops: [committed(1, 'u1', { type: 'toggle', item: 't1', on: true }, 'op1')] }));
  await settle();
  assert.equal(p.state[1].seq, 1, 'the resume shows it was stored');
  assert.equal(socket().sent.length, 1, 'so it is not sent again');
});

test('an op refused unavailable on a connection that stays open (the store is behind) is sent again on it a second later', async () => {
  const { client, clock, socket } = setup();
  socket().open();
  socket().say(welcome({ seq: 0, board: BOARD }));
  const p = watch(client.op({ type: 'toggle', item: 't1', on: true }));
  assert.equal(socket().sent.filter((m) => m.op === 'op1').length, 1);
  socket().say({ type: 'error', code: 'unavailable', message: 'the store is behind', op: 'op1' });
  await settle();
  assert.deepEqual(p.state, ['pending']);
  clock.run(999);
  assert.equal(socket().sent.filter((m) => m.op === 'op1').length, 1, 'not before the pause');
  clock.run(1);
  const again = socket().sent.filter((m) => m.op === 'op1');
  assert.equal(again.length, 2, 'sent again on the same connection');
  assert.deepEqual(again[1], again[0], 'with the same op id and base');
  socket().say(committed(1, 'u1', { type: 'toggle', item: 't1', on: true }, 'op1'));
  await settle();
  assert.equal(p.state[1].seq, 1);
  clock.run(5000);
  assert.equal(socket().sent.filter((m) => m.op === 'op1').length, 2, 'and not again once committed');
});

test('a frame may batch messages; a frame that is not JSON is a warning, not a crash', () => {
  const { client, socket } = setup();
  const warnings = [];
  client.on('warning', (w) => warnings.push(w.message));
  socket().open();
  socket().fire('message', { data: 'not json' });
  socket().say(welcome({ seq: 0, board: BOARD }), committed(1, 'u2', { type: 'toggle', item: 't1', on: true }));
  assert.equal(client.seq, 1);
  assert.deepEqual(warnings, ['a frame that is not JSON']);
});

test('the types declare exactly what the module exports', async () => {
  const { readFile } = await import('node:fs/promises');
  const dts = await readFile(new URL('../../web/sdk/shuffleboard.d.ts', import.meta.url), 'utf8');
  const declared = new Set([...dts.matchAll(/^export (?:function|class|const) (\w+)/gm)].map((m) => m[1]));
  const exported = new Set(Object.keys(await import('../../web/sdk/shuffleboard.js')));
  assert.deepEqual([...exported].filter((n) => !declared.has(n)).sort(), [], 'exported but not typed');
  assert.deepEqual([...declared].filter((n) => !exported.has(n)).sort(), [], 'typed but not exported');
});
