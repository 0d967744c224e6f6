// Unit tests of web/announce.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOUNCE_INTERVAL, AnnounceThrottle, describeOp, fold, summarize } from '../../web/announce.js';
import { isolate, plain } from '../../web/bidi.js';

const board = {
  id: 'b1', title: 'b1', columns: 3,
  zones: [
    { id: 'grid', items: ['t1', 't2', 't3'] },
    { id: 'tray', items: ['t4'] },
    { id: 'done', items: [], title: 'Done', layout: 'list' },
  ],
  items: [
    { id: 't1', label: 'Orange', color: '#f80', on: false },
    { id: 't2', label: 'Teal', color: '#088', on: false },
    { id: 't3', label: 'Red', color: '#e00', on: false },
    { id: 't4', label: 'Blue', color: '#00e', on: false },
  ],
};
const names = { u1: 'Ann', u2: 'Bo', u3: 'Cy', u4: 'Di', u5: 'Ed' };
const nameOf = (id) => names[id];
// What a person reads: user text in the sentence is isolated (web/bidi.js), tested below.
const say = (m) => plain(describeOp({ seq: 1, op: 'x', by: 'u1', ...m }, board, nameOf).text);

test('each op is one sentence naming who did what to which tiles, where', () => {
  assert.equal(say({ type: 'move', item: 't3', zone: 'grid', before: 't2' }), 'Ann moved Red before Teal');
  assert.equal(say({ type: 'move', item: 't4', zone: 'grid', before: 't1' }), 'Ann moved Blue to Grid, before Orange');
  assert.equal(say({ type: 'move', item: 't1', zone: 'done', before: null }), 'Ann moved Orange to the end of Done');
  assert.equal(say({ type: 'move', item: 't1', zone: 'grid', before: null }), 'Ann moved Orange to the end of Grid');
  assert.equal(say({ type: 'swap', a: 't1', b: 't2' }), 'Ann swapped Orange and Teal');
  assert.equal(say({ type: 'toggle', item: 't2', on: true }), 'Ann turned Teal on');
  assert.equal(say({ type: 'toggle', item: 't2', on: false }), 'Ann turned Teal off');
  const e = describeOp({ type: 'swap', a: 't1', b: 't2', by: 'u2' }, board, nameOf);
  assert.deepEqual(e, { by: 'u2', name: 'Bo', kind: 'swap', text: `${isolate('Bo')} swapped ${isolate('Orange')} and ${isolate('Teal')}` });
  assert.equal(describeOp({ type: 'shuffle', by: 'u1' }, board, nameOf), null);
  assert.equal(describeOp({ type: 'swap', a: 't1', b: 't2', by: 'u1' }, null, nameOf), null);
  // Unknown items keep their ids; unknown people their user ids.
  assert.equal(say({ type: 'toggle', item: 't9', on: true, by: 'u9' }), 'u9 turned t9 on');
});

const ev = (by, kind = 'move', text = `${names[by]} did ${kind}`) => ({ by, name: names[by], kind, text });
const sum = (events, cap, more) => {
  const g = new Map();
  let m = more ?? 0;
  for (const e of events) if (!fold(g, e, cap)) m += 1;
  return plain(summarize(g, m));
};

test('every text a client wrote is isolated in the sentence, its own bidi controls taken out', () => {
  const evil = { ...board, items: board.items.map((i) => (i.id === 't1' ? { ...i, label: 'Invoice \u202Eegnaro\u2069' } : i)) };
  const text = describeOp({ seq: 1, op: 'x', by: 'u1', type: 'swap', a: 't1', b: 't2' }, evil, nameOf).text;
  assert.equal(text, `${isolate('Ann')} swapped ${isolate('Invoice egnaro')} and ${isolate('Teal')}`);
  assert.equal(isolate('a\u202Eb\u2066c\u2069'), '\u2068abc\u2069');
});

