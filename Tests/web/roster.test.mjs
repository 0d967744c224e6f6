// Who is on a board, written once (web/sdk/roster.js): the SDK client keeps it (and who holds
// what), and the page's session reads the client's instead of keeping a second one (issue 31).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Roster } from '../../web/sdk/shuffleboard.js';
import { Session } from '../../web/session.js';
import { clientOf, hear, reopen } from './wiring.mjs';

const ANN = { id: 'u1', name: 'Ann', color: '#a00' };
const BO = { id: 'u2', name: 'Bo', color: '#0b0' };
const BOARD = { id: 'b1', title: 'b1', columns: 3, zones: [{ id: 'grid', items: ['t1', 't2'] }], items: [{ id: 't1', label: 'A' }, { id: 't2', label: 'B' }] };

test('a roster follows welcome, join, leave, presence and the user a dragStart names', () => {
  const r = new Roster();
  assert.equal(r.apply({ type: 'welcome', users: [ANN, { name: 'no id' }], userCount: 70 }), true);
  assert.deepEqual([...r.users.keys()], ['u1']);
  assert.equal(r.userCount, 70);
  assert.equal(r.apply({ type: 'dragStart', item: 't1', by: 'u2', user: BO }), true);
  assert.equal(r.apply({ type: 'dragStart', item: 't2', by: 'u2', user: BO }), false, 'known already');
  r.apply({ type: 'leave', user: BO });
  assert.deepEqual(r.user('u2'), { id: 'u2', name: 'u2', color: '#555' });
  r.apply({ type: 'presence', users: [ANN, BO] });
  assert.equal(r.userCount, null);
  assert.equal(r.apply({ type: 'hover' }), false);
});

test("the page's session reads the client's roster and holds: one list of who is here, kept by the client", () => {
  const session = new Session();
  reopen(session);
  const client = clientOf(session);
  hear(session, { type: 'welcome', you: 'u1', seq: 0, board: BOARD, users: [ANN], drags: [] });
  assert.equal(session.roster, client.roster);
  assert.equal(session.me, client.you);
  hear(session, { type: 'join', user: BO });
  assert.deepEqual([...session.roster.users.keys()], ['u1', 'u2']);
  assert.equal(session.user('u2').name, 'Bo');
  // A group's hold (issue 36): every card of it is held by its lead's holder, and ends whole.
  const fx = hear(session, { type: 'dragStart', item: 't1', items: ['t1', 't2'], by: 'u2' });
  assert.equal(session.held, client.drags);
  assert.deepEqual([...client.drags], [['t1', 'u2'], ['t2', 'u2']]);
  assert.equal(session.heldByOther('t2'), true);
  assert.ok(fx.some((e) => e.type === 'handStart' && e.item === 't1'));
  hear(session, { type: 'drop', item: 't1', by: 'u2' });
  assert.equal(client.drags.size, 0);
  const presence = hear(session, { type: 'leave', user: BO });
  assert.deepEqual([...client.users.keys()], ['u1']);
  assert.deepEqual([...presence.find((e) => e.type === 'presence').users.keys()], ['u1']);
  assert.ok(presence.some((e) => e.type === 'handEnd' && e.by === 'u2'));
});
