// Issue 36 in web/session.js: a selected card lifts the selection (held all or none on the
// server), the drop is one moveMany (carried by the lead's drop as a move), undone as one op;
// bulk changes are sent together and undone together. Run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../web/session.js';
import { hear, reopen } from './wiring.mjs';

const GRID = Array.from({ length: 6 }, (_, i) => `t${i + 1}`);

function joined() {
  let n = 0;
  const s = new Session({ newOpId: () => `op${++n}` });
  reopen(s);
  hear(s, {
    type: 'welcome', you: 'u1', seq: 0, drags: [], users: [{ id: 'u1', name: 'Ann', color: '#a00' }],
    board: {
      id: 'b1', title: 'b1', columns: 3,
      zones: [{ id: 'grid', items: GRID.slice() }, { id: 'tray', items: ['x'] }],
      items: [...GRID, 'x'].map((id) => ({ id, label: id.toUpperCase(), color: '#000', on: false })),
    },
  });
  return s;
}

const sent = (fx) => fx.filter((e) => e.type === 'send').map((e) => e.msg);
const zone = (s, i) => s.scene().board.zones[i].items.join(' ');

test('lifting a selected card lifts the selection and its drop is one moveMany', () => {
  const s = joined();
  s.selection.toggle('t2');
  s.selection.toggle('t5');
  s.selection.toggle('t4');
  const lift = s.lift('t4', 'pointer');
  assert.deepEqual(sent(lift), [{ type: 'dragStart', items: ['t4', 't2', 't5'] }]);
  assert.deepEqual(lift.find((e) => e.type === 'ghost'), { type: 'ghost', item: 't4', count: 3 });
  s.aim({ over: 'x', zone: 'tray' });
  const fx = s.drop();
  const [drop] = sent(fx);
  assert.equal(drop.type, 'drop');
  assert.equal(drop.item, 't4');
  assert.deepEqual(drop.action, { type: 'move', zone: 'tray', before: 'x' });
  assert.deepEqual(s.state.pending.map((p) => p.type), ['moveMany']);
  assert.equal(zone(s, 1), 't4 t2 t5 x');
  assert.equal(zone(s, 0), 't1 t3 t6');
  // The server's commit of it (the lead's drop made one moveMany), then one undo puts back all.
  hear(s, { type: 'moveMany', op: drop.op, seq: 1, by: 'u1', items: ['t4', 't2', 't5'], zone: 'tray', before: 'x' });
  const undo = sent(s.undo());
  assert.deepEqual(undo.map((m) => m.type), ['moveMany', 'moveMany']);
  for (const [i, m] of undo.entries()) hear(s, { ...m, seq: 2 + i, by: 'u1' });
  assert.equal(zone(s, 0), GRID.join(' '));
});

test('an unselected card lifts alone; bulk ops go out together and come back together', () => {
  const s = joined();
  s.selection.toggle('t2');
  s.selection.toggle('t3');
  assert.deepEqual(sent(s.lift('t1', 'pointer')), [{ type: 'dragStart', item: 't1' }]);
  s.cancel();
  const fx = s.bulk([{ type: 'remove', item: 't2' }, { type: 'remove', item: 't3' }], 'Deleted 2 cards.');
  const out = sent(fx);
  assert.deepEqual(out.map((m) => m.type), ['remove', 'remove']);
  out.forEach((m, i) => hear(s, { ...m, seq: 1 + i, by: 'u1' }));
  assert.equal(zone(s, 0), 't1 t4 t5 t6');
  const undo = sent(s.undo());
  assert.deepEqual(undo.map((m) => m.type), ['add', 'add']);
});