test('what came in one window is folded by person, a few named and the rest counted', () => {
  assert.equal(sum([ev('u1')]), 'Ann did move.');
  assert.equal(sum([ev('u1'), ev('u2', 'swap')]), 'Ann did move. Bo did swap.');
  assert.equal(sum([ev('u1'), ev('u1'), ev('u2', 'swap')]), 'Ann made 2 changes. Bo did swap.');
  assert.equal(sum([ev('u1', 'toggle'), ev('u1', 'toggle'), ev('u1', 'toggle')]), 'Ann painted 3 tiles.');
  assert.equal(sum([ev('u1', 'toggle'), ev('u1', 'move')]), 'Ann made 2 changes.');
  assert.equal(sum([ev('u1'), ev('u2'), ev('u3'), ev('u4')]), 'Ann did move. Bo did move. Cy did move. One other person made 1 change.');
  assert.equal(sum([ev('u1'), ev('u2'), ev('u3'), ev('u4'), ev('u5'), ev('u5')]),
    'Ann did move. Bo did move. Cy did move. Others made 3 changes.');
  // Past the cap of people kept, changes are only counted.
  assert.equal(sum([ev('u1'), ev('u2'), ev('u2')], 1), 'Ann did move. Others made 2 changes.');
});

/** A throttle on a fake clock: `tick(ms)` runs what is due. */
function clock() {
  const c = { t: 0, timers: [], said: [] };
  c.throttle = new AnnounceThrottle((text) => c.said.push([c.t, plain(text)]), {
    now: () => c.t,
    schedule: (fn, ms) => {
      const timer = { at: c.t + ms, fn, live: true };
      c.timers.push(timer);
      return () => { timer.live = false; };
    },
  });
  c.tick = (ms) => {
    const end = c.t + ms;
    for (;;) {
      const due = c.timers.filter((x) => x.live && x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      c.t = due.at;
      due.live = false;
      due.fn();
    }
    c.t = end;
  };
  return c;
}

test('the first change is said at once, then at most one sentence per interval, folding the rest', () => {
  const c = clock();
  c.throttle.offer(ev('u1', 'move', 'Ann moved Orange before Teal'));
  assert.deepEqual(c.said, [[0, 'Ann moved Orange before Teal.']]);
  c.tick(100);
  c.throttle.offer(ev('u2', 'swap', 'Bo swapped Red and Blue'));
  c.tick(100);
  c.throttle.offer(ev('u2', 'swap', 'Bo swapped Teal and Blue'));
  c.throttle.offer(null);
  assert.equal(c.said.length, 1); // nothing more before the interval is over
  c.tick(ANNOUNCE_INTERVAL);
  assert.deepEqual(c.said, [[0, 'Ann moved Orange before Teal.'], [ANNOUNCE_INTERVAL, 'Bo made 2 changes.']]);
  // Quiet for longer than the interval: the next change is said at once again.
  c.tick(5000);
  c.throttle.offer(ev('u1', 'toggle', 'Ann turned Red on'));
  assert.deepEqual(c.said[2], [c.t, 'Ann turned Red on.']);
  // A burst (a paint stroke of 40 cells) inside one window is one sentence.
  for (let i = 0; i < 40; i += 1) { c.tick(10); c.throttle.offer(ev('u3', 'toggle')); }
  c.tick(ANNOUNCE_INTERVAL);
  assert.deepEqual(c.said.slice(3).map((x) => x[1]), ['Cy painted 40 tiles.']);
  assert.ok(c.said[3][0] - c.said[2][0] >= ANNOUNCE_INTERVAL);
  // reset forgets what waits.
  c.throttle.offer(ev('u1'));
  c.throttle.reset();
  c.tick(10 * ANNOUNCE_INTERVAL);
  assert.equal(c.said.length, 4);
});

test('the throttle keeps at most its cap of people, and counts the others', () => {
  const c = clock();
  c.throttle = new AnnounceThrottle((text) => c.said.push(text), { now: () => c.t, schedule: () => () => {}, cap: 2 });
  c.throttle.offer(ev('u1'));
  for (const u of ['u2', 'u3', 'u4', 'u5', 'u5']) c.throttle.offer(ev(u));
  assert.equal(c.throttle.groups.size, 2);
  c.throttle.flush();
  assert.deepEqual(c.said, ['Ann did move.', 'Bo did move. Cy did move. Others made 3 changes.']);
});
