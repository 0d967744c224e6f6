// Unit tests of history (issue 21): web/history.js's wording and paths, and the restore op in
// web/protocol.js, web/state.js (applied from the broadcast; its undo restores the seq before it).
// Run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as P from '../../web/protocol.js';
import { ago, atPath, changeText, describeChange, historyPath, previousValue, restoreNotice } from '../../web/history.js';
import { applyOp, BoardState, canRevert, inverseOp, UndoHistory } from '../../web/state.js';

function kanban() {
  return {
    id: 'k', title: 'Sprint', columns: 1,
    zones: [{ id: 'todo', title: 'To do', layout: 'list', items: ['t1'] }, { id: 'doing', title: 'Doing', layout: 'list', items: ['t4'] }],
    items: [{ id: 't1', label: 'Write the notes', color: '#fff', on: false }, { id: 't4', label: 'Fix the login page', color: '#e57373', on: false }],
  };
}

test('a change reads as who did what, the label set apart, and how long ago', () => {
  const entry = { seq: 7, by: { id: 'u1', name: 'Ann' }, time: 1000, op: { type: 'move', op: 'x', by: 'u1', seq: 7, item: 't4', zone: 'doing', before: null } };
  const parts = describeChange(entry, kanban());
  assert.deepEqual(parts, [{ bdi: 'Ann' }, ' moved ', { em: 'Fix the login page' }, ' to ', { bdi: 'Doing' }]);
  assert.equal(changeText(parts), 'Ann moved Fix the login page to Doing');
  assert.equal(ago(1000, 1000 + 2 * 60_000), '2 min ago');
  assert.equal(ago(1000, 1000 + 10_000), 'just now');
  assert.equal(ago(0, 3 * 3_600_000), '3 h ago');
  assert.equal(ago(0, 2 * 86_400_000), '2 days ago');
  assert.equal(ago(null, 5), '');
});

test('unknown names fall back to the user id, removed cards to their id, and restores name the seq', () => {
  const b = kanban();
  assert.equal(changeText(describeChange({ by: { id: 'u3', name: null }, op: { type: 'remove', item: 'c9' } }, b)), 'u3 removed c9');
  assert.equal(changeText(describeChange({ by: { id: 'u1', name: 'Bo' }, op: { type: 'restore', to: 3 } }, b)), 'Bo restored the board as of change 3');
  assert.equal(changeText(describeChange({ by: { id: 'u1', name: 'Bo' }, op: { type: 'add', zone: 'todo', item: { label: '<b>x</b>' } } }, b)), 'Bo added <b>x</b> to To do');
});

test('paths escape the board id and carry only numbers', () => {
  assert.equal(historyPath('a-b', null, 10), '/api/boards/a-b/history?limit=10');
  assert.equal(historyPath('a-b', 42), '/api/boards/a-b/history?limit=50&before=42');
  assert.equal(atPath('a b', 3), '/api/boards/a%20b?at=3');
  assert.deepEqual(P.restore('r1', 9, 3), { type: 'restore', op: 'r1', base: 9, to: 3 });
  assert.ok(P.OP_TYPES.has('restore'));
});

test('a committed restore replaces the board (keeping its id); a pending one changes nothing', () => {
  const now = kanban();
  const older = { ...kanban(), id: 'other', title: 'Before the retro', zones: [{ id: 'todo', title: 'To do', items: [] }], items: [] };
  const pending = kanban();
  assert.equal(applyOp(pending, { type: 'restore', to: 1 }), false);
  assert.deepEqual(pending, kanban());
  assert.equal(applyOp(now, { type: 'restore', to: 1, board: older }), true);
  assert.deepEqual(now, { ...older, id: 'k' });
  older.title = 'changed after';
  assert.equal(now.title, 'Before the retro', 'the op board is copied');
});

