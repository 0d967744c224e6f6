// Unit tests of editing (issue 19) in web/protocol.js, web/state.js and web/session.js:
// run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plain } from '../../web/bidi.js';
import * as P from '../../web/protocol.js';
import { applyOp, BoardState, cloneBoard, inverseOp, pendingId } from '../../web/state.js';
import { Session } from '../../web/session.js';
import { hear, reopen } from './wiring.mjs';

const GRID = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);

function board() {
  return {
    id: 'b1', title: 'Board', columns: 3,
    zones: [{ id: 'grid', items: GRID.slice() }, { id: 'tray', items: [] }],
    items: GRID.map((id) => ({ id, label: id.toUpperCase(), color: '#000', on: false })),
  };
}

const ANN = { id: 'u1', name: 'Ann', color: '#a00' };
const BO = { id: 'u2', name: 'Bo', color: '#0b0' };

function joined(seq = 0) {
  let n = 0;
  const s = new Session({ newOpId: () => `op${++n}` });
  reopen(s);
  hear(s, { type: 'welcome', you: 'u1', seq, drags: [], users: [ANN, BO], board: board() });
  return s;
}

const sent = (fx) => fx.filter((e) => e.type === 'send').map((e) => e.msg);
/** The texts of `type` effects, as read (web/bidi.js: user text in them is isolated). */
const texts = (fx, type = 'toast') => fx.filter((e) => e.type === type).map((e) => plain(e.text));
/** The server's broadcast of a sent op: `extra` adds what the server chose (ids). */
function echo(msg, seq, extra = {}) {
  const { base, ...rest } = msg;
  const m = { ...rest, seq, by: 'u1' };
  if (extra.itemId) m.item = { ...msg.item, id: extra.itemId, color: msg.item.color ?? '#ffe08a', on: msg.item.on === true };
  if (extra.zoneId) m.zone = { ...msg.zone, id: extra.zoneId };
  return m;
}
const view = (s) => s.scene().board;
const labels = (s, zone = 'tray') => {
  const b = view(s);
  return b.zones.find((z) => z.id === zone).items.map((id) => b.items.find((i) => i.id === id).label);
};

test('messages for every editing op carry what docs/protocol.md says', () => {
  assert.deepEqual(P.add('o', 3, 'tray', null, { label: 'A', detail: 'd' }), {
    type: 'add', op: 'o', base: 3, zone: 'tray', before: null, item: { label: 'A', detail: 'd' },
  });
  // `on` only when true: a card brought back on (the undo of a remove); never for a plain add.
  assert.deepEqual(P.add('o', 3, 'tray', 't1', { label: 'A', on: true }).item, { label: 'A', on: true });
  assert.deepEqual(P.add('o', 3, 'tray', 't1', { label: 'A', on: false }).item, { label: 'A' });
  assert.deepEqual(P.edit('o', 3, 't1', { label: 'x', detail: null, ignored: 1 }), {
    type: 'edit', op: 'o', base: 3, item: 't1', label: 'x', detail: null,
  });
  assert.deepEqual(P.addZone('o', 3, 'tray', { title: 'B', layout: 'list' }), {
    type: 'addZone', op: 'o', base: 3, before: 'tray', zone: { title: 'B', layout: 'list' },
  });
  assert.deepEqual(P.editZone('o', 3, 'tray', { title: 'T' }), { type: 'editZone', op: 'o', base: 3, zone: 'tray', title: 'T' });
  assert.deepEqual(P.retitle('o', 3, 'R'), { type: 'retitle', op: 'o', base: 3, title: 'R' });
  for (const type of ['add', 'edit', 'remove', 'addZone', 'editZone', 'removeZone', 'retitle']) {
    assert.equal(P.isCommitted({ type, seq: 1, by: 'u1' }), true, type);
  }
});

