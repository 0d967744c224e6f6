// Unit tests of web/session.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isolate, plain } from '../../web/bidi.js';
import * as P from '../../web/protocol.js';
import { SETTLE_MS, Session } from '../../web/session.js';
import { hear, lastSocket, lose, onSocket, reopen } from './wiring.mjs';

const GRID = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);

function board() {
  return {
    id: 'b1', title: 'b1', columns: 3,
    zones: [{ id: 'grid', items: GRID.slice() }, { id: 'tray', items: [] }],
    items: GRID.map((id) => ({ id, label: id.toUpperCase(), color: '#000', on: false })),
  };
}

const ANN = { id: 'u1', name: 'Ann', color: '#a00' };
const BO = { id: 'u2', name: 'Bo', color: '#0b0' };

function welcome(fields) {
  return { type: 'welcome', you: 'u1', seq: 0, drags: [], users: [ANN, BO], ...fields };
}

/** A session that said hello and got a welcome with the board at `seq`. */
function joined(seq = 0, fields = {}) {
  let n = 0;
  const s = new Session({ newOpId: () => `op${++n}` });
  reopen(s);
  hear(s, welcome({ seq, board: board(), ...fields }));
  return s;
}

/** A committed op broadcast. */
const op = (seq, by, body, id = `${by}-${seq}`) => ({ ...body, op: id, seq, by });
/** The broadcast of an op message this page sent (a plain op or a drop carrying one). */
function echo(msg, seq) {
  const { base, ...rest } = msg.type === 'drop' ? P.opFromDrop(msg) : msg;
  return { ...rest, seq, by: 'u1' };
}

const types = (fx) => fx.map((e) => e.type);
const sent = (fx) => fx.filter((e) => e.type === 'send').map((e) => e.msg);
/** The texts of `type` effects, as read (web/bidi.js: user text in them is isolated). */
const texts = (fx, type = 'toast') => fx.filter((e) => e.type === type).map((e) => plain(e.text));
const grid = (s) => s.scene().board.zones[0].items.join(' ');
const tray = (s) => s.scene().board.zones[1].items.join(' ');

/** Lifts `item` with the pointer, aims at `over` and drops: the effects of the drop. */
function dragOnto(s, item, over, zone = 'grid') {
  s.lift(item, 'pointer');
  s.aim({ over, zone });
  return s.drop();
}

// ---- Welcome and resume.

test('a first hello has no since; a welcome with a board shows it, says who is here and opens', () => {
  const s = new Session();
  assert.deepEqual(reopen(s), { type: 'hello', board: 'b1', name: 'Ann' });
  assert.equal(s.scene(), null);
  const fx = hear(s, welcome({ seq: 4, board: board(), drags: [{ item: 't3', by: 'u2' }] }));
  assert.deepEqual(types(fx), ['connection', 'presence', 'handStart', 'render']);
  assert.equal(fx[0].state, 'open');
  assert.deepEqual([...fx[1].users.keys()], ['u1', 'u2']);
  assert.equal(fx[1].me, 'u1');
  assert.deepEqual(fx[2], { type: 'handStart', user: BO, item: 't3' });
  assert.equal(s.open, true);
  const scene = s.scene();
  assert.equal(scene.seq, 4);
  assert.equal(grid(s), GRID.join(' '));
  assert.deepEqual(scene.deco.held, new Map([['t3', BO]]));
  assert.equal(s.heldByOther('t3'), true);
});

