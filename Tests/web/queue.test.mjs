// Unit tests of the durable queue (web/sdk/queue.js) over a fake IndexedDB (fake-indexeddb.mjs), and
// of the SDK client with one: what it keeps, forgets and takes back after a reload. The real
// IndexedDB is exercised by Tests/browser/test_offline.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingStore, QueueFullError } from '../../web/sdk/queue.js';
import { Client } from '../../web/sdk/shuffleboard.js';
import { pendingItems, refusedSentence } from '../../web/pending.js';
import { plain } from '../../web/bidi.js';
import { fakeIndexedDB } from './fake-indexeddb.mjs';
import { FakeSocket, clientOf, hear, onSocket, reopen, wire } from './wiring.mjs';
import { Session } from '../../web/session.js';

const swap = (op, base, a, b) => ({ type: 'swap', op, base, a, b });
const BOARD = { id: 'b1', title: 'b1', columns: 3, zones: [{ id: 'grid', items: ['t1', 't2'] }], items: [{ id: 't1', label: 'Fix the login page' }, { id: 't2', label: 'B' }] };

test('ops are kept in the order they were made, per board, until deleted; a reopened store has them', async () => {
  const idb = fakeIndexedDB();
  let t = 0;
  const store = await PendingStore.open('b1', { indexedDB: idb, now: () => t });
  const other = await PendingStore.open('b2', { indexedDB: idb, now: () => t });
  await store.put(swap('x3', 0, 't1', 't2'));
  await store.put(swap('x1', 0, 't3', 't4')); // same millisecond: still after
  t = 5;
  await other.put(swap('y1', 0, 't1', 't2'));
  await store.put(swap('x2', 1, 't5', 't6'));
  assert.deepEqual((await store.ops()).map((m) => m.op), ['x3', 'x1', 'x2']);
  assert.deepEqual((await other.ops()).map((m) => m.op), ['y1']);
  // The same op id again keeps its place; its message is the new one (a base filled in).
  await store.put(swap('x3', 4, 't1', 't2'));
  assert.deepEqual((await store.ops()).map((m) => [m.op, m.base]), [['x3', 4], ['x1', 0], ['x2', 1]]);
  await store.delete('x1');
  await store.delete('nothing');
  store.close();
  const again = await PendingStore.open('b1', { indexedDB: idb });
  assert.deepEqual(await again.ops(), [swap('x3', 4, 't1', 't2'), swap('x2', 1, 't5', 't6')]);
});

test('the last board saved comes back; none before one is saved', async () => {
  const idb = fakeIndexedDB();
  const store = await PendingStore.open('b1', { indexedDB: idb });
  assert.equal(await store.loadBoard(), null);
  await store.saveBoard(BOARD, 7);
  BOARD.title = 'changed after saving';
  const saved = await (await PendingStore.open('b1', { indexedDB: idb })).loadBoard();
  assert.equal(saved.seq, 7);
  assert.equal(saved.board.title, 'b1');
  BOARD.title = 'b1';
});

test('a full queue refuses the next op and keeps the ones it has; no IndexedDB is an error', async () => {
  const store = await PendingStore.open('b1', { indexedDB: fakeIndexedDB(), limit: 2 });
  await store.put(swap('a', 0, 't1', 't2'));
  await store.put(swap('b', 0, 't1', 't2'));
  await assert.rejects(store.put(swap('c', 0, 't1', 't2')), QueueFullError);
  await store.put(swap('a', 1, 't1', 't2')); // one it has already: not a new one
  assert.deepEqual((await store.ops()).map((m) => m.op), ['a', 'b']);
  await assert.rejects(PendingStore.open('b1', { indexedDB: null }), /no IndexedDB/);
  await assert.rejects(store.put({ type: 'swap' }), TypeError);
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 5));
const welcome = (fields) => ({ type: 'welcome', you: 'u1', users: [], drags: [], ...fields });