test('text limits count characters and bytes and refuse control characters', () => {
  assert.equal(P.textProblem('a'.repeat(200), P.LIMITS.label), null);
  assert.match(P.textProblem('a'.repeat(201), P.LIMITS.label), /200 characters/);
  assert.match(P.textProblem('€'.repeat(150), P.LIMITS.zoneTitle), /100 characters/);
  assert.match(P.textProblem('😀'.repeat(101), P.LIMITS.zoneTitle), /characters/);
  assert.equal(P.textProblem('😀'.repeat(100), P.LIMITS.zoneTitle), null); // 400 bytes exactly
  assert.match(P.textProblem('a\u0007', P.LIMITS.label), /control/);
  assert.match(P.textProblem('', P.LIMITS.title), /empty/);
  // Nothing visible (issue 29): what the server refuses too.
  for (const t of [' ', '\u202E', '\u200B\u2060', '\u3164', '\u2800', '\u3000\u00A0']) {
    assert.match(P.textProblem(t, P.LIMITS.label), /invisible/, JSON.stringify(t));
  }
  assert.equal(P.textProblem('Invoice \u202Eegnaro', P.LIMITS.label), null);
  assert.equal(P.textProblem('👩\u200D💻', P.LIMITS.label), null);
});

test('applyOp and inverseOp: each editing op undone restores the board', () => {
  const ops = [
    { type: 'add', zone: 'grid', before: 't2', item: { id: 'c1', label: 'New', color: '#123', detail: 'd' } },
    { type: 'edit', item: 't1', label: 'Rouge', detail: 'warm' },
    { type: 'edit', item: 't1', color: '#fff' },
    { type: 'remove', item: 't5' },
    { type: 'addZone', before: 'tray', zone: { id: 'z1', title: 'Blocked', layout: 'list' } },
    { type: 'editZone', zone: 'tray', title: 'Later' },
    { type: 'retitle', title: 'Sprint' },
  ];
  for (const op of ops) {
    const before = board();
    // The old board's zones have no layouts: an undo restores them as drawn.
    before.zones[0].layout = 'grid';
    before.zones[1].layout = 'row';
    before.zones[1].title = 'Tray';
    const after = cloneBoard(before);
    assert.equal(applyOp(after, op), true, op.type);
    const inverse = inverseOp(op, before);
    if (op.type === 'add') inverse.item = 'c1';
    if (op.type === 'addZone') inverse.zone = 'z1';
    const back = cloneBoard(after);
    // An undone remove or removeZone comes back under a new id.
    applyOp(back, { ...inverse, ...(inverse.type === 'add' ? { item: { ...inverse.item, id: 't5' } } : {}) });
    if (op.type === 'remove') back.items.sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)));
    assert.deepEqual(back, before, op.type);
  }
});

test('a pending add shows at once under a pending id, then under the id the server chose', () => {
  const s = joined();
  const fx = s.addCard('tray', '  Buy <b>milk</b> ');
  const [msg] = sent(fx);
  assert.deepEqual(msg, { type: 'add', op: 'op1', base: 0, zone: 'tray', before: null, item: { label: 'Buy <b>milk</b>' } });
  assert.deepEqual(view(s).zones[1].items, [pendingId('op1')]);
  assert.deepEqual(labels(s), ['Buy <b>milk</b>']);
  // Scrolled into sight after it is shown (the end of a long strip may be off to the side).
  const types = fx.map((e) => e.type);
  assert.ok(types.indexOf('reveal') > types.indexOf('render'));
  assert.deepEqual(fx.find((e) => e.type === 'reveal'), { type: 'reveal', item: pendingId('op1') });
  // A pending card cannot be lifted yet.
  assert.deepEqual(s.lift(pendingId('op1')), []);
  hear(s, echo(msg, 1, { itemId: 'c1' }));
  assert.deepEqual(view(s).zones[1].items, ['c1']);
  assert.equal(view(s).items.find((i) => i.id === 'c1').color, '#ffe08a');
  assert.deepEqual(s.state.pending, []);
});

test('undo of an add removes it; redo adds it back; undo again removes the new one', () => {
  const s = joined();
  const [add] = sent(s.addCard('tray', 'A'));
  hear(s, echo(add, 1, { itemId: 'c1' }));
  const [undo] = sent(s.undo());
  assert.deepEqual(undo, { type: 'remove', op: 'op2', base: 1, item: 'c1' });
  hear(s, echo(undo, 2));
  assert.deepEqual(labels(s), []);
  const [redo] = sent(s.redo());
  assert.equal(redo.type, 'add');
  assert.deepEqual(redo.item, { label: 'A', color: '#ffe08a' });
  hear(s, echo(redo, 3, { itemId: 'c3' }));
  assert.deepEqual(labels(s), ['A']);
  const [again] = sent(s.undo());
  assert.deepEqual(again, { type: 'remove', op: 'op4', base: 3, item: 'c3' });
});

