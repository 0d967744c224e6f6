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