test('a reconnect resumes with since and applies the ops the welcome carries', () => {
  const s = joined(0);
  hear(s, op(1, 'u2', { type: 'swap', a: 't1', b: 't2' }));
  const fx = lose(s);
  assert.deepEqual(types(fx), ['connection', 'handEnd', 'render']);
  assert.equal(fx[0].state, 'closed');
  assert.equal(fx[1].by, null);
  assert.equal(s.open, false);
  assert.deepEqual(reopen(s), { type: 'hello', board: 'b1', name: 'Ann', since: 1 });
  const back = hear(s, welcome({
    seq: 3,
    ops: [op(2, 'u2', { type: 'move', item: 't3', zone: 'tray', before: null }), op(3, 'u2', { type: 'toggle', item: 't4', on: true })],
  }));
  assert.ok(!types(back).includes('resync'));
  assert.equal(s.open, true);
  assert.equal(s.scene().seq, 3);
  assert.equal(grid(s), 't2 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  assert.equal(tray(s), 't3');
  assert.equal(s.scene().board.items[3].on, true);
});

// The seq checks and resyncs are the SDK client's (sdk/stream.js); the session hears only what
// fits the board it has, so it never shows a board with a hole in it.

/** True when the client closed its socket to start over (a resync). */
const resyncing = (s) => lastSocket(s).closedWith?.reason === 'resync';

test('a resume that skips a seq starts over with a hello without since', () => {
  const s = joined(2);
  lose(s);
  assert.equal(reopen(s).since, 2);
  assert.deepEqual(hear(s, welcome({ seq: 4, ops: [op(4, 'u2', { type: 'toggle', item: 't1', on: true })] })), []);
  assert.ok(resyncing(s));
  // The rest of the old connection is ignored.
  assert.deepEqual(hear(s, op(5, 'u2', { type: 'toggle', item: 't2', on: true })), []);
  assert.equal(s.scene().seq, 2);
  lose(s);
  assert.deepEqual(reopen(s), { type: 'hello', board: 'b1', name: 'Ann' });
  hear(s, welcome({ seq: 5, board: board() }));
  assert.equal(s.scene().seq, 5);
  // Only once: the next reconnect resumes again.
  lose(s);
  assert.equal(reopen(s).since, 5);
});

test('a resume that ends short of the welcome seq, or carries neither board nor ops, also starts over', () => {
  const short = joined(1);
  lose(short);
  reopen(short);
  assert.deepEqual(hear(short, welcome({ seq: 3, ops: [op(2, 'u2', { type: 'toggle', item: 't1', on: true })] })), []);
  assert.ok(resyncing(short));
  assert.equal(short.scene().seq, 1, 'nothing of a resume that does not fit is applied');
  lose(short);
  assert.equal(reopen(short).since, undefined);

  const empty = joined(1);
  lose(empty);
  reopen(empty);
  assert.deepEqual(hear(empty, welcome({ seq: 1 })), []);
  assert.ok(resyncing(empty));
});

test('a gap in the live stream resyncs, resuming from the last applied seq', () => {
  const s = joined(0);
  assert.deepEqual(hear(s, op(2, 'u2', { type: 'toggle', item: 't1', on: true })), []);
  assert.ok(resyncing(s));
  assert.deepEqual(hear(s, op(3, 'u2', { type: 'toggle', item: 't2', on: true })), []);
  lose(s);
  // The server still has what is missing: resume rather than reload.
  assert.equal(reopen(s).since, 0);
  hear(s, welcome({ seq: 2, ops: [op(1, 'u2', { type: 'toggle', item: 't3', on: true }), op(2, 'u2', { type: 'toggle', item: 't1', on: true })] }));
  assert.equal(s.scene().seq, 2);
  assert.deepEqual(s.scene().board.items.filter((i) => i.on).map((i) => i.id), ['t1', 't3']);
});

test('duplicates of applied ops change nothing', () => {
  const s = joined(0);
  hear(s, op(1, 'u2', { type: 'swap', a: 't1', b: 't2' }));
  assert.deepEqual(hear(s, op(1, 'u2', { type: 'swap', a: 't1', b: 't2' })), []);
  assert.equal(grid(s).slice(0, 5), 't2 t1');
});

// ---- Pending ops.

test('ops made offline stay pending and are sent after the welcome, with their op id and base', () => {
  const s = joined(0);
  lose(s);
  assert.deepEqual(sent(dragOnto(s, 't1', 't2')), []);
  assert.deepEqual(sent(dragOnto(s, 't5', 't6')), []);
  assert.deepEqual(sent(dragOnto(s, 't9', 't10')), []);
  assert.equal(grid(s), 't2 t1 t3 t4 t6 t5 t7 t8 t10 t9 t11 t12');
  reopen(s);
  // The client's outbox sends them (the session only shows them pending).
  assert.deepEqual(sent(hear(s, welcome({ seq: 0, ops: [] }))), []);
  const out = onSocket(s);
  assert.deepEqual(out, [
    { type: 'swap', op: 'op1', base: 0, a: 't1', b: 't2' },
    { type: 'swap', op: 'op2', base: 0, a: 't5', b: 't6' },
    { type: 'swap', op: 'op3', base: 0, a: 't9', b: 't10' },
  ]);
  // The echo, an ack and a reject each end one.
  hear(s, echo(out[0], 1));
  assert.deepEqual(s.state.pending.map((p) => p.op), ['op2', 'op3']);
  hear(s, { type: 'ack', op: 'op2', seq: 1 });
  assert.deepEqual(s.state.pending.map((p) => p.op), ['op3']);
  const rej = hear(s, { type: 'reject', op: 'op3', reason: 'conflict', seq: 1, by: 'u2' });
  assert.deepEqual(s.state.pending, []);
  assert.deepEqual(texts(rej), ['Bo moved that tile first']);
  assert.deepEqual(rej.find((e) => e.type === 'pulse'), { type: 'pulse', items: ['t9', 't10'], kind: 'reject' });
  assert.equal(grid(s), 't2 t1 t3 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  // Nothing is resent after the next reconnect.
  lose(s);
  reopen(s);
  hear(s, welcome({ seq: 1, ops: [] }));
  assert.deepEqual(onSocket(s), []);
});

test('a drop on a held tile carries its op; after a lost connection the op is resent as a plain op', () => {
  const s = joined(0);
  assert.deepEqual(sent(s.lift('t1', 'pointer')), [{ type: 'dragStart', item: 't1' }]);
  s.aim({ over: 't4', zone: 'grid' });
  const drop = sent(s.drop());
  assert.deepEqual(drop, [{ type: 'drop', item: 't1', op: 'op1', base: 0, action: { type: 'swap', with: 't4' } }]);
  lose(s);
  reopen(s);
  hear(s, welcome({ seq: 0, ops: [] }));
  assert.deepEqual(onSocket(s), [{ type: 'swap', op: 'op1', base: 0, a: 't1', b: 't4' }]);
  hear(s, echo(drop[0], 1));
  assert.deepEqual(s.state.pending, []);
});

test('a pending op the resume already carries is confirmed by it and not sent again', () => {
  const s = joined(0);
  const [msg] = sent(dragOnto(s, 't1', 't2'));
  lose(s);
  reopen(s);
  hear(s, welcome({ seq: 1, ops: [echo(msg, 1)] }));
  assert.deepEqual(onSocket(s), []);
  assert.deepEqual(s.state.pending, []);
  // And it is committed for undo.
  assert.deepEqual(sent(s.undo()), [{ type: 'swap', op: 'op2', base: 1, a: 't1', b: 't2' }]);
});

test('an ack for a seq not applied yet waits for the broadcast', () => {
  const s = joined(0);
  hear(s, op(1, 'u2', { type: 'toggle', item: 't12', on: true }));
  const [msg] = sent(dragOnto(s, 't1', 't2'));
  hear(s, { type: 'ack', op: msg.op, seq: 2 });
  assert.equal(s.state.isPending(msg.op), true);
  hear(s, echo(msg, 2));
  assert.equal(s.state.isPending(msg.op), false);
});

// ---- Rejects.

test('every reject reason is said in words, and the tiles shake back', () => {
  const cases = [
    ['conflict', 'Bo moved that tile first'],
    ['held', 'Bo is holding that tile'],
    ['stale', 'Your view was too old; the board has been refreshed'],
    ['unknown_item', 'That tile no longer exists'],
    ['unknown_zone', 'That area no longer exists'],
    ['invalid', 'That move is not possible'],
    ['something_new', 'The server refused that (something_new)'],
  ];
  for (const [reason, text] of cases) {
    const s = joined(0);
    const [msg] = sent(dragOnto(s, 't1', 't2'));
    const fx = hear(s, { type: 'reject', op: msg.op, reason, seq: 0, by: 'u2' });
    assert.deepEqual(types(fx), ['render', 'pulse', 'toast', 'announce'], reason);
    assert.deepEqual(texts(fx), [text], reason);
    assert.deepEqual(texts(fx, 'announce'), [text], reason);
    assert.equal(grid(s), GRID.join(' '), reason);
  }
});

test('bad_base also reloads the snapshot; a reject of an unknown op changes nothing', () => {
  const s = joined(3);
  const [msg] = sent(dragOnto(s, 't1', 't2'));
  assert.deepEqual(types(hear(s, { type: 'reject', op: 'nope', reason: 'conflict', seq: 3 })), []);
  const fx = hear(s, { type: 'reject', op: msg.op, reason: 'bad_base', seq: 0 });
  assert.deepEqual(texts(fx), ['Out of sync with the server; refreshing']);
  assert.deepEqual(s.state.pending, [], 'taken back like any refused op');
  assert.ok(resyncing(s), 'the client starts over from the board');
  lose(s);
  assert.equal(reopen(s).since, undefined);
});

test('a refused dragStart puts the tile back without releasing anything', () => {
  const s = joined(0);
  s.lift('t1', 'pointer');
  // A refusal about another tile is not about this drag.
  assert.deepEqual(hear(s, { type: 'reject', op: null, reason: 'held', seq: 0, by: 'u2', item: 't7' }), []);
  const fx = hear(s, { type: 'reject', op: null, reason: 'held', seq: 0, by: 'u2', item: 't1' });
  assert.equal(s.drag, null);
  assert.deepEqual(sent(fx), []);
  assert.deepEqual(fx.find((e) => e.type === 'render'), { type: 'render', glide: 't1' });
  assert.deepEqual(texts(fx), ['Bo is holding that tile']);
  assert.deepEqual(fx.find((e) => e.type === 'pulse'), { type: 'pulse', items: ['t1'], kind: 'reject' });
});

test('a press on a held tile asks the server once, so the page waits in its line; the refusal is silent', () => {
  const s = joined(0);
  hear(s, { type: 'dragStart', item: 't3', by: 'u2', at: 0 });
  const fx = s.refuse('t3', 'pointer');
  assert.deepEqual(texts(fx), ['Bo is holding that tile']);
  assert.deepEqual(sent(fx), [{ type: 'dragStart', item: 't3' }]);
  assert.deepEqual(sent(s.refuse('t3', 'pointer')), [], 'one ask at a time');
  assert.deepEqual(hear(s, { type: 'reject', op: null, reason: 'held', seq: 0, by: 'u2', item: 't3' }), []);
  assert.deepEqual(sent(s.refuse('t3', 'keyboard')), [{ type: 'dragStart', item: 't3' }], 'answered: it may ask again');
});

test('an ask the server grants because the hold had just ended is given back at once', () => {
  const s = joined(0);
  hear(s, { type: 'dragStart', item: 't3', by: 'u2', at: 0 });
  s.refuse('t3', 'pointer');
  hear(s, { type: 'drop', item: 't3', by: 'u2', at: 0 });
  const fx = hear(s, { type: 'dragStart', item: 't3', by: 'u1', at: 0 });
  assert.deepEqual(sent(fx), [{ type: 'drop', item: 't3' }]);
  assert.equal(s.drag, null);
  // Held by this page until the server has the drop (nobody else is kept from it meanwhile).
  assert.equal(s.heldByOther('t3'), false);
  hear(s, { type: 'drop', item: 't3', by: 'u1', at: 0 });
  assert.equal(s.scene().deco.held.size, 0);
});

test('a refusal saying the hold is ours already leaves the drag alone', () => {
  const s = joined(0);
  s.lift('t1', 'pointer');
  hear(s, { type: 'dragStart', item: 't1', by: 'u1', at: 0 });
  assert.deepEqual(hear(s, { type: 'reject', op: null, reason: 'held', seq: 0, by: 'u1', item: 't1' }), []);
  assert.equal(s.drag.item, 't1');
});

test('a dragStart refused by the turn rules or the per-address limit puts the tile back and says why', () => {
  const cases = [
    [{ reason: 'cooldown', by: 'u2' }, 'Bo asked for that tile first; it is their turn'],
    [{ reason: 'cooldown' }, 'Your hold on that tile just ended; others go first for a few seconds'],
    [{ reason: 'hold_limit' }, 'Too many tiles are held from your network at once; drop one first'],
  ];
  for (const [refusal, text] of cases) {
    const s = joined(0);
    s.lift('t1', 'pointer');
    const fx = hear(s, { type: 'reject', op: null, seq: 0, item: 't1', ...refusal });
    assert.equal(s.drag, null, text);
    assert.deepEqual(sent(fx), [], text);
    assert.deepEqual(texts(fx), [text]);
    assert.equal(texts(fx, 'announce').at(-1), text, 'said last to a screen reader, after the tile goes back');
  }
});

// ---- Undo and redo.

test('undo waits for the commit, then reverts with a new op; redo makes it again', () => {
  const s = joined(0);
  const [msg] = sent(dragOnto(s, 't1', 't2'));
  const early = s.undo();
  assert.deepEqual(texts(early), ['Still saving that change; try again in a moment']);
  assert.deepEqual(sent(early), []);
  hear(s, echo(msg, 1));
  const undo = s.undo();
  assert.deepEqual(sent(undo), [{ type: 'swap', op: 'op2', base: 1, a: 't1', b: 't2' }]);
  assert.deepEqual(texts(undo, 'announce'), ['Undone.']);
  assert.equal(grid(s), GRID.join(' '));
  assert.deepEqual(texts(s.redo()), ['Still saving that change; try again in a moment']);
  hear(s, echo(sent(undo)[0], 2));
  const redo = s.redo();
  assert.deepEqual(sent(redo), [{ type: 'swap', op: 'op3', base: 2, a: 't1', b: 't2' }]);
  assert.deepEqual(texts(redo, 'announce'), ['Redone.']);
  assert.equal(grid(s).slice(0, 5), 't2 t1');
  hear(s, echo(sent(redo)[0], 3));
  assert.deepEqual(texts(s.redo()), ['Nothing to redo']);
  // The redone change can be undone again.
  assert.equal(sent(s.undo()).length, 1);
});

test('undo of a move puts the tile back before its old neighbour', () => {
  const s = joined(0);
  s.setMode('move');
  const [msg] = sent(dragOnto(s, 't2', null, 'tray'));
  assert.deepEqual(msg.action, { type: 'move', zone: 'tray', before: null });
  hear(s, echo(msg, 1));
  assert.deepEqual(sent(s.undo()), [{ type: 'move', op: 'op2', base: 1, item: 't2', zone: 'grid', before: 't3' }]);
  assert.equal(grid(s), GRID.join(' '));
});

test('undo is refused when someone else moved those tiles since, and that step is dropped', () => {
  const s = joined(0);
  hear(s, echo(sent(dragOnto(s, 't1', 't2'))[0], 1));
  // Someone else's change to other tiles does not matter.
  hear(s, op(2, 'u2', { type: 'toggle', item: 't9', on: true }));
  hear(s, op(3, 'u2', { type: 'move', item: 't2', zone: 'tray', before: null }));
  const fx = s.undo();
  assert.deepEqual(sent(fx), []);
  assert.deepEqual(texts(fx), ["Can't undo: Bo changed those tiles since"]);
  assert.deepEqual(texts(fx, 'announce'), ["Can't undo: Bo changed those tiles since"]);
  assert.deepEqual(texts(s.undo()), ['Nothing to undo']);
});

test('undo further back than the remembered ops is refused as too old', () => {
  const s = joined(0);
  hear(s, echo(sent(dragOnto(s, 't1', 't2'))[0], 1));
  for (let seq = 2; seq <= 502; seq += 1) hear(s, op(seq, 'u2', { type: 'toggle', item: 't12', on: seq % 2 === 0 }));
  assert.deepEqual(texts(s.undo()), ["Can't undo: that change is too old"]);
});

test('a paint stroke is one change, counting ops answered while it went on', () => {
  const s = joined(0);
  s.setMode('paint');
  const first = sent(s.paint('t1'));
  assert.deepEqual(first, [{ type: 'toggle', op: 'op1', base: 0, item: 't1', on: true }]);
  hear(s, echo(first[0], 1));
  const [second] = sent(s.paint('t2'));
  hear(s, { type: 'reject', op: second.op, reason: 'conflict', seq: 1, by: 'u2' });
  const [third] = sent(s.paint('t3'));
  assert.deepEqual(texts(s.paintEnd(), 'announce'), ['Painted 3 tiles.']);
  hear(s, echo(third, 2));
  // The rejected op is not part of it; the others are undone together, newest first.
  assert.deepEqual(sent(s.undo()), [
    { type: 'toggle', op: 'op4', base: 2, item: 't3', on: false },
    { type: 'toggle', op: 'op5', base: 2, item: 't1', on: false },
  ]);
  assert.deepEqual(texts(s.undo()), ['Nothing to undo']);
});

test('paint skips tiles someone else holds (asking for them, to go first); an empty stroke records nothing', () => {
  const s = joined(0, { drags: [{ item: 't1', by: 'u2' }] });
  s.setMode('paint');
  assert.deepEqual(s.paint('t1'), [{ type: 'send', msg: { type: 'dragStart', item: 't1' } }]);
  assert.deepEqual(s.paint('t1'), [], 'one ask at a time');
  assert.deepEqual(s.paintEnd(), []);
  assert.deepEqual(texts(s.undo()), ['Nothing to undo']);
});

// ---- This page's drags.

test('a lift asks for the hold; aiming offers hovers; the drop flushes them before carrying its op', () => {
  const s = joined(0);
  assert.deepEqual(s.lift('t1', 'pointer'), [
    { type: 'hoverReset' },
    { type: 'ghost', item: 't1' },
    { type: 'send', msg: { type: 'dragStart', item: 't1' } },
    { type: 'render', glide: null },
    { type: 'announce', text: `Picked up ${isolate('T1')}.` },
  ]);
  assert.deepEqual(s.lift('t2', 'pointer'), [], 'one lift at a time');
  assert.deepEqual(s.aim({ over: 't5', zone: 'grid' }), [
    { type: 'render', glide: null },
    { type: 'hover', msg: { type: 'hover', item: 't1', over: 't5', zone: 'grid', mode: 'swap' }, key: 't1|grid/t5' },
  ]);
  assert.equal(s.scene().deco.over, 't5');
  assert.equal(s.scene().deco.dragging, 't1');
  assert.deepEqual(s.aim({ over: 't5', zone: 'grid' }), [], 'the same target again');
  // Outside every target: the hand goes back over the tile's own place.
  assert.deepEqual(s.aim(null)[1].msg, { type: 'hover', item: 't1', over: 't1', zone: 'grid', mode: 'swap' });
  s.aim({ over: 't5', zone: 'grid' });
  const fx = s.drop();
  assert.deepEqual(types(fx), ['hoverFlush', 'send', 'render', 'announce']);
  assert.equal(fx[1].msg.type, 'drop');
  assert.deepEqual(fx[2], { type: 'render', glide: 't1' });
  assert.deepEqual(texts(fx, 'announce'), ['Swapped T1 with T5.']);
  assert.equal(s.drag, null);
  assert.equal(grid(s).split(' ')[4], 't1');
});

test('a drop with no target releases the hold and changes nothing', () => {
  const s = joined(0);
  s.lift('t1', 'pointer');
  const fx = s.drop();
  assert.deepEqual(sent(fx), [{ type: 'drop', item: 't1' }]);
  assert.deepEqual(texts(fx, 'announce'), ['Dropped T1 in its place; nothing changed.']);
  assert.deepEqual(s.state.pending, []);
});

test('a cancel points the hover home before releasing; a mode switch cancels too', () => {
  const s = joined(0);
  s.lift('t4', 'pointer');
  s.aim({ over: 't5', zone: 'grid' });
  const fx = s.cancel();
  assert.deepEqual(types(fx), ['hoverReset', 'send', 'send', 'render', 'announce']);
  assert.deepEqual(sent(fx), [
    { type: 'hover', item: 't4', over: 't4', zone: 'grid', mode: 'swap' },
    { type: 'drop', item: 't4' },
  ]);
  assert.deepEqual(texts(fx, 'announce'), ['Cancelled. T4 is back in its place.']);
  s.lift('t4', 'pointer');
  const mode = s.setMode('move');
  assert.deepEqual(sent(mode).map((m) => m.type), ['hover', 'drop']);
  assert.deepEqual(mode.at(-1), { type: 'mode', mode: 'move' });
  assert.equal(s.mode, 'move');
  assert.deepEqual(s.setMode('nonsense'), []);
});

test('move mode: the scene shows the live reorder and the drop is a move', () => {
  const s = joined(0);
  s.setMode('move');
  s.lift('t1', 'pointer');
  const fx = s.aim({ over: 't3', zone: 'grid' });
  assert.equal(fx[1].msg.mode, 'move');
  assert.equal(grid(s), 't2 t3 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  assert.equal(s.state.view().zones[0].items[0], 't1', 'only a preview');
  const drop = s.drop();
  assert.deepEqual(sent(drop)[0].action, { type: 'move', zone: 'grid', before: 't4' });
  assert.match(texts(drop, 'announce')[0], /^Moved T1 to Grid position 3 of 12\.$/);
  // Over a zone's empty space in swap mode: that zone's end, as a move.
  s.setMode('swap');
  s.lift('t5', 'pointer');
  s.aim({ over: null, zone: 'tray' });
  assert.equal(s.scene().deco.overZone, 'tray');
  assert.deepEqual(sent(s.drop())[0].action, { type: 'move', zone: 'tray', before: null });
});

test('keyboard lift: arrows walk the targets, Enter drops and focus returns to the tile', () => {
  const s = joined(0);
  const lift = s.lift('t1', 'keyboard');
  assert.ok(!types(lift).includes('ghost'));
  assert.match(texts(lift, 'announce')[0], /^Picked up T1\. Arrow keys/);
  assert.deepEqual(s.scene().deco.keyboardTarget, { over: 't1', zone: 'grid' });
  assert.equal(s.scene().deco.lifted, 't1');
  assert.deepEqual(texts(s.aimKey('ArrowDown'), 'announce'), ['Over T4, Grid position 4 of 12.']);
  const right = s.aimKey('ArrowRight');
  assert.equal(right.find((e) => e.type === 'hover').msg.over, 't5');
  assert.deepEqual(texts(s.aimKey('ArrowLeft'), 'announce'), ['Over T4, Grid position 4 of 12.']);
  s.aimKey('ArrowUp');
  assert.deepEqual(texts(s.aimKey('ArrowLeft'), 'announce'), ['Over its own place.']);
  s.aimKey('ArrowDown');
  s.aimKey('ArrowRight');
  const fx = s.drop();
  assert.deepEqual(sent(fx)[0].action, { type: 'swap', with: 't5' });
  assert.deepEqual(fx.find((e) => e.type === 'focus'), { type: 'focus', item: 't1' });
});

test('a drag survives a reconnect: the hold is asked for again and hovers wait for it', () => {
  const s = joined(0);
  s.lift('t1', 'pointer');
  lose(s);
  assert.equal(s.drag.item, 't1');
  // No hovers while there is no connection.
  assert.deepEqual(types(s.aim({ over: 't2', zone: 'grid' })), ['render']);
  reopen(s);
  assert.deepEqual(sent(hear(s, welcome({ seq: 0, ops: [] }))), [{ type: 'dragStart', item: 't1' }]);
  assert.equal(sent(s.drop())[0].type, 'drop');
});

test('a hold that expired ends the lift and says why', () => {
  const s = joined(0);
  s.lift('t1', 'pointer');
  hear(s, { type: 'dragStart', item: 't1', by: 'u1', at: 0 });
  assert.deepEqual(s.scene().deco.held.get('t1'), ANN);
  const fx = hear(s, { type: 'drop', item: 't1', by: 'u1', at: 0, reason: 'expired' });
  assert.equal(s.drag, null);
  assert.deepEqual(sent(fx), []);
  assert.deepEqual(texts(fx), ['Your hold expired (30 seconds without movement, or 2 minutes in all); others go first for a few seconds']);
  assert.equal(s.scene().deco.held.size, 0);
});

// ---- Other people.

test('someone else\'s lift marks the tile, stops a press on it and refuses it with their name', () => {
  const s = joined(0);
  const fx = hear(s, { type: 'dragStart', item: 't2', by: 'u2', at: 0 });
  assert.deepEqual(types(fx), ['handStart', 'taken', 'render']);
  assert.deepEqual(fx[1], { type: 'taken', item: 't2' });
  assert.equal(s.heldByOther('t2'), true);
  assert.deepEqual(s.refuse('t2', 'pointer'), [
    { type: 'toast', text: `${isolate('Bo')} is holding that tile` },
    { type: 'pulse', items: ['t2'], kind: 'reject' },
    { type: 'send', msg: { type: 'dragStart', item: 't2' } }, // an ask: this page waits in line
  ]);
  assert.deepEqual(s.refuse('t2', 'keyboard'), [
    { type: 'toast', text: `${isolate('Bo')} is holding that tile` },
    { type: 'announce', text: `${isolate('Bo')} is holding that tile` },
  ]);
  assert.deepEqual(s.refuse('t3'), []);
  hear(s, { type: 'drop', item: 't2', by: 'u2', at: 0 });
  assert.equal(s.heldByOther('t2'), false);
});

test('a swap-mode hover outlines the target; a move-mode hover previews the reorder', () => {
  const s = joined(0);
  hear(s, { type: 'dragStart', item: 't1', by: 'u2', at: 0 });
  const swap = hear(s, { type: 'hover', item: 't1', over: 't5', zone: 'grid', mode: 'swap', by: 'u2', at: 0 });
  assert.deepEqual(swap[0], { type: 'handHover', by: 'u2', target: { over: 't5', zone: 'grid' } });
  assert.deepEqual(s.scene().deco.remoteOver, new Map([['t5', BO]]));
  assert.equal(grid(s), GRID.join(' '));
  const move = hear(s, { type: 'hover', item: 't1', over: 't3', zone: 'grid', mode: 'move', by: 'u2', at: 0 });
  assert.deepEqual(move[0], { type: 'handHover', by: 'u2', target: { over: 't1', zone: 'grid' } });
  assert.equal(grid(s), 't2 t3 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  assert.equal(s.scene().deco.remoteOver.size, 0);
  assert.equal(s.state.view().zones[0].items[0], 't1', 'never stored');
  // While this page drags itself, others' previews are not shown.
  s.lift('t9', 'pointer');
  assert.equal(grid(s), GRID.join(' '));
  s.cancel();
  assert.equal(grid(s).slice(0, 8), 't2 t3 t1');
  // Own hovers echoed back are ignored.
  assert.deepEqual(hear(s, { type: 'hover', item: 't9', over: 't1', zone: 'grid', mode: 'move', by: 'u1', at: 0 }), []);
});

test('a released move preview stays until its op arrives', () => {
  const s = joined(0);
  hear(s, { type: 'dragStart', item: 't1', by: 'u2', at: 0 });
  hear(s, { type: 'hover', item: 't1', over: 't3', zone: 'grid', mode: 'move', by: 'u2', at: 0 });
  const fx = hear(s, { type: 'drop', item: 't1', by: 'u2', at: 0 });
  const wake = fx.find((e) => e.type === 'wake');
  assert.equal(wake.after, SETTLE_MS);
  assert.ok(types(fx).includes('handEnd'));
  assert.equal(grid(s), 't2 t3 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  const committed = hear(s, op(1, 'u2', { type: 'move', item: 't1', zone: 'grid', before: 't4' }));
  assert.deepEqual(committed.find((e) => e.type === 'pulse'), { type: 'pulse', items: ['t1'], kind: 'remote', color: BO.color });
  assert.equal(grid(s), 't2 t3 t1 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  assert.equal(s.settling.size, 0);
  // The timer finds nothing left to do.
  assert.deepEqual(s.wake(wake.token), []);
});

test('a released move preview with no op goes back when its timer runs out; a hold that ended without a drop goes at once', () => {
  const s = joined(0);
  hear(s, { type: 'hover', item: 't1', over: 't3', zone: 'grid', mode: 'move', by: 'u2', at: 0 });
  const first = hear(s, { type: 'drop', item: 't1', by: 'u2', at: 0 }).find((e) => e.type === 'wake');
  // Lifted and released again before the first timer ran out: only the second timer counts.
  hear(s, { type: 'dragStart', item: 't1', by: 'u2', at: 0 });
  hear(s, { type: 'hover', item: 't1', over: 't2', zone: 'grid', mode: 'move', by: 'u2', at: 0 });
  const second = hear(s, { type: 'drop', item: 't1', by: 'u2', at: 0 }).find((e) => e.type === 'wake');
  assert.notEqual(first.token, second.token);
  assert.deepEqual(s.wake(first.token), []);
  assert.equal(grid(s).slice(0, 5), 't2 t1');
  assert.deepEqual(types(s.wake(second.token)), ['render']);
  assert.equal(grid(s), GRID.join(' '));

  hear(s, { type: 'hover', item: 't4', over: 't6', zone: 'grid', mode: 'move', by: 'u2', at: 0 });
  const left = hear(s, { type: 'drop', item: 't4', by: 'u2', at: 0, reason: 'left' });
  assert.ok(!types(left).includes('wake'));
  assert.equal(grid(s), GRID.join(' '));
});

test('join and leave keep the people list; a leave takes the hand and hover with it', () => {
  const s = joined(0);
  const cy = { id: 'u3', name: 'Cy', color: '#00c' };
  const join = hear(s, { type: 'join', user: cy });
  assert.deepEqual([...join[0].users.values()], [ANN, BO, cy]);
  hear(s, { type: 'hover', item: 't1', over: 't5', zone: 'grid', mode: 'swap', by: 'u3', at: 0 });
  const leave = hear(s, { type: 'leave', user: cy });
  assert.deepEqual(types(leave), ['handEnd', 'presence', 'render']);
  assert.equal(leave[0].by, 'u3');
  assert.equal(s.scene().deco.remoteOver.size, 0);
  assert.deepEqual([...leave[1].users.keys()], ['u1', 'u2']);
});

test('a disconnect forgets holds, hovers and previews', () => {
  const s = joined(0, { drags: [{ item: 't2', by: 'u2' }] });
  hear(s, { type: 'hover', item: 't2', over: 't5', zone: 'grid', mode: 'move', by: 'u2', at: 0 });
  assert.notEqual(grid(s), GRID.join(' '));
  lose(s);
  assert.equal(s.heldByOther('t2'), false);
  assert.equal(grid(s), GRID.join(' '));
});

test('a remote op flashes its tiles in the author\'s color, not the anchor', () => {
  const s = joined(0);
  const fx = hear(s, op(1, 'u2', { type: 'move', item: 't1', zone: 'grid', before: 't6' }));
  assert.deepEqual(fx.find((e) => e.type === 'pulse'), { type: 'pulse', items: ['t1'], kind: 'remote', color: BO.color });
  // Own ops do not flash.
  const [msg] = sent(dragOnto(s, 't7', 't8'));
  assert.ok(!types(hear(s, echo(msg, 2))).includes('pulse'));
});

test('server errors are shown and logged; unknown types are ignored', () => {
  const s = joined(0);
  const fx = hear(s, { type: 'error', code: 'bad_message', message: 'no type' });
  assert.deepEqual(texts(fx), ['Server: no type']);
  assert.equal(fx[0].type, 'warn');
  assert.deepEqual(hear(s, { type: 'future', x: 1 }), []);
});

// ---- Layouts and other people's changes.

function kanban() {
  return {
    id: 'k', title: 'K', columns: 3,
    zones: [
      { id: 'todo', items: ['c1', 'c2'], title: 'To do', layout: 'list' },
      { id: 'doing', items: ['c3'], title: 'Doing', layout: 'list' },
      { id: 'done', items: [], title: 'Done', layout: 'list' },
    ],
    items: ['c1', 'c2', 'c3'].map((id) => ({ id, label: `Card ${id}`, color: '#000', on: false, detail: 'x' })),
  };
}

test('someone else\'s committed op is handed to the announcer as a sentence; one\'s own is not', () => {
  const s = joined(0);
  const fx = hear(s, op(1, 'u2', { type: 'move', item: 't5', zone: 'grid', before: 't2' }));
  assert.deepEqual(fx.find((e) => e.type === 'remoteChange').change,
    { by: 'u2', name: 'Bo', kind: 'move', text: `${isolate('Bo')} moved ${isolate('T5')} before ${isolate('T2')}` });
  const mine = dragOnto(s, 't1', 't3');
  const back = hear(s, echo(sent(mine)[0], 2));
  assert.equal(back.some((e) => e.type === 'remoteChange'), false);
  // A duplicate is not said twice.
  assert.equal(hear(s, op(1, 'u2', { type: 'move', item: 't5', zone: 'grid', before: 't2' })).length, 0);
  // Across zones it says where to.
  const k = new Session();
  reopen(k);
  hear(k, welcome({ seq: 0, board: kanban() }));
  const moved = hear(k, op(1, 'u2', { type: 'move', item: 'c3', zone: 'done', before: null }));
  assert.equal(plain(moved.find((e) => e.type === 'remoteChange').change.text), 'Bo moved Card c3 to the end of Done');
});

test('keyboard aiming follows the layout: in kanban lists up/down walk a column, left/right change it', () => {
  const s = new Session({ newOpId: () => 'k1' });
  reopen(s);
  hear(s, welcome({ seq: 0, board: kanban() }));
  s.setMode('move');
  s.lift('c1', 'keyboard');
  assert.deepEqual(texts(s.aimKey('ArrowDown'), 'announce'), ['Over Card c2, To do position 2 of 2.']);
  s.aimKey('ArrowUp');
  assert.deepEqual(texts(s.aimKey('ArrowRight'), 'announce'), ['Over Card c3, Doing position 1 of 1.']);
  assert.deepEqual(texts(s.aimKey('ArrowRight'), 'announce'), ['Over the end of Done.']);
  const fx = s.drop();
  assert.deepEqual(sent(fx)[0].action, { type: 'move', zone: 'done', before: null });
  assert.match(texts(fx, 'announce')[0], /^Moved Card c1 to Done position 1 of 1\.$/);
  assert.equal(s.layoutOf('c1').title, 'Done');
  assert.equal(s.layoutOf('c2').layout, 'list');
  assert.equal(s.layoutOf('nope'), null);
});

// ---- Large boards (presence).

test('a large board says how many are there, folds joins into presence counts, and names hands', () => {
  const s = joined(0, { userCount: 120 });
  const presence = (fx) => fx.filter((e) => e.type === 'presence');
  let [p] = presence(hear(s, { type: 'presence', userCount: 130 }));
  assert.equal(p.count, 130);
  assert.deepEqual([...p.users.keys()], ['u1', 'u2']);
  // A hand from someone this page was never told of names them.
  const CY = { id: 'u77', name: 'Cy', color: '#00c' };
  const fx = hear(s, { type: 'dragStart', item: 't3', by: 'u77', at: 0, user: CY });
  assert.equal(s.user('u77').name, 'Cy');
  assert.equal(presence(fx).length, 1);
  // Small again: the presence carries everyone, and the count goes.
  [p] = presence(hear(s, { type: 'presence', userCount: 2, users: [ANN, BO] }));
  assert.equal(p.count, null);
  assert.deepEqual([...p.users.keys()], ['u1', 'u2']);
});

test('a small board has no count', () => {
  const s = joined(0);
  const [p] = hear(s, { type: 'join', user: { id: 'u3', name: 'Di', color: '#333' } }).filter((e) => e.type === 'presence');
  assert.equal(p.count, null);
  assert.equal(p.users.size, 3);
});

test('an op the server refuses with unavailable is taken back like a rejected one, and not sent again', () => {
  const s = joined(0);
  const fx = dragOnto(s, 't1', 't2');
  assert.deepEqual(sent(fx), [{ type: 'drop', item: 't1', op: 'op1', base: 0, action: { type: 'swap', with: 't2' } }]);
  assert.equal(grid(s), 't2 t1 t3 t4 t5 t6 t7 t8 t9 t10 t11 t12');
  const refused = hear(s, { type: 'error', code: 'unavailable', message: 'the store is not keeping up', op: 'op1' });
  assert.deepEqual(s.state.pending, []);
  assert.equal(grid(s), GRID.join(' '));
  assert.deepEqual(texts(refused), ['The server could not store that just now; try again in a moment']);
  assert.deepEqual(refused.find((e) => e.type === 'pulse'), { type: 'pulse', items: ['t1', 't2'], kind: 'reject' });
  lose(s);
  reopen(s);
  assert.deepEqual(sent(hear(s, welcome({ seq: 0, ops: [] }))), []);
  // Any other error is only shown.
  const other = hear(s, { type: 'error', code: 'bad_message', message: 'what?' });
  assert.deepEqual(texts(other), ['Server: what?']);
});
