// Issue 34 in the web client and the SDK: the comment ops' builders, a card's count as ops
// apply, and the undo of each comment op. Run with `node --test Tests/web/*.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OP_TYPES, comment, editComment, removeComment } from '../../web/sdk/shuffleboard.js';
import { applyComment, inverseComment, known, learn } from '../../web/comments.js';
import { applyOp, cloneBoard, inverseOp, opBody } from '../../web/state.js';
import { cardFace } from '../../web/cardface.js';

const board = () => ({
  id: 'b', title: 'B', columns: 2, zones: [{ id: 'z', items: ['t1'] }],
  items: [{ id: 't1', label: 'Fix', color: '#fff', on: false }],
});

test('the comment builders spell the messages as docs/protocol.md does', () => {
  const bo = [{ member: 'bo', name: 'Bo' }];
  assert.deepEqual(comment('o', 1, 't1', 'Hi @Bo', bo), { type: 'comment', op: 'o', base: 1, item: 't1', text: 'Hi @Bo', mentions: bo });
  assert.deepEqual(editComment('o', 1, 't1', 'n1', 'Hi'),
    { type: 'editComment', op: 'o', base: 1, item: 't1', comment: 'n1', text: 'Hi', mentions: [] });
  assert.deepEqual(removeComment('o', 1, 't1', 'n1'), { type: 'removeComment', op: 'o', base: 1, item: 't1', comment: 'n1' });
  for (const t of ['comment', 'editComment', 'removeComment']) assert.ok(OP_TYPES.has(t), t);
});

test('a card counts its comments as the server does, and leaves out a count of 0', () => {
  const b = board();
  const made = { type: 'comment', seq: 1, item: 't1', comment: { id: 'n1', text: 'A', member: 'ann', name: 'Ann', at: 1, mentions: [] } };
  assert.equal(applyOp(b, made), true);
  assert.equal(b.items[0].comments, 1);
  assert.equal(known.get('n1').text, 'A');
  applyOp(b, { type: 'editComment', seq: 2, item: 't1', comment: 'n1', text: 'B', mentions: [], edited: 5 });
  assert.equal(b.items[0].comments, 1);
  assert.equal(known.get('n1').text, 'B');
  applyOp(b, { type: 'removeComment', seq: 3, item: 't1', comment: 'n1' });
  assert.equal('comments' in b.items[0], false);
  assert.equal(known.has('n1'), false);
});

test('undo: a comment is removed, an edit puts the text back, a remove writes it again', () => {
  const b = board();
  learn('t1', { id: 'n7', text: 'Old words', mentions: [{ member: 'bo', name: 'Bo' }], member: 'ann', name: 'Ann', at: 1 });
  assert.deepEqual(inverseOp({ type: 'comment', item: 't1', comment: { id: 'n9', text: 'x' } }, b),
    { type: 'removeComment', item: 't1', comment: 'n9' });
  assert.deepEqual(inverseComment({ type: 'editComment', item: 't1', comment: 'n7', text: 'New' }),
    { type: 'editComment', item: 't1', comment: 'n7', text: 'Old words', mentions: [{ member: 'bo', name: 'Bo' }] });
  assert.deepEqual(inverseOp({ type: 'removeComment', item: 't1', comment: 'n7' }, b),
    { type: 'comment', item: 't1', text: 'Old words', mentions: [{ member: 'bo', name: 'Bo' }] });
  // A comment the page never saw cannot be brought back.
  assert.equal(inverseComment({ type: 'removeComment', item: 't1', comment: 'n99' }), null);
  assert.deepEqual(opBody({ type: 'comment', op: 'x', base: 1, seq: 2, by: 'u1', item: 't1', comment: { id: 'n2', text: 'T', mentions: [] } }),
    { type: 'comment', item: 't1', text: 'T', mentions: [] });
});

import { mentionQuery, mentionsIn } from '../../web/comment-panel.js';

test('@ suggests after a space or at the start, and a mention stays only while its @Name does', () => {
  assert.equal(mentionQuery('Hi @Bo', 6), 'Bo');
  assert.equal(mentionQuery('@', 1), '');
  assert.equal(mentionQuery('mail a@b', 8), null);
  assert.equal(mentionQuery('Hi @Bo there', 12), null);
  const picked = [{ member: 'bo', name: 'Bo' }, { member: 'cy', name: 'Cy' }, { member: 'bo', name: 'Bo' }];
  assert.deepEqual(mentionsIn('Thanks @Bo!', picked), [{ member: 'bo', name: 'Bo' }]);
  const many = Array.from({ length: 25 }, (_, i) => ({ member: `m${i}`, name: `M${i}` }));
  assert.equal(mentionsIn(many.map((p) => `@${p.name}`).join(' '), many).length, 20);
});

test('the count a snapshot carries survives the copy the page keeps, and the card face shows it', () => {
  const b = board();
  b.items[0].comments = 2;
  const copy = cloneBoard(b);
  assert.equal(copy.items[0].comments, 2, 'the confirmed board keeps the count');
  applyOp(copy, { type: 'comment', seq: 1, item: 't1', comment: { id: 'n4', text: 'C', member: 'ann', name: 'Ann', at: 1, mentions: [] } });
  assert.equal(copy.items[0].comments, 3);
  assert.equal(b.items[0].comments, 2, 'a copy, not the same item');
  for (const bad of [0, -1, 1.5, '7', null]) {
    b.items[0].comments = bad;
    assert.equal('comments' in cloneBoard(b).items[0], false, String(bad));
  }
  // The face: its count, named for a screen reader; none at 0.
  const made = [];
  const fakeDoc = {
    createElement: (tag) => {
      const e = { tag, children: [], dataset: {}, attrs: {}, style: { setProperty() {} }, textContent: '',
        setAttribute(n, v) { this.attrs[n] = v; }, append(...c) { this.children.push(...c); },
        replaceChildren(...c) { this.children = c; } };
      made.push(e);
      return e;
    },
    createElementNS: (_, tag) => ({ tag, setAttribute() {}, append() {} }),
  };
  const meta = fakeDoc.createElement('div');
  cardFace(fakeDoc, meta, { ...copy.items[0] }, []);
  const count = meta.children.find((c) => c.className === 'comment-count');
  assert.equal(count?.attrs['aria-label'], '3 comments');
  assert.ok(count.children.includes('3'));
  cardFace(fakeDoc, meta, { id: 't1', label: 'Fix' }, []);
  assert.equal(meta.children.some((c) => c.className === 'comment-count'), false);
  assert.equal(meta.hidden, true);
});
