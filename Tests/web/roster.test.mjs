// Who is on a board, written once (web/sdk/roster.js): the SDK client keeps it, and the page's
// session reads the client's instead of keeping a second one (issue 31).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Roster } from '../../web/sdk/shuffleboard.js';
import { Session } from '../../web/session.js';

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

test("the page's session reads the client's roster: one list of who is here, kept by the client", () => {
  let socket;
  class Socket {
    constructor() { socket = this; this.readyState = 0; this.on = {}; }
    addEventListener(type, fn) { this.on[type] = fn; }
    send() {}
    close() {}
  }
  const client = new Client({ url: 'http://127.0.0.1:1', board: 'b1', name: 'Ann', WebSocket: Socket, setTimeout: () => 0, clearTimeout: () => {} });
  const session = new Session();
  session.useRoster(client.roster);
  const effects = [];
  client.on('message', (m) => effects.push(...session.receive(m)));
  client.start();
  socket.readyState = 1;
  socket.on.open({});
  const hear = (m) => socket.on.message({ data: JSON.stringify(m) });
  hear({ type: 'welcome', you: 'u1', seq: 0, board: BOARD, users: [ANN], drags: [] });
  assert.equal(session.roster, client.roster);
  hear({ type: 'join', user: BO });
  assert.deepEqual([...session.roster.users.keys()], ['u1', 'u2']);
  assert.equal(session.user('u2').name, 'Bo');
  const presence = effects.filter((e) => e.type === 'presence').at(-1);
  assert.deepEqual([...presence.users.keys()], ['u1', 'u2']);
  hear({ type: 'leave', user: BO });
  assert.deepEqual([...client.users.keys()], ['u1']);
  assert.ok(effects.some((e) => e.type === 'handEnd' && e.by === 'u2'));
});