test('undo of a remove brings the card back with its content and place, and later undos follow its new id', () => {
  const s = joined();
  const [edit] = sent(s.editCard('t5', { label: 'Five', detail: 'note' }));
  assert.deepEqual(edit, { type: 'edit', op: 'op1', base: 0, item: 't5', label: 'Five', detail: 'note' });
  hear(s, echo(edit, 1));
  const fx = s.removeCard('t5');
  const [remove] = sent(fx);
  const toast = fx.find((e) => e.type === 'toast');
  assert.deepEqual({ ...toast, change: undefined }, { type: 'toast', text: 'Removed “\u2068Five\u2069”.', action: 'undo', change: undefined });
  assert.equal(toast.change.ops[0].op.op, remove.op, "the toast's Undo is about this remove");
  hear(s, echo(remove, 2));
  assert.equal(view(s).items.some((i) => i.id === 't5'), false);
  const [back] = sent(s.undo());
  assert.deepEqual(back, {
    type: 'add', op: 'op3', base: 2, zone: 'grid', before: 't6', item: { label: 'Five', color: '#000', detail: 'note' },
  });
  hear(s, echo(back, 3, { itemId: 'c3' }));
  assert.deepEqual(view(s).zones[0].items.slice(3, 6), ['t4', 'c3', 't6']);
  // The edit before the remove now names the card's new id.
  const [undoEdit] = sent(s.undo());
  assert.deepEqual(undoEdit, { type: 'edit', op: 'op4', base: 3, item: 'c3', label: 'T5', detail: null });
});

test('undo of a remove brings a card that was on back on', () => {
  const s = joined();
  const [toggle] = sent(s.paint('t2'));
  s.paintEnd();
  hear(s, echo(toggle, 1));
  assert.equal(view(s).items[1].on, true);
  const [remove] = sent(s.removeCard('t2'));
  hear(s, echo(remove, 2));
  const [back] = sent(s.undo());
  assert.deepEqual(back, {
    type: 'add', op: 'op3', base: 2, zone: 'grid', before: 't3', item: { label: 'T2', color: '#000', on: true },
  });
  // Shown on at once, and still on once committed.
  assert.equal(view(s).items.find((i) => i.label === 'T2').on, true);
  hear(s, echo(back, 3, { itemId: 'c3' }));
  assert.equal(view(s).items.find((i) => i.id === 'c3').on, true);
  assert.deepEqual(view(s).zones[0].items.slice(0, 3), ['t1', 'c3', 't3']);
  // A card that was off comes back without `on` (what older servers read too).
  const [remove2] = sent(s.removeCard('t4'));
  hear(s, echo(remove2, 4));
  assert.equal('on' in sent(s.undo())[0].item, false);
});

