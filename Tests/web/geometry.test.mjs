// Unit tests of web/geometry.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextKeyboardTarget, pickTarget, targetKey } from '../../web/geometry.js';

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
  assert.deepEqual(nextKeyboardTarget(z, at('e'), 'ArrowDown'), at('g', 'tray'));
  assert.deepEqual(nextKeyboardTarget(z, at('g', 'tray'), 'ArrowUp').zone, 'grid');
  assert.deepEqual(nextKeyboardTarget(z, at('g', 'tray'), 'ArrowRight'), at(null, 'tray'));
});
