// Unit tests of web/geometry.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { edgeSpeed, lockAxis, nextKeyboardTarget, pickTarget, targetKey } from '../../web/geometry.js';

const rect = (left, top, width = 100, height = 100) => ({ left, top, width, height, right: left + width, bottom: top + height });
// A 3-column grid of t1..t6 (100 px tiles, 10 px gaps) and a tray strip below with t7.
const zones = [
  {
    id: 'grid',
    rect: rect(0, 0, 330, 220),
    tiles: ['t1', 't2', 't3', 't4', 't5', 't6'].map((id, i) => ({ id, rect: rect((i % 3) * 110, Math.floor(i / 3) * 110) })),
  },
  { id: 'tray', rect: rect(0, 300, 600, 120), tiles: [{ id: 't7', rect: rect(10, 310) }] },
];

test('a tile becomes the target only when the pointer is well inside it', () => {
  assert.deepEqual(pickTarget({ x: 160, y: 50 }, zones, 't1', null), { over: 't2', zone: 'grid' });
  // Near t3's edge: the current target stays.
  const cur = { over: 't2', zone: 'grid' };
  assert.equal(pickTarget({ x: 225, y: 50 }, zones, 't1', cur), cur);
  assert.deepEqual(pickTarget({ x: 260, y: 50 }, zones, 't1', cur), { over: 't3', zone: 'grid' });
});

test('gaps and the lifted tile keep the current target; outside every zone there is none', () => {
  const cur = { over: 't5', zone: 'grid' };
  assert.equal(pickTarget({ x: 105, y: 150 }, zones, 't1', cur), cur);
  assert.equal(pickTarget({ x: 50, y: 50 }, zones, 't1', cur), cur);
  assert.equal(pickTarget({ x: 900, y: 900 }, zones, 't1', cur), null);
});

test('the space after the last tile of a zone is that zone\'s end', () => {
  assert.deepEqual(pickTarget({ x: 400, y: 350 }, zones, 't1', null), { over: null, zone: 'tray' });
  const empty = [{ id: 'tray', rect: rect(0, 0, 300, 100), tiles: [] }];
  assert.deepEqual(pickTarget({ x: 10, y: 10 }, empty, 't1', null), { over: null, zone: 'tray' });
  assert.equal(targetKey({ over: null, zone: 'tray' }), 'tray/');
  assert.equal(targetKey(null), '');
});

test('keyboard targets: left/right in reading order, up/down by columns and across zones', () => {
  const z = [{ id: 'grid', items: ['a', 'b', 'c', 'd', 'e', 'f'], columns: 3 }, { id: 'tray', items: ['g'], columns: 1 }];
  const at = (over, zone = 'grid') => ({ over, zone });
  assert.deepEqual(nextKeyboardTarget(z, at('a'), 'ArrowRight'), at('b'));
  assert.deepEqual(nextKeyboardTarget(z, at('a'), 'ArrowLeft'), at('a'));
  assert.deepEqual(nextKeyboardTarget(z, at('b'), 'ArrowDown'), at('e'));
  assert.deepEqual(nextKeyboardTarget(z, at('e'), 'ArrowUp'), at('b'));
  assert.deepEqual(nextKeyboardTarget(z, at('f'), 'ArrowRight'), at(null));
  // Down from the grid's last row: the slot of the tray in line with that column.
  assert.deepEqual(nextKeyboardTarget(z, at('d'), 'ArrowDown'), at(null));
  assert.deepEqual(nextKeyboardTarget(z, at('f'), 'ArrowDown'), at(null, 'tray'));
  assert.deepEqual(nextKeyboardTarget(z, at(null), 'ArrowDown'), at('g', 'tray'));
  assert.deepEqual(nextKeyboardTarget(z, at('e'), 'ArrowDown'), at(null, 'tray'));
  assert.deepEqual(nextKeyboardTarget(z, at('g', 'tray'), 'ArrowUp').zone, 'grid');
  assert.deepEqual(nextKeyboardTarget(z, at('g', 'tray'), 'ArrowRight'), at(null, 'tray'));
});

