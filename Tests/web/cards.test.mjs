// Issue 32 in the SDK: the builders of the card-content ops and `hello.member`.
// Run with `node --test Tests/web/*.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  OP_TYPES, addCheck, addTag, assign, edit, editCheck, editTag, hello, removeCheck, removeTag, tag,
} from '../../web/sdk/shuffleboard.js';

test('the card-content builders spell the messages as docs/protocol.md does', () => {
  assert.deepEqual(edit('o', 1, 't1', { description: '# A', due: null, nope: 1 }),
    { type: 'edit', op: 'o', base: 1, item: 't1', description: '# A', due: null });
  assert.deepEqual(tag('o', 1, 't1', ['g1']), { type: 'tag', op: 'o', base: 1, item: 't1', add: ['g1'], remove: [] });
  assert.deepEqual(assign('o', 1, 't1', [], ['bo']), { type: 'assign', op: 'o', base: 1, item: 't1', add: [], remove: ['bo'] });
  assert.deepEqual(addTag('o', 1, { name: 'Bug', color: 'red', id: 'x' }),
    { type: 'addTag', op: 'o', base: 1, tag: { name: 'Bug', color: 'red' } });
  assert.deepEqual(editTag('o', 1, 'g1', { color: 'blue' }), { type: 'editTag', op: 'o', base: 1, tag: 'g1', color: 'blue' });
  assert.deepEqual(removeTag('o', 1, 'g1'), { type: 'removeTag', op: 'o', base: 1, tag: 'g1' });
  assert.deepEqual(addCheck('o', 1, 't1', undefined, 'Write'),
    { type: 'addCheck', op: 'o', base: 1, item: 't1', before: null, text: 'Write' });
  assert.deepEqual(editCheck('o', 1, 't1', 'k1', { done: true }),
    { type: 'editCheck', op: 'o', base: 1, item: 't1', check: 'k1', done: true });
  assert.deepEqual(removeCheck('o', 1, 't1', 'k1'), { type: 'removeCheck', op: 'o', base: 1, item: 't1', check: 'k1' });
  for (const t of ['tag', 'assign', 'addTag', 'editTag', 'removeTag', 'addCheck', 'editCheck', 'removeCheck']) {
    assert.ok(OP_TYPES.has(t), t);
  }
});

test('hello names the member only when there is one', () => {
  assert.deepEqual(hello('b', 'Ann', undefined, null, 'ann-1'), { type: 'hello', board: 'b', name: 'Ann', member: 'ann-1' });
  assert.deepEqual(hello('b', 'Ann'), { type: 'hello', board: 'b', name: 'Ann' });
});

import { applyContent, checklistProgress, dueState, initials, inverseContent, isDueDate } from '../../web/cards.js';
import { applyOp, cloneBoard, inverseOp } from '../../web/state.js';

const board = () => ({
  id: 'b', title: 'B', columns: 2, zones: [{ id: 'z', items: ['t1'] }],
  items: [{ id: 't1', label: 'Fix', color: '#fff', on: false }],
});

test('content ops apply as the server applies them, and undo puts the card back', () => {
  const b = board();
  const steps = [
    { type: 'addTag', op: 'o1', tag: { id: 'g1', name: 'Bug', color: 'red' } },
    { type: 'tag', item: 't1', add: ['g1'], remove: [] },
    { type: 'assign', item: 't1', add: [{ member: 'ann', name: 'Ann' }], remove: [] },
    { type: 'addCheck', item: 't1', before: null, check: { id: 'k4', text: 'A', done: false } },
    { type: 'editCheck', item: 't1', check: 'k4', done: true },
    { type: 'edit', item: 't1', description: '# D', due: '2026-01-02' },
  ];
  for (const op of steps) {
    const before = cloneBoard(b);
    assert.ok(applyOp(b, op), op.type);
    const undo = inverseOp(op, before);
    const again = cloneBoard(b);
    if (undo && op.type !== 'addTag') {
      applyOp(again, { ...undo, ...(undo.type === 'removeCheck' ? { check: 'k4' } : {}) });
      assert.deepEqual(again, before, `undo of ${op.type}`);
    }
  }
  assert.deepEqual(b.items[0], {
    id: 't1', label: 'Fix', color: '#fff', on: false, description: '# D', due: '2026-01-02', tags: ['g1'],
    assignees: [{ member: 'ann', name: 'Ann' }], checklist: [{ id: 'k4', text: 'A', done: true }],
  });
  assert.equal(checklistProgress(b.items[0]), '1/1');
  assert.ok(applyContent(b, { type: 'removeTag', tag: 'g1' }));
  assert.equal(b.tags, undefined);
  assert.equal(b.items[0].tags, undefined);
  // A tag op that changed nothing has nothing to undo.
  assert.equal(inverseContent({ type: 'tag', item: 't1', add: [], remove: ['g9'] }, b), null);
});

test('due badges, initials and dates', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  assert.equal(dueState('2026-03-09', now), 'overdue');
  assert.equal(dueState('2026-03-11', now), 'soon');
  assert.equal(dueState('2026-04-01', now), null);
  assert.equal(dueState('2026-03-10T11:00Z', now), 'overdue');
  assert.equal(initials('ada lovelace byron'), 'AL');
  assert.ok(isDueDate('2024-02-29') && !isDueDate('2026-02-29') && !isDueDate('2026-1-01'));
});