test('a client with a queue keeps each op until it is answered; a later client takes back the rest and sends them with their op ids', async () => {
  const idb = fakeIndexedDB();
  const store = await PendingStore.open('b1', { indexedDB: idb });
  let n = 0;
  const options = { url: 'http://127.0.0.1:1', board: 'b1', name: 'Ann', setTimeout: () => 0, clearTimeout: () => {} };
  const first = new Client({ ...options, WebSocket: FakeSocket, queue: store, newOpId: () => `op${++n}` });
  first.start();
  FakeSocket.made.at(-1).open();
  FakeSocket.made.at(-1).say(welcome({ seq: 3, board: BOARD }));
  first.op({ type: 'swap', a: 't1', b: 't2' });
  first.op({ type: 'swap', a: 't2', b: 't1' });
  first.op({ type: 'move', item: 't1', zone: 'grid', before: null });
  await flush();
  assert.deepEqual((await store.ops()).map((m) => m.op), ['op1', 'op2', 'op3']);
  // Committed, and refused: forgotten. Unanswered when the page goes: kept.
  FakeSocket.made.at(-1).say({ type: 'swap', op: 'op1', a: 't1', b: 't2', seq: 4, by: 'u1' });
  FakeSocket.made.at(-1).say({ type: 'reject', op: 'op2', reason: 'conflict', seq: 4, by: 'u2' });
  first.close();
  await flush();
  assert.deepEqual(await store.ops(), [{ type: 'move', item: 't1', zone: 'grid', before: null, op: 'op3', base: 3 }]);

  // The next page (a reload): the kept op goes out after the welcome, once, with its id and base.
  const again = await PendingStore.open('b1', { indexedDB: idb });
  const second = new Client({ ...options, WebSocket: FakeSocket, queue: again, since: 4 });
  assert.deepEqual((await second.restore()).map((m) => m.op), ['op3']);
  second.start();
  FakeSocket.made.at(-1).open();
  assert.deepEqual(FakeSocket.made.at(-1).sent, [{ type: 'hello', board: 'b1', name: 'Ann', since: 4 }]);
  FakeSocket.made.at(-1).say(welcome({ seq: 4, ops: [] }));
  assert.deepEqual(FakeSocket.made.at(-1).sent.slice(1), [{ type: 'move', item: 't1', zone: 'grid', before: null, op: 'op3', base: 3 }]);
  // The server had committed it before (its answer was lost): `ack`, nothing applied twice, forgotten.
  FakeSocket.made.at(-1).say({ type: 'ack', op: 'op3', seq: 4 });
  await flush();
  assert.deepEqual(await again.ops(), []);
  assert.deepEqual(second.pending, []);
});

test('pending cards and refusals in plain words', () => {
  const add = { type: 'add', op: 'o2', base: 0, zone: 'grid', before: 't3', item: { label: 'x' } };
  assert.deepEqual([...pendingItems([swap('o1', 0, 't1', 't2'), add])], ['t1', 't2', '~o2']);
  const move = { type: 'move', op: 'o3', base: 0, item: 't1', zone: 'grid', before: null };
  assert.equal(plain(refusedSentence(move, BOARD, 'conflict', 'Bo')), "Your move of Fix the login page conflicted with Bo's; it was not applied.");
  assert.equal(plain(refusedSentence(move, BOARD, 'conflict', null)), 'Your move of Fix the login page conflicted with a change made meanwhile; it was not applied.');
  assert.equal(plain(refusedSentence({ type: 'retitle', op: 'o4', base: 0, title: 'X' }, BOARD, 'stale', null)), 'Your board rename was not applied: the board had changed too much meanwhile.');
  assert.equal(plain(refusedSentence({ type: 'add', op: 'o5', base: 0, zone: 'gone', before: null, item: { label: 'Buy milk' } }, BOARD, 'unknown_zone', null)), 'Your new card Buy milk was not applied: what it changed is gone.');
});

test('a page shows the saved board with the kept ops on top; its client resumes from it, and a resume that carries one confirms it', async () => {
  const board = { id: 'b1', title: 'b1', columns: 3, zones: [{ id: 'grid', items: ['t1', 't2', 't3'] }], items: ['t1', 't2', 't3'].map((id) => ({ id, label: id })) };
  const kept = [swap('k1', 4, 't1', 't2'), swap('k2', 4, 't2', 't3')];
  // What a page before this one left in IndexedDB (pending.js): the board it saw and two ops.
  const store = await PendingStore.open('b1', { indexedDB: fakeIndexedDB() });
  await store.saveBoard(board, 4);
  for (const op of kept) await store.put(op);
  // This page, as pending.js and connection.js start it.
  const saved = await store.loadBoard();
  const s = new Session();
  const fx = s.loadSaved(saved.board, saved.seq, await store.ops());
  assert.deepEqual(fx.map((e) => e.type), ['render']);
  assert.deepEqual(s.scene().board.zones[0].items, ['t3', 't1', 't2']);
  assert.deepEqual(s.loadSaved(board, 0, []), [], 'once only');
  wire(s, { queue: store });
  await clientOf(s).restore();
  assert.equal(reopen(s).since, 4);
  // k1 was committed before the page went (its answer lost, by the page's old user id); k2 was not.
  hear(s, { type: 'welcome', you: 'u9', seq: 5, users: [], drags: [], ops: [{ ...swap('k1', 4, 't1', 't2'), seq: 5, by: 'u1' }] });
  assert.deepEqual(s.state.pending.map((p) => p.op), ['k2']);
  assert.deepEqual(onSocket(s), [swap('k2', 4, 't2', 't3')]);
  await flush();
  assert.deepEqual((await store.ops()).map((m) => m.op), ['k2'], 'the queue keeps k2 until it is answered');
});