const at = (over, zone) => ({ over, zone });

test('keyboard targets in a list: up/down walk it, left/right go to the neighbouring list', () => {
  // A kanban board: three lists side by side.
  const z = [
    { id: 'todo', items: ['a', 'b', 'c'], layout: 'list', columns: 1 },
    { id: 'doing', items: ['d'], layout: 'list', columns: 1 },
    { id: 'done', items: [], layout: 'list', columns: 1 },
  ];
  assert.deepEqual(nextKeyboardTarget(z, at('a', 'todo'), 'ArrowDown'), at('b', 'todo'));
  assert.deepEqual(nextKeyboardTarget(z, at('b', 'todo'), 'ArrowUp'), at('a', 'todo'));
  assert.deepEqual(nextKeyboardTarget(z, at('a', 'todo'), 'ArrowUp'), at('a', 'todo'));
  assert.deepEqual(nextKeyboardTarget(z, at('c', 'todo'), 'ArrowDown'), at(null, 'todo'));
  // Along a list past its end: on into the next one.
  assert.deepEqual(nextKeyboardTarget(z, at(null, 'todo'), 'ArrowDown'), at('d', 'doing'));
  // Across: the same index in the next list, or its end slot when it is shorter.
  assert.deepEqual(nextKeyboardTarget(z, at('a', 'todo'), 'ArrowRight'), at('d', 'doing'));
  assert.deepEqual(nextKeyboardTarget(z, at('c', 'todo'), 'ArrowRight'), at(null, 'doing'));
  assert.deepEqual(nextKeyboardTarget(z, at('d', 'doing'), 'ArrowRight'), at(null, 'done'));
  assert.deepEqual(nextKeyboardTarget(z, at('d', 'doing'), 'ArrowLeft'), at('a', 'todo'));
  assert.deepEqual(nextKeyboardTarget(z, at('a', 'todo'), 'ArrowLeft'), at('a', 'todo'));
  assert.deepEqual(nextKeyboardTarget(z, at(null, 'done'), 'ArrowRight'), at(null, 'done'));
  // A single list (a playlist): left and right stay put.
  const one = [{ id: 'songs', items: ['s1', 's2'], layout: 'list' }];
  assert.deepEqual(nextKeyboardTarget(one, at('s1', 'songs'), 'ArrowRight'), at('s1', 'songs'));
  assert.deepEqual(nextKeyboardTarget(one, at('s1', 'songs'), 'ArrowDown'), at('s2', 'songs'));
});

test('keyboard targets in rows: left/right walk a strip, up/down go to the other strip in line', () => {
  const z = [
    { id: 'top', items: ['a', 'b', 'c', 'd'], layout: 'row' },
    { id: 'bottom', items: ['e'], layout: 'row' },
  ];
  assert.deepEqual(nextKeyboardTarget(z, at('b', 'top'), 'ArrowRight'), at('c', 'top'));
  assert.deepEqual(nextKeyboardTarget(z, at('d', 'top'), 'ArrowRight'), at(null, 'top'));
  assert.deepEqual(nextKeyboardTarget(z, at(null, 'top'), 'ArrowRight'), at('e', 'bottom'));
  assert.deepEqual(nextKeyboardTarget(z, at('a', 'top'), 'ArrowDown'), at('e', 'bottom'));
  assert.deepEqual(nextKeyboardTarget(z, at('c', 'top'), 'ArrowDown'), at(null, 'bottom'));
  assert.deepEqual(nextKeyboardTarget(z, at('e', 'bottom'), 'ArrowUp'), at('a', 'top'));
  assert.deepEqual(nextKeyboardTarget(z, at(null, 'bottom'), 'ArrowUp'), at('b', 'top'));
  assert.deepEqual(nextKeyboardTarget(z, at('e', 'bottom'), 'ArrowDown'), at('e', 'bottom'));
});