test('undo of a remove brings its content back (tags still on the board), and later steps follow its new check ids', () => {
  const s = joined();
  // The card's content, as the server's broadcasts made it (tag g1, a removed tag g2, checks k1 k2).
  hear(s, { type: 'addTag', op: 'x1', seq: 1, by: 'u2', tag: { id: 'g1', name: 'Bug', color: '#d32f2f' } });
  hear(s, { type: 'addTag', op: 'x2', seq: 2, by: 'u2', tag: { id: 'g2', name: 'UX', color: '#1e88e5' } });
  hear(s, { type: 'tag', op: 'x3', seq: 3, by: 'u2', item: 't2', add: ['g1', 'g2'], remove: [] });
  hear(s, { type: 'edit', op: 'x4', seq: 4, by: 'u2', item: 't2', description: '# Why', due: '2026-12-24' });
  hear(s, { type: 'assign', op: 'x5', seq: 5, by: 'u2', item: 't2', add: [{ member: 'bo', name: 'Bo' }], remove: [] });
  hear(s, { type: 'addCheck', op: 'x6', seq: 6, by: 'u2', item: 't2', before: null, check: { id: 'k1', text: 'Write', done: false } });
  hear(s, { type: 'addCheck', op: 'x7', seq: 7, by: 'u2', item: 't2', before: null, check: { id: 'k2', text: 'Ship', done: false } });
  // Ann ticks Write, then removes the card; Bo deletes the tag UX meanwhile.
  const [tick] = sent(s.cardOp({ type: 'editCheck', item: 't2', check: 'k1', done: true }, 'Ticked'));
  hear(s, echo(tick, 8));
  const [remove] = sent(s.removeCard('t2'));
  hear(s, echo(remove, 9));
  hear(s, { type: 'removeTag', op: 'x10', seq: 10, by: 'u2', tag: 'g2' });
  const [back] = sent(s.undo());
  assert.deepEqual(back.item, {
    label: 'T2', color: '#000', description: '# Why', due: '2026-12-24', tags: ['g1'],
    assignees: [{ member: 'bo', name: 'Bo' }], checklist: [{ text: 'Write', done: true }, { text: 'Ship', done: false }],
  });
  // Shown at once with its content; the server gives the checks new ids.
  const pending = view(s).items.find((i) => i.label === 'T2');
  assert.equal(pending.description, '# Why');
  assert.deepEqual(pending.checklist.map((c) => c.done), [true, false]);
  const { base, ...rest } = back;
  hear(s, {
    ...rest, seq: 11, by: 'u1',
    item: { ...back.item, id: 'c11', on: false, checklist: [{ id: 'k11', text: 'Write', done: true }, { id: 'k11-2', text: 'Ship', done: false }] },
  });
  const card = view(s).items.find((i) => i.id === 'c11');
  assert.deepEqual(card.tags, ['g1']);
  assert.deepEqual(card.checklist.map((c) => c.id), ['k11', 'k11-2']);
  // The tick before it is undone on the card as it came back: its new id and its new check id.
  const [untick] = sent(s.undo());
  assert.deepEqual({ type: untick.type, item: untick.item, check: untick.check, done: untick.done },
    { type: 'editCheck', item: 'c11', check: 'k11', done: false });
});

test('undo of a removeTag makes the tag again on the cards that had it (not those removed since); redo deletes it again', () => {
  const s = joined();
  hear(s, { type: 'addTag', op: 'x1', seq: 1, by: 'u2', tag: { id: 'g1', name: 'Bug', color: '#d32f2f' } });
  for (const [seq, item] of [[2, 't2'], [3, 't5'], [4, 't7']]) {
    hear(s, { type: 'tag', op: `x${seq}`, seq, by: 'u2', item, add: ['g1'], remove: [] });
  }
  // Ann untags t7 (an undo step naming g1), then deletes the tag; Bo removes t5 meanwhile.
  const [untag] = sent(s.cardOp({ type: 'tag', item: 't7', remove: ['g1'] }, 'Untagged'));
  hear(s, echo(untag, 5));
  const [del] = sent(s.cardOp({ type: 'removeTag', tag: 'g1' }, 'Deleted the tag Bug.'));
  hear(s, echo(del, 6));
  assert.equal(view(s).items.find((i) => i.id === 't2').tags, undefined);
  hear(s, { type: 'remove', op: 'x7', seq: 7, by: 'u2', item: 't5' });
  const [again] = sent(s.undo());
  assert.deepEqual({ type: again.type, tag: again.tag, items: again.items },
    { type: 'addTag', tag: { name: 'Bug', color: '#d32f2f' }, items: ['t2'] });
  // Shown at once on t2 under a pending id, then under the server's.
  assert.equal(view(s).items.find((i) => i.id === 't2').tags.length, 1);
  hear(s, { ...echo(again, 8), tag: { ...again.tag, id: 'g8' } });
  assert.deepEqual(view(s).items.find((i) => i.id === 't2').tags, ['g8']);
  // The untag before it now names the new tag: its undo tags t7 with g8.
  const [retag] = sent(s.undo());
  assert.deepEqual({ type: retag.type, item: retag.item, add: retag.add }, { type: 'tag', item: 't7', add: ['g8'] });
  hear(s, echo(retag, 9));
  // Redo of the tag's undo deletes g8 again.
  sent(s.redo());
  const [redel] = sent(s.redo());
  assert.deepEqual({ type: redel.type, tag: redel.tag }, { type: 'removeTag', tag: 'g8' });
});

