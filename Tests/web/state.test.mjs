// Unit tests of web/state.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyOp, BoardState, canRevert, cloneBoard, inverseOp, moveTarget, opBody, opMovesItem, previewRemoteMoves,
  UndoHistory,
} from '../../web/state.js';
import { OP_TYPES } from '../../web/sdk/ops.js';

function board() {
  const ids = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);
  return {
    id: 'b', title: 'b', columns: 3,
    zones: [{ id: 'grid', items: ids.slice() }, { id: 'tray', items: [] }],
    items: ids.map((id) => ({ id, label: id, color: '#000', on: false })),
  };
}
const grid = (b) => b.zones[0].items.join(' ');
const tray = (b) => b.zones[1].items.join(' ');
const committed = (seq, by, op, fields) => ({ ...fields, seq, by, op });

test('applyOp swaps, moves (anchor or append) and toggles like the server', () => {
  const b = board();
  assert.equal(applyOp(b, { type: 'swap', a: 't1', b: 't3' }), true);
  assert.equal(grid(b), 't3 t2 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  applyOp(b, { type: 'move', item: 't1', zone: 'tray', before: null });
  applyOp(b, { type: 'move', item: 't2', zone: 'tray', before: 't1' });
  assert.equal(tray(b), 't2 t1');
  applyOp(b, { type: 'swap', a: 't2', b: 't12' });
  assert.equal(tray(b), 't12 t1');
  assert.equal(grid(b), 't3 t4 t5 t6 t7 t8 t9 t10 t11 t2');
  applyOp(b, { type: 'toggle', item: 't5', on: true });
  assert.equal(b.items[4].on, true);
});

test('applyOp skips ops that no longer make sense and appends when the anchor moved away', () => {
  const b = board();
  assert.equal(applyOp(b, { type: 'swap', a: 't1', b: 'nope' }), false);
  assert.equal(applyOp(b, { type: 'swap', a: 't1', b: 't1' }), false);
  assert.equal(applyOp(b, { type: 'move', item: 't1', zone: 'grid', before: 't1' }), false);
  applyOp(b, { type: 'move', item: 't1', zone: 'tray', before: 't5' });
  assert.equal(tray(b), 't1');
});

test('moveTarget takes the hovered index, inserting after later items in the same zone', () => {
  const b = board();
  assert.deepEqual(moveTarget(b, 't1', 't3'), { zone: 'grid', before: 't4' });
  assert.deepEqual(moveTarget(b, 't4', 't2'), { zone: 'grid', before: 't2' });
  assert.deepEqual(moveTarget(b, 't1', 't12'), { zone: 'grid', before: null });
  assert.equal(moveTarget(b, 't1', 't1'), null);
  assert.deepEqual(moveTarget(b, 't1', null, 'tray'), { zone: 'tray', before: null });
  assert.equal(moveTarget(b, 't12', null, 'grid'), null);
  applyOp(b, { type: 'move', item: 't5', zone: 'tray', before: null });
  assert.deepEqual(moveTarget(b, 't1', 't5'), { zone: 'tray', before: 't5' });
  // Applying the target gives the hovered slot.
  const op = { type: 'move', item: 't1', ...moveTarget(b, 't1', 't3') };
  applyOp(b, op);
  assert.equal(grid(b), 't2 t3 t1 t4 t6 t7 t8 t9 t10 t11 t12');
});

test('moveTarget: hovering the next item swaps neighbours', () => {
  const b = board();
  // t1 over t2 lands after t2.
  assert.deepEqual(moveTarget(b, 't1', 't2'), { zone: 'grid', before: 't3' });
});

test('previewRemoteMoves shows a move-mode hover where its drop would put the item', () => {
  const b = board();
  const frozen = JSON.stringify(b);
  // Forward in the same zone: takes the hovered index (after t3), as the holder sees it.
  let p = previewRemoteMoves(b, [{ item: 't1', over: 't3', zone: 'grid', mode: 'move' }]);
  assert.equal(grid(p), 't2 t3 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  // Backward: before the hovered item.
  p = previewRemoteMoves(b, [{ item: 't6', over: 't2', zone: 'grid', mode: 'move' }]);
  assert.equal(grid(p), 't1 t6 t2 t3 t4 t5 t7 t8 t9 t10 t11 t12');
  // over null: the end of the zone (here another zone).
  p = previewRemoteMoves(b, [{ item: 't4', over: null, zone: 'tray', mode: 'move' }]);
  assert.equal(tray(p), 't4');
  assert.equal(grid(p), 't1 t2 t3 t5 t6 t7 t8 t9 t10 t11 t12');
  // The confirmed board is never touched; the preview copies the zones' lists only and shares
  // the cards (a 10,000-card board is not copied for each drop target).
  assert.equal(JSON.stringify(b), frozen);
  assert.equal(p.items, b.items);
  assert.notEqual(p.zones[0].items, b.zones[0].items);
  // Each preview equals the committed move a drop there makes.
  const committed = cloneBoard(b);
  applyOp(committed, { type: 'move', item: 't1', ...moveTarget(b, 't1', 't3') });
  assert.deepEqual(previewRemoteMoves(b, [{ item: 't1', over: 't3', zone: 'grid', mode: 'move' }]), committed);
});

test('previewRemoteMoves ignores swap mode, no mode, own place and unknown items', () => {
  const b = board();
  for (const h of [
    { item: 't1', over: 't3', zone: 'grid', mode: 'swap' },
    { item: 't1', over: 't3', zone: 'grid' },
    { item: 't1', over: 't1', zone: 'grid', mode: 'move' },
    { item: 't1', over: 't2', zone: 'grid', mode: 'paint' },
    { item: 'nope', over: 't3', zone: 'grid', mode: 'move' },
    { item: 't1', over: 'nope', zone: 'grid', mode: 'move' },
    { item: 't1', over: null, zone: 'nope', mode: 'move' },
    { item: 't12', over: null, zone: 'grid', mode: 'move' },
    null,
  ]) {
    assert.equal(previewRemoteMoves(b, [h]), b, JSON.stringify(h));
  }
  assert.equal(previewRemoteMoves(b, []), b);
  assert.equal(previewRemoteMoves(b, undefined), b);
});

test('previewRemoteMoves applies several previews in order', () => {
  const b = board();
  const p = previewRemoteMoves(b, [
    { item: 't1', over: null, zone: 'tray', mode: 'move' },
    { item: 't5', over: 't1', zone: 'tray', mode: 'move' },
    { item: 't9', over: 't2', zone: 'grid', mode: 'swap' },
  ]);
  assert.equal(tray(p), 't5 t1');
  assert.equal(grid(p), 't2 t3 t4 t6 t7 t8 t9 t10 t11 t12');
  assert.equal(grid(b), 't1 t2 t3 t4 t5 t6 t7 t8 t9 t10 t11 t12');
});

test('opMovesItem: the ops that settle a preview of an item', () => {
  assert.equal(opMovesItem({ type: 'move', item: 't1', zone: 'grid', before: 't3' }, 't1'), true);
  assert.equal(opMovesItem({ type: 'move', item: 't2', zone: 'grid', before: 't1' }, 't1'), false);
  assert.equal(opMovesItem({ type: 'swap', a: 't2', b: 't1' }, 't1'), true);
  assert.equal(opMovesItem({ type: 'toggle', item: 't1', on: true }, 't1'), false);
});

test('inverseOp restores the previous board', () => {
  const cases = [
    { type: 'swap', a: 't2', b: 't9' },
    { type: 'move', item: 't4', zone: 'tray', before: null },
    { type: 'move', item: 't12', zone: 'grid', before: 't1' },
    { type: 'move', item: 't1', zone: 'grid', before: null },
    { type: 'toggle', item: 't3', on: true },
  ];
  for (const op of cases) {
    const before = board();
    const after = cloneBoard(before);
    applyOp(after, op);
    applyOp(after, inverseOp(op, before));
    assert.deepEqual(after, before, JSON.stringify(op));
  }
});

test('the view is the confirmed board with pending ops replayed; remote ops do not undo them', () => {
  const s = new BoardState();
  s.reset(board(), 0);
  s.addPending({ type: 'swap', op: 'mine', base: 0, a: 't1', b: 't2' });
  assert.equal(grid(s.view()).slice(0, 5), 't2 t1');
  // Someone else's op lands first.
  const r = s.applyCommitted(committed(1, 'u2', 'theirs', { type: 'swap', a: 't11', b: 't12' }));
  assert.equal(r.status, 'applied');
  assert.equal(r.own, null);
  assert.equal(grid(s.view()), 't2 t1 t3 t4 t5 t6 t7 t8 t9 t10 t12 t11');
  assert.equal(grid(s.board), 't1 t2 t3 t4 t5 t6 t7 t8 t9 t10 t12 t11');
  // Our ack: pending gone, view unchanged.
  const mine = s.applyCommitted(committed(2, 'u1', 'mine', { type: 'swap', a: 't1', b: 't2' }));
  assert.equal(mine.own.op, 'mine');
  assert.equal(s.pending.length, 0);
  assert.equal(grid(s.view()), 't2 t1 t3 t4 t5 t6 t7 t8 t9 t10 t12 t11');
  assert.equal(s.seq, 2);
});

test('committed ops apply strictly in seq order: duplicates ignored, gaps reported', () => {
  const s = new BoardState();
  s.reset(board(), 5);
  assert.equal(s.applyCommitted(committed(5, 'u2', 'x', { type: 'toggle', item: 't1', on: true })).status, 'duplicate');
  assert.equal(s.applyCommitted(committed(7, 'u2', 'y', { type: 'toggle', item: 't1', on: true })).status, 'gap');
  assert.equal(s.seq, 5);
  assert.equal(s.view().items[0].on, false);
  assert.equal(s.applyCommitted(committed(6, 'u2', 'z', { type: 'toggle', item: 't1', on: true })).status, 'applied');
  assert.equal(s.view().items[0].on, true);
});

test('a reject drops the pending op and the view goes back', () => {
  const s = new BoardState();
  s.reset(board(), 0);
  s.addPending({ type: 'move', op: 'm', base: 0, item: 't1', zone: 'tray', before: null });
  assert.equal(tray(s.view()), 't1');
  assert.equal(s.reject('m').op, 'm');
  assert.equal(tray(s.view()), '');
  assert.equal(s.reject('m'), null);
});

test('an ack for an op already applied clears it; a later one waits for the broadcast', () => {
  const s = new BoardState();
  s.reset(board(), 3);
  s.addPending({ type: 'toggle', op: 'a', base: 2, item: 't1', on: true });
  s.addPending({ type: 'toggle', op: 'b', base: 2, item: 't2', on: true });
  assert.equal(s.ack('a', 3).op, 'a');
  assert.equal(s.ack('b', 4), null);
  assert.equal(s.isPending('b'), true);
});

test('a reset keeps pending ops so they can be resent, and the view replays them', () => {
  const s = new BoardState();
  s.reset(board(), 0);
  s.addPending({ type: 'toggle', op: 'a', base: 0, item: 't1', on: true });
  const fresh = board();
  fresh.items[1].on = true;
  s.reset(fresh, 9);
  assert.equal(s.seq, 9);
  assert.deepEqual(s.view().items.slice(0, 2).map((i) => i.on), [true, true]);
});

test('undo: a change can be reverted unless someone else touched its tiles since', () => {
  const s = new BoardState();
  s.reset(board(), 0);
  const h = new UndoHistory();
  const op = { type: 'swap', op: 'o1', base: 0, a: 't1', b: 't2' };
  h.record([{ op, inverse: inverseOp(op, s.view()) }]);
  s.addPending(op);
  assert.equal(canRevert(h.peekUndo(), s, 'u1').why, 'pending');
  s.applyCommitted(committed(1, 'u1', 'o1', op));
  h.committed('o1', 1);
  assert.deepEqual(canRevert(h.peekUndo(), s, 'u1'), { ok: true });
  s.applyCommitted(committed(2, 'u2', 'x', { type: 'toggle', item: 't9', on: true }));
  assert.deepEqual(canRevert(h.peekUndo(), s, 'u1'), { ok: true });
  s.applyCommitted(committed(3, 'u2', 'y', { type: 'move', item: 't2', zone: 'tray', before: null }));
  assert.deepEqual(canRevert(h.peekUndo(), s, 'u1'), { ok: false, why: 'changed', by: 'u2' });
});

test('undo history: a paint stroke is one change; rejects prune; new changes clear redo', () => {
  const h = new UndoHistory();
  const t = (id, item) => ({ op: { type: 'toggle', op: id, base: 0, item, on: true }, inverse: { type: 'toggle', item, on: false } });
  h.record([t('a', 't1'), t('b', 't2'), t('c', 't3')]);
  h.rejected('b');
  assert.equal(h.peekUndo().ops.length, 2);
  h.rejected('a');
  h.rejected('c');
  assert.equal(h.peekUndo(), null);
  h.record([t('d', 't1')]);
  const undone = h.popUndo();
  h.record([t('e', 't1')], 'undo');
  assert.ok(undone);
  assert.equal(h.peekRedo().ops[0].op.op, 'e');
  h.record([t('f', 't4')]);
  assert.equal(h.peekRedo(), null);
});

test('a board copy keeps zone layouts and item details, and adds none where there were none', () => {
  const playlist = {
    id: 'p', title: 'P', columns: 3,
    zones: [{ id: 'songs', items: ['t1', 't2'], title: 'Playlist', layout: 'list', handle: true, axis: 'y' }, { id: 'tray', items: [] }],
    items: [{ id: 't1', label: 'A', color: '#000', on: false, detail: 'Miles · 5:37' }, { id: 't2', label: 'B', color: '#000', on: true }],
  };
  const copy = cloneBoard(playlist);
  assert.deepEqual(copy, playlist);
  assert.equal('layout' in copy.zones[1], false);
  assert.equal('detail' in copy.items[1], false);
  copy.zones[0].items.push('t3');
  assert.deepEqual(playlist.zones[0].items, ['t1', 't2']);
  // The view (confirmed + pending) keeps them too.
  const s = new BoardState();
  s.reset(playlist, 0);
  s.addPending({ type: 'move', op: 'o1', base: 0, item: 't2', zone: 'songs', before: 't1' });
  assert.equal(s.view().zones[0].handle, true);
  assert.equal(s.view().items[0].detail, 'Miles · 5:37');
});

test('opBody keeps the fields of every op ops.js lists and drops the wire bookkeeping', () => {
  for (const type of OP_TYPES) {
    const body = opBody({ type, op: 'x', base: 0, seq: 1, by: 'u1', member: 'm1', item: 't1', zone: 'z1', items: ['t1'], to: 0 });
    for (const key of ['op', 'base', 'seq', 'by', 'member']) assert.ok(!(key in body), `${type} keeps ${key}`);
    assert.ok(Object.keys(body).length > 1, `${type} lost its fields`);
  }
  assert.deepEqual(opBody({ type: 'future', op: 'x', item: 't1' }), { type: 'future' });
});