test('keyboard targets in a grid of 8 columns: all four arrows, by cells and rows', () => {
  const items = Array.from({ length: 64 }, (_, i) => `c${i}`);
  const z = [{ id: 'cells', items, layout: 'grid', columns: 8 }];
  assert.deepEqual(nextKeyboardTarget(z, at('c9', 'cells'), 'ArrowDown'), at('c17', 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c9', 'cells'), 'ArrowUp'), at('c1', 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c9', 'cells'), 'ArrowRight'), at('c10', 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c9', 'cells'), 'ArrowLeft'), at('c8', 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c1', 'cells'), 'ArrowUp'), at('c1', 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c56', 'cells'), 'ArrowDown'), at(null, 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c57', 'cells'), 'ArrowDown'), at('c57', 'cells'));
  assert.deepEqual(nextKeyboardTarget(z, at('c9', 'cells'), 'Home'), at('c9', 'cells'));
});

test('an axis lock keeps the other coordinate where the drag started', () => {
  const origin = { x: 100, y: 200 };
  assert.deepEqual(lockAxis({ x: 340, y: 260 }, origin, 'y'), { x: 100, y: 260 });
  assert.deepEqual(lockAxis({ x: 340, y: 260 }, origin, 'x'), { x: 340, y: 200 });
  assert.deepEqual(lockAxis({ x: 340, y: 260 }, origin, null), { x: 340, y: 260 });
  assert.deepEqual(lockAxis({ x: 340, y: 260 }, null, 'y'), { x: 340, y: 260 });
});

test('the hysteresis runs along the zone: a wide list row is the target anywhere across it', () => {
  // A list of 400 px wide rows, 50 px high, 10 px apart; the pointer at the handle end (x 390).
  const rows = ['a', 'b', 'c'].map((id, i) => ({ id, rect: rect(0, i * 60, 400, 50) }));
  const list = [{ id: 'songs', layout: 'list', rect: rect(0, 0, 400, 170), tiles: rows }];
  assert.deepEqual(pickTarget({ x: 390, y: 85 }, list, 'a', { over: 'a', zone: 'songs' }), { over: 'b', zone: 'songs' });
  // Near a row's top or bottom edge the current target stays.
  assert.deepEqual(pickTarget({ x: 390, y: 62 }, list, 'a', { over: 'a', zone: 'songs' }), { over: 'a', zone: 'songs' });
  // A row (strip): any height inside the tile, but well inside it from left to right.
  const strip = [{ id: 'top', layout: 'row', rect: rect(0, 0, 400, 100), tiles: [{ id: 'x', rect: rect(0, 0) }, { id: 'y', rect: rect(110, 0) }] }];
  assert.deepEqual(pickTarget({ x: 160, y: 2 }, strip, 'x', null), { over: 'y', zone: 'top' });
  assert.equal(pickTarget({ x: 112, y: 50 }, strip, 'x', null), null);
  // A grid keeps both.
  assert.equal(pickTarget({ x: 160, y: 2 }, zones, 't1', null), null);
});

test('edgeSpeed: still in the middle, faster towards either edge, capped, for small boxes too (issue 35)', () => {
  assert.equal(edgeSpeed(200, 0, 400), 0);
  assert.ok(edgeSpeed(390, 0, 400) > 0 && edgeSpeed(10, 0, 400) < 0);
  assert.ok(edgeSpeed(399, 0, 400) > edgeSpeed(360, 0, 400));
  assert.equal(edgeSpeed(5000, 0, 400), 20);
  assert.equal(edgeSpeed(-5000, 0, 400), -20);
  assert.equal(edgeSpeed(50, 0, 90), 0); // a box of 90 px: its middle third is still
  assert.ok(edgeSpeed(85, 0, 90) > 0);
  assert.equal(edgeSpeed(5, 10, 10), 0); // no box
});