test("the toast's Undo reverts that remove, not the change made after it", () => {
  const s = joined();
  const fx = s.removeCard('t5');
  const [remove] = sent(fx);
  const { change } = fx.find((e) => e.type === 'toast');
  hear(s, echo(remove, 1));
  const [edit] = sent(s.editCard('t1', { label: 'Rouge' }));
  hear(s, echo(edit, 2));
  const [back] = sent(s.undoChange(change));
  assert.deepEqual(back, { type: 'add', op: 'op3', base: 2, zone: 'grid', before: 't6', item: { label: 'T5', color: '#000' } });
  hear(s, echo(back, 3, { itemId: 'c3' }));
  assert.equal(view(s).items[0].label, 'Rouge', 'the later edit stays');
  // Undo (Ctrl+Z) now reverts the edit, the last change left; the toast's a second time: nothing.
  assert.deepEqual(sent(s.undo()), [{ type: 'edit', op: 'op4', base: 3, item: 't1', label: 'T1' }]);
  const again = s.undoChange(change);
  assert.deepEqual(sent(again), []);
  assert.deepEqual(texts(again), ['Already undone']);
  // A remove the server refused leaves nothing for its toast to undo.
  const held = s.removeCard('t7');
  const refused = held.find((e) => e.type === 'toast').change;
  hear(s, { type: 'reject', op: sent(held)[0].op, reason: 'conflict', seq: 3, by: 'u2' });
  const nothing = s.undoChange(refused);
  assert.deepEqual(sent(nothing), []);
  assert.deepEqual(texts(nothing), ['Nothing to undo: the server refused that change']);
});

test("the toast's Undo is refused, saying why, when this page's own later change touched the same cards", () => {
  const s = joined();
  const fx = s.removeCard('t5');
  const { change } = fx.find((e) => e.type === 'toast');
  hear(s, echo(sent(fx)[0], 1));
  // The card after it (its place's anchor) moved since: bringing it back "before t6" would not
  // be where it was.
  s.setMode('move');
  s.lift('t6');
  s.aim({ over: null, zone: 'tray' });
  const [drop] = sent(s.drop());
  assert.deepEqual(drop.action, { type: 'move', zone: 'tray', before: null });
  hear(s, { type: 'move', op: drop.op, seq: 2, by: 'u1', item: 't6', zone: 'tray', before: null });
  const out = s.undoChange(change);
  assert.deepEqual(sent(out), []);
  assert.deepEqual(texts(out), ["Can't undo: you changed those tiles since"]);
});

test('undo of an edit restores the old values; a server conflict leaves the board as it is and says so', () => {
  const s = joined();
  const [edit] = sent(s.editCard('t1', { label: 'Rouge' }));
  hear(s, echo(edit, 1));
  const [undo] = sent(s.undo());
  assert.deepEqual(undo, { type: 'edit', op: 'op2', base: 1, item: 't1', label: 'T1' });
  assert.equal(view(s).items[0].label, 'T1'); // shown at once
  const fx = hear(s, { type: 'reject', op: 'op2', reason: 'conflict', seq: 1, by: 'u2' });
  assert.equal(view(s).items[0].label, 'Rouge');
  assert.deepEqual(texts(fx), ['Bo changed that first; the board is as they left it']);
});

test("a conflict with this page's own earlier change says so, not someone else's name", () => {
  const s = joined();
  const [first] = sent(s.editCard('t1', { color: '#e53935' }));
  const [second] = sent(s.editCard('t1', { color: '#1e88e5' }));
  assert.equal(second.base, 0, 'sent before the first came back');
  hear(s, echo(first, 1));
  const fx = hear(s, { type: 'reject', op: second.op, reason: 'conflict', seq: 1, by: 'u1' });
  assert.deepEqual(texts(fx), ['You changed that a moment ago; try again']);
  assert.equal(view(s).items[0].color, '#e53935');
});

