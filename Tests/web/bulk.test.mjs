// Issue 36 in the web client: moveMany, archive and unarchive applied as the server applies
// them, their undo, and the SDK's builders. Run with `node --test Tests/web/*.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OP_TYPES, archive, moveMany, unarchive } from '../../web/sdk/shuffleboard.js';
import { applyOp, cloneBoard, inverseOp } from '../../web/state.js';
import { involvedItems } from '../../web/protocol.js';

function board() {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  return {
    id: 'demo', title: 'Demo', columns: 3,
    zones: [{ id: 'todo', items: ids.slice() }, { id: 'done', items: ['x'] }],
    items: [...ids, 'x'].map((id) => ({ id, label: id.toUpperCase(), color: 'red', on: false })),
  };
}

test('the builders spell the bulk ops as docs/protocol.md does', () => {
  for (const t of ['moveMany', 'archive', 'unarchive']) assert.ok(OP_TYPES.has(t));
  assert.deepEqual(moveMany('o', 1, ['a', 'b'], 'done', undefined),
    { type: 'moveMany', op: 'o', base: 1, items: ['a', 'b'], zone: 'done', before: null });
  assert.deepEqual(archive('o', 1, ['a']), { type: 'archive', op: 'o', base: 1, items: ['a'] });
  assert.deepEqual(unarchive('o', 2, ['a'], 'todo', 'c'),
    { type: 'unarchive', op: 'o', base: 2, items: ['a'], zone: 'todo', before: 'c' });
});

test('a moveMany puts the cards in order before the anchor, all or none', () => {
  const b = board();
  assert.ok(applyOp(b, { type: 'moveMany', items: ['d', 'a'], zone: 'done', before: 'x' }));
  assert.deepEqual(b.zones.map((z) => z.items), [['b', 'c', 'e'], ['d', 'a', 'x']]);
  // Before one of its own cards, or naming an unknown card: nothing moves.
  assert.equal(applyOp(b, { type: 'moveMany', items: ['b', 'c'], zone: 'todo', before: 'c' }), false);
  assert.equal(applyOp(b, { type: 'moveMany', items: ['b', 'nope'], zone: 'done', before: null }), false);
  assert.deepEqual(b.zones.map((z) => z.items), [['b', 'c', 'e'], ['d', 'a', 'x']]);
  assert.deepEqual(involvedItems({ type: 'moveMany', items: ['b', 'c'], zone: 'todo', before: 'e' }), ['b', 'c', 'e']);
});

test('archive takes cards off the zones and keeps them; unarchive brings them back', () => {
  const b = board();
  assert.ok(applyOp(b, { type: 'archive', items: ['b', 'x'] }));
  assert.deepEqual(b.archived, ['b', 'x']);
  assert.deepEqual(b.zones.map((z) => z.items), [['a', 'c', 'd', 'e'], []]);
  assert.equal(b.items.length, 6);
  assert.deepEqual(cloneBoard(b).archived, ['b', 'x']);
  // An archived card cannot be moved in a moveMany, nor archived again.
  assert.equal(applyOp(b, { type: 'moveMany', items: ['b'], zone: 'done', before: null }), false);
  assert.equal(applyOp(b, { type: 'archive', items: ['b'] }), false);
  assert.ok(applyOp(b, { type: 'unarchive', items: ['x', 'b'], zone: 'todo', before: 'c' }));
  assert.deepEqual(b.zones[0].items, ['a', 'x', 'b', 'c', 'd', 'e']);
  assert.equal(b.archived, undefined);
});

test('the undo of a moveMany from several places puts every card back where it was', () => {
  const before = board();
  before.zones[1].items = ['x', 'y'];
  before.items.push({ id: 'y', label: 'Y', color: 'red', on: false });
  const op = { type: 'moveMany', items: ['e', 'b', 'y', 'c'], zone: 'done', before: 'x' };
  const inverse = inverseOp(op, cloneBoard(before));
  assert.equal(inverse.type, 'many');
  const b = cloneBoard(before);
  applyOp(b, op);
  for (const inv of inverse.ops) assert.ok(applyOp(b, inv), JSON.stringify(inv));
  assert.deepEqual(b.zones.map((z) => z.items), before.zones.map((z) => z.items));
  assert.deepEqual(new Set(involvedItems(inverse)), new Set(['b', 'c', 'd', 'e', 'y']));
});

test('the undo of an archive unarchives each card where it was; of an unarchive, archives', () => {
  const before = board();
  const op = { type: 'archive', items: ['a', 'd', 'x'] };
  const inverse = inverseOp(op, cloneBoard(before));
  const b = cloneBoard(before);
  applyOp(b, op);
  for (const inv of inverse.type === 'many' ? inverse.ops : [inverse]) assert.ok(applyOp(b, inv), JSON.stringify(inv));
  assert.deepEqual(b.zones.map((z) => z.items), before.zones.map((z) => z.items));
  assert.deepEqual(inverseOp({ type: 'unarchive', items: ['a'], zone: 'todo', before: null }, b), { type: 'archive', items: ['a'] });
});

test('a selection toggles, selects a range in one zone, prunes and orders by the board', async () => {
  const { Selection, selectionKey } = await import('../../web/selection.js');
  const b = board();
  const s = new Selection();
  assert.ok(s.toggle('b'));
  assert.deepEqual(s.range(b, 'd'), ['c', 'd']);
  assert.equal(s.size, 3);
  assert.equal(s.toggle('c'), false);
  // A range into another zone is a toggle.
  assert.deepEqual(s.range(b, 'x'), ['x']);
  assert.deepEqual(s.ordered(b), ['b', 'd', 'x']);
  applyOp(b, { type: 'archive', items: ['d'] });
  s.prune(b);
  assert.deepEqual(s.ordered(b), ['b', 'x']);
  // Keys: x toggles the focused card, Shift+X a range, Escape clears; never while typing or dragging.
  const k = (key, extra = {}) => ({ key, ctrl: false, shift: false, alt: false, inField: false, ...extra });
  assert.deepEqual(selectionKey(k('x'), { item: 'a', dragging: false, size: 0 }), { type: 'toggle', item: 'a' });
  assert.deepEqual(selectionKey(k('X', { shift: true }), { item: 'a', dragging: false, size: 1 }), { type: 'range', item: 'a' });
  assert.deepEqual(selectionKey(k('Escape'), { item: null, dragging: false, size: 2 }), { type: 'clear' });
  assert.equal(selectionKey(k('Escape'), { item: null, dragging: false, size: 0 }), null);
  assert.equal(selectionKey(k('x', { inField: true }), { item: 'a', dragging: false, size: 0 }), null);
  assert.equal(selectionKey(k('x'), { item: 'a', dragging: true, size: 0 }), null);
  assert.equal(selectionKey(k(' '), { item: 'a', dragging: false, size: 1 }), null);
});