test('undoing a restore restores the seq before it, unless someone else changed the board since', () => {
  const history = new UndoHistory();
  const op = P.restore('r1', 5, 2);
  history.record([{ op, inverse: inverseOp(op, kanban()) }]);
  history.committed('r1', 6, { ...op, seq: 6, by: 'u1', board: kanban() });
  const change = history.peekUndo();
  assert.deepEqual(change.ops[0].inverse, { type: 'restore', to: 5 });
  const state = new BoardState();
  state.reset(kanban(), 6);
  state.log.push({ seq: 6, by: 'u1', op: 'r1', items: [], body: { type: 'restore', to: 2 } });
  assert.deepEqual(canRevert(change, state, 'u1'), { ok: true });
  state.log.push({ seq: 7, by: 'u2', op: 'x', items: ['t9'], body: { type: 'toggle' } });
  assert.deepEqual(canRevert(change, state, 'u1'), { ok: false, why: 'changed', by: 'u2' });
});

test('a card removed since is named from the older board', () => {
  const live = kanban();
  live.items = live.items.filter((i) => i.id !== 't4');
  live.zones[1].items = [];
  const entry = { by: { id: 'u1', name: 'Ann' }, op: { type: 'remove', item: 't4' } };
  assert.equal(changeText(describeChange(entry, live)), 'Ann removed t4');
  assert.equal(changeText(describeChange(entry, live, kanban())), 'Ann removed Fix the login page');
});

test('a rename says old → new: from an older listed change, else the board before the list (issue 35)', () => {
  const by = { id: 'u1', name: 'Ann' };
  // Newest first, as the history lists them: the card was added as "Draft", renamed twice.
  const entries = [
    { seq: 5, by, op: { type: 'edit', item: 'c2', label: 'Final' } },
    { seq: 4, by, op: { type: 'retitle', title: 'Sprint 12' } },
    { seq: 3, by, op: { type: 'edit', item: 'c2', label: 'Better' } },
    { seq: 2, by, op: { type: 'add', zone: 'todo', before: null, item: { id: 'c2', label: 'Draft' } } },
    { seq: 1, by, op: { type: 'editZone', zone: 'todo', title: 'Backlog' } },
  ];
  const live = kanban();
  live.items.push({ id: 'c2', label: 'Final', color: '#fff', on: false });
  const older = kanban(); // the board before change 1
  const text = (i) => changeText(describeChange(entries[i], live, older, previousValue(entries, i, older)));
  assert.equal(text(0), 'Ann renamed Better to Final');
  assert.equal(text(2), 'Ann renamed Draft to Better');
  assert.equal(text(1), 'Ann renamed the board from Sprint to Sprint 12');
  assert.equal(text(4), 'Ann renamed the column To do to Backlog');
  // Not known (the board before the list not read yet): never the new name twice.
  assert.equal(changeText(describeChange(entries[0], live, null, previousValue(entries.slice(0, 1), 0, null))), 'Ann renamed a card to Final');
  // A restore in between: what the card was called before it is not known from the list.
  const restored = [entries[0], { seq: 4, by, op: { type: 'restore', to: 1 } }, entries[2]];
  assert.equal(previousValue(restored, 0, older), undefined);
  // Other edits say what changed.
  assert.equal(changeText(describeChange({ by, op: { type: 'edit', item: 't1', color: '#000' } }, live)), 'Ann recolored Write the notes');
  assert.equal(changeText(describeChange({ by, op: { type: 'edit', item: 't1', detail: 'x' } }, live)), 'Ann changed the detail of Write the notes');
  assert.equal(changeText(describeChange({ by, op: { type: 'edit', item: 't1', detail: null } }, live)), 'Ann cleared the detail of Write the notes');
});

test('a restore notice names who and when, or the change when the time is not known (issue 35)', () => {
  const t = Date.UTC(2026, 11, 5, 10, 42);
  const text = restoreNotice('Ann', 12, t);
  assert.match(text, /^\u2068Ann\u2069 restored the board to how it was on .+ \(change 12\)$/);
  assert.ok(text.includes(new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })));
  assert.equal(restoreNotice(null, 3, null), 'Someone restored the board as of change 3');
});