test('a card someone else holds cannot be removed; an empty label or a column with cards is refused locally', () => {
  const s = joined();
  hear(s, { type: 'dragStart', item: 't2', by: 'u2', at: 0 });
  const fx = s.removeCard('t2');
  assert.deepEqual(sent(fx), []);
  assert.deepEqual(texts(fx), ['Bo is holding that tile']);
  // An edit of the held card goes out: the server commits it.
  assert.equal(sent(s.editCard('t2', { label: 'Two' }))[0].type, 'edit');
  assert.deepEqual(texts(s.addCard('tray', '   ')), ['Type a label for the new card first']);
  assert.deepEqual(sent(s.addCard('tray', 'x'.repeat(201))), []);
  assert.deepEqual(texts(s.removeZone('grid')), ['That column still has cards: move or remove them first']);
  assert.deepEqual(sent(s.editCard('t3', { label: 'T3' })), [], 'no change, no op');
});

test('columns and the title: add, rename, remove, each undone', () => {
  const s = joined();
  const [addZone] = sent(s.addZone('Blocked', { before: 'tray' }));
  assert.deepEqual(addZone, { type: 'addZone', op: 'op1', base: 0, before: 'tray', zone: { title: 'Blocked', layout: 'list' } });
  hear(s, echo(addZone, 1, { zoneId: 'z1' }));
  assert.deepEqual(view(s).zones.map((z) => z.id), ['grid', 'z1', 'tray']);
  assert.deepEqual(view(s).zones.map((z) => z.layout), ['grid', 'list', 'row']);
  const [rename] = sent(s.renameZone('z1', 'Waiting'));
  hear(s, echo(rename, 2));
  const [retitle] = sent(s.retitle('Sprint 12'));
  hear(s, echo(retitle, 3));
  assert.equal(view(s).title, 'Sprint 12');
  assert.deepEqual(sent(s.undo()), [{ type: 'retitle', op: 'op4', base: 3, title: 'Board' }]);
  hear(s, echo({ type: 'retitle', op: 'op4', base: 3, title: 'Board' }, 4));
  assert.deepEqual(sent(s.undo()), [{ type: 'editZone', op: 'op5', base: 4, zone: 'z1', title: 'Blocked' }]);
  hear(s, echo({ type: 'editZone', op: 'op5', base: 4, zone: 'z1', title: 'Blocked' }, 5));
  assert.deepEqual(sent(s.undo()), [{ type: 'removeZone', op: 'op6', base: 5, zone: 'z1' }]);
  hear(s, echo({ type: 'removeZone', op: 'op6', base: 5, zone: 'z1' }, 6));
  assert.deepEqual(view(s).zones.map((z) => z.id), ['grid', 'tray']);
  const [back] = sent(s.redo());
  assert.deepEqual(back, { type: 'addZone', op: 'op7', base: 6, before: 'tray', zone: { title: 'Blocked', layout: 'list' } });
});

test('someone else\'s remove fades the card out and ends this page\'s lift of it', () => {
  const s = joined();
  s.lift('t4', 'keyboard');
  const fx = hear(s, { type: 'remove', op: 'x', seq: 1, by: 'u2', item: 't4' });
  assert.ok(fx.some((e) => e.type === 'fade' && e.item === 't4' && e.by.name === 'Bo'));
  assert.equal(s.drag, null);
  assert.equal(view(s).items.some((i) => i.id === 't4'), false);
  const change = fx.find((e) => e.type === 'remoteChange');
  assert.equal(plain(change?.change.text), 'Bo removed T4');
  // A column someone else removed is said before it goes from the view (an open field in it goes too).
  const gone = hear(s, { type: 'removeZone', op: 'y', seq: 2, by: 'u2', zone: 'tray' });
  const types = gone.map((e) => e.type);
  assert.deepEqual(gone.find((e) => e.type === 'zoneGone'), { type: 'zoneGone', zone: 'tray', by: BO });
  assert.ok(types.indexOf('zoneGone') < types.indexOf('render'));
});

test('BoardState logs the items an add made, for the undo check', () => {
  const st = new BoardState();
  st.reset(board(), 0);
  st.applyCommitted({ type: 'add', op: 'x', seq: 1, by: 'u2', zone: 'tray', before: null, item: { id: 'c1', label: 'A', color: '#000', on: false } });
  assert.deepEqual(st.log[0].items, ['c1']);
});
