// Unit tests of web/gestures.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRAG_THRESHOLD, Gestures, TOUCH_DELAY } from '../../web/gestures.js';

/**
 * Gestures over a fake page. `run(intents)` plays the session's part: a lift starts a drag, a
 * drop or cancel ends it; it returns the intent types.
 */
function page({ mode = 'swap', held = [], ready = true, tiles = {}, handles = [], modes = undefined } = {}) {
  const p = {
    drag: null,
    mode,
    held: new Set(held),
    ready,
    // The tile under a point: `tiles` maps "x,y" to an item.
    itemAt: (x, y) => tiles[`${x},${y}`] ?? null,
  };
  p.g = new Gestures({
    ready: () => p.ready,
    dragging: () => p.drag,
    mode: () => p.mode,
    heldByOther: (item) => p.held.has(item),
    itemAt: (x, y) => p.itemAt(x, y),
    handleOnly: (item) => handles.includes(item),
    ...(modes ? { modes: () => modes } : {}),
  });
  p.run = (intents) => {
    for (const i of intents) {
      if (i.type === 'lift') p.drag = { item: i.item, source: i.source };
      if (i.type === 'drop' || i.type === 'cancel') p.drag = null;
    }
    return intents;
  };
  return p;
}

const mouse = (x, y, fields = {}) => ({ pointerId: 1, pointerType: 'mouse', button: 0, x, y, item: null, ...fields });
const finger = (x, y, fields = {}) => ({ pointerId: 7, pointerType: 'touch', button: 0, x, y, item: null, ...fields });
const key = (k, fields = {}) => ({ key: k, ctrl: false, shift: false, alt: false, inField: false, item: null, ...fields });
const types = (intents) => intents.map((i) => i.type);

test('a mouse press lifts only past the threshold, aims as it moves and drops where it is released', () => {
  const p = page();
  assert.deepEqual(p.run(p.g.pointerDown(mouse(100, 100, { item: 't1' }))), []);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(100 + DRAG_THRESHOLD, 100))), [], 'not yet');
  assert.deepEqual(p.run(p.g.pointerMove(mouse(104, 104))), [
    { type: 'lift', item: 't1', source: 'pointer', x: 100, y: 100 },
    { type: 'aim', x: 104, y: 104 },
  ]);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(150, 120))), [{ type: 'aim', x: 150, y: 120 }]);
  // Another pointer does not steer this drag.
  assert.deepEqual(p.run(p.g.pointerMove(mouse(0, 0, { pointerId: 2 }))), []);
  assert.deepEqual(p.run(p.g.pointerUp(mouse(160, 130))), [{ type: 'aim', x: 160, y: 130 }, { type: 'drop' }]);
  assert.equal(p.drag, null);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(170, 130))), []);
});

test('a click without travel, another button, a press off the tiles or before the board lift nothing', () => {
  const p = page();
  p.run(p.g.pointerDown(mouse(100, 100, { item: 't1' })));
  assert.deepEqual(p.run(p.g.pointerUp(mouse(101, 101))), []);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(200, 200))), [], 'the press is over');
  assert.deepEqual(p.run(p.g.pointerDown(mouse(100, 100, { item: 't1', button: 2 }))), []);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(200, 200))), []);
  assert.deepEqual(p.run(p.g.pointerDown(mouse(100, 100))), []);
  p.ready = false;
  assert.deepEqual(p.run(p.g.pointerDown(mouse(100, 100, { item: 't1' }))), []);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(200, 200))), []);
});

test('a touch press held still lifts after the delay; a finger that moves first scrolls', () => {
  const p = page();
  const down = p.run(p.g.pointerDown(finger(50, 50, { item: 't2' })));
  assert.equal(down.length, 1);
  assert.equal(down[0].type, 'wake');
  assert.equal(down[0].after, TOUCH_DELAY);
  assert.deepEqual(p.run(p.g.pointerMove(finger(52, 51))), [], 'a tremble within the threshold');
  assert.deepEqual(p.run(p.g.wake(down[0].token)), [{ type: 'lift', item: 't2', source: 'pointer', x: 50, y: 50 }]);
  assert.equal(p.g.capturesTouch(), true, 'the page must not scroll under a drag');
  assert.deepEqual(p.run(p.g.pointerMove(finger(90, 90))), [{ type: 'aim', x: 90, y: 90 }]);
  assert.deepEqual(types(p.run(p.g.pointerUp(finger(90, 90)))), ['aim', 'drop']);
  assert.equal(p.g.capturesTouch(), false);

  // A swipe: the finger travels before the delay is over.
  const swipe = p.run(p.g.pointerDown(finger(50, 50, { item: 't2' })));
  assert.deepEqual(p.run(p.g.pointerMove(finger(80, 80))), []);
  assert.deepEqual(p.run(p.g.wake(swipe[0].token)), [], 'the press was a scroll');
  assert.deepEqual(p.run(p.g.pointerMove(finger(90, 90))), []);
  // A press that ends before the delay does not lift later either.
  const tap = p.run(p.g.pointerDown(finger(50, 50, { item: 't2' })));
  p.run(p.g.pointerUp(finger(50, 50)));
  // Nor does it cut short the delay of the next press.
  const again = p.run(p.g.pointerDown(finger(50, 50, { item: 't2' })));
  assert.deepEqual(p.run(p.g.wake(tap[0].token)), []);
  assert.equal(types(p.run(p.g.wake(again[0].token)))[0], 'lift');
});

test('a press on a tile someone else lifts meanwhile does not become a drag', () => {
  const p = page();
  p.run(p.g.pointerDown(mouse(100, 100, { item: 't1' })));
  p.g.taken('t9');
  p.g.taken('t1');
  assert.deepEqual(p.run(p.g.pointerMove(mouse(130, 130))), []);
  const t = page();
  const down = t.run(t.g.pointerDown(finger(10, 10, { item: 't3' })));
  t.g.taken('t3');
  assert.deepEqual(t.run(t.g.wake(down[0].token)), []);
});

test('a tile someone else holds is refused, by pointer and by keyboard', () => {
  const p = page({ held: ['t4'] });
  assert.deepEqual(p.run(p.g.pointerDown(mouse(0, 0, { item: 't4' }))), [{ type: 'refuse', item: 't4', source: 'pointer' }]);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(50, 50))), []);
  assert.deepEqual(p.run(p.g.keyDown(key(' ', { item: 't4' }))), [{ type: 'prevent' }, { type: 'refuse', item: 't4', source: 'keyboard' }]);
  p.mode = 'paint';
  assert.deepEqual(types(p.run(p.g.pointerDown(mouse(0, 0, { item: 't4' })))), ['refuse']);
});

test('one gesture at a time: presses during a drag are ignored', () => {
  const p = page();
  p.run(p.g.keyDown(key(' ', { item: 't1' })));
  assert.equal(p.drag.source, 'keyboard');
  assert.deepEqual(p.run(p.g.pointerDown(mouse(0, 0, { item: 't2' }))), []);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(50, 50))), []);
});

test('pointercancel and a lost window focus cancel a pointer drag, but not a keyboard lift', () => {
  const p = page();
  p.run(p.g.pointerDown(mouse(0, 0, { item: 't1' })));
  p.run(p.g.pointerMove(mouse(20, 0)));
  assert.deepEqual(p.run(p.g.pointerCancel(mouse(20, 0, { pointerId: 2 }))), [], 'another pointer');
  assert.deepEqual(p.run(p.g.pointerCancel(mouse(20, 0))), [{ type: 'cancel' }]);
  p.run(p.g.pointerDown(mouse(0, 0, { item: 't1' })));
  p.run(p.g.pointerMove(mouse(20, 0)));
  assert.deepEqual(p.run(p.g.blur()), [{ type: 'cancel' }]);
  p.run(p.g.keyDown(key(' ', { item: 't1' })));
  assert.deepEqual(p.run(p.g.blur()), []);
  assert.deepEqual(p.run(p.g.pointerCancel(mouse(0, 0))), []);
});

test('a paint stroke flips each tile it crosses once and ends on release or cancel', () => {
  const tiles = { '10,10': 't1', '20,10': 't2', '30,10': 't3' };
  const p = page({ mode: 'paint', tiles });
  assert.deepEqual(p.run(p.g.pointerDown(mouse(10, 10, { item: 't1' }))), [{ type: 'prevent' }, { type: 'paint', item: 't1' }]);
  assert.equal(p.g.capturesTouch(), true);
  const crossed = [[10, 10], [15, 10], [20, 10], [20, 10], [30, 10], [20, 10], [10, 10]]
    .flatMap(([x, y]) => p.run(p.g.pointerMove(mouse(x, y))));
  assert.deepEqual(crossed, [{ type: 'paint', item: 't2' }, { type: 'paint', item: 't3' }]);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(20, 10, { pointerId: 2 }))), [], 'another pointer');
  assert.deepEqual(p.run(p.g.pointerUp(mouse(10, 10))), [{ type: 'paintEnd' }]);
  assert.equal(p.g.capturesTouch(), false);
  // A new stroke starts afresh.
  p.run(p.g.pointerDown(mouse(30, 10, { item: 't3' })));
  assert.deepEqual(p.run(p.g.pointerMove(mouse(10, 10))), [{ type: 'paint', item: 't1' }]);
  assert.deepEqual(p.run(p.g.pointerCancel(mouse(10, 10))), [{ type: 'paintEnd' }]);
});

test('keyboard: Space lifts, arrows aim, Space or Enter drops, Escape and Tab cancel', () => {
  const p = page();
  assert.deepEqual(p.run(p.g.keyDown(key(' ', { item: 't1' }))), [
    { type: 'prevent' },
    { type: 'lift', item: 't1', source: 'keyboard', x: null, y: null },
  ]);
  for (const k of ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown']) {
    assert.deepEqual(p.run(p.g.keyDown(key(k))), [{ type: 'prevent' }, { type: 'aimKey', key: k }]);
  }
  assert.deepEqual(p.run(p.g.keyDown(key('s'))), [], 'no mode switch during a lift');
  assert.deepEqual(p.run(p.g.keyDown(key(' '))), [{ type: 'prevent' }, { type: 'drop' }]);
  p.run(p.g.keyDown(key(' ', { item: 't1' })));
  assert.deepEqual(p.run(p.g.keyDown(key('Enter'))), [{ type: 'prevent' }, { type: 'drop' }]);
  p.run(p.g.keyDown(key(' ', { item: 't1' })));
  assert.deepEqual(p.run(p.g.keyDown(key('Escape'))), [{ type: 'prevent' }, { type: 'cancel' }]);
  p.run(p.g.keyDown(key(' ', { item: 't1' })));
  assert.deepEqual(p.run(p.g.keyDown(key('Tab'))), [{ type: 'cancel' }], 'focus moves on as usual');
  // Without a focused tile, Space does nothing; Escape cancels a pointer drag too.
  assert.deepEqual(p.run(p.g.keyDown(key(' '))), []);
  p.run(p.g.pointerDown(mouse(0, 0, { item: 't2' })));
  p.run(p.g.pointerMove(mouse(30, 0)));
  assert.deepEqual(p.run(p.g.keyDown(key('ArrowLeft'))), [], 'arrows steer keyboard lifts only');
  assert.deepEqual(p.run(p.g.keyDown(key('Escape'))), [{ type: 'prevent' }, { type: 'cancel' }]);
});

test('keyboard in paint mode flips the focused tile as a stroke of one', () => {
  const p = page({ mode: 'paint' });
  assert.deepEqual(p.run(p.g.keyDown(key(' ', { item: 't5' }))), [
    { type: 'prevent' }, { type: 'paint', item: 't5' }, { type: 'paintEnd' },
  ]);
});

test('on a focused tile Enter opens its card, F2 edits its label and Delete or Backspace removes it; not while lifted or typing', () => {
  const p = page();
  assert.deepEqual(p.run(p.g.keyDown(key('Enter', { item: 't5' }))), [{ type: 'prevent' }, { type: 'open', item: 't5' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('F2', { item: 't5' }))), [{ type: 'prevent' }, { type: 'edit', item: 't5' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('Enter', { item: 't5', inField: true }))), [], 'typing in a field');
  assert.deepEqual(p.run(p.g.keyDown(key('F2', { item: 't5', inField: true }))), [], 'typing in a field');
  for (const k of ['Delete', 'Backspace']) {
    assert.deepEqual(p.run(p.g.keyDown(key(k, { item: 't5' }))), [{ type: 'prevent' }, { type: 'remove', item: 't5' }]);
    assert.deepEqual(p.run(p.g.keyDown(key(k, { item: 't5', inField: true }))), [], 'typing in a field');
  }
  assert.deepEqual(p.run(p.g.keyDown(key('Delete'))), [], 'no focused tile');
  p.run(p.g.keyDown(key(' ', { item: 't5' })));
  assert.deepEqual(p.run(p.g.keyDown(key('Delete', { item: 't5' }))), [], 'a lifted tile is not removed');
  assert.deepEqual(p.run(p.g.keyDown(key('F2', { item: 't5' }))), [], 'a lifted tile is not edited');
});

test('arrows, Home and End on a focused tile step along its zone; not while lifted, typing or with Shift', () => {
  const p = page();
  for (const k of ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End']) {
    assert.deepEqual(p.run(p.g.keyDown(key(k, { item: 't5' }))), [{ type: 'step', item: 't5', key: k }]);
    assert.deepEqual(p.run(p.g.keyDown(key(k, { item: 't5', inField: true }))), [], 'typing in a field');
    assert.deepEqual(p.run(p.g.keyDown(key(k, { item: 't5', shift: true }))), [], 'Shift keeps its use');
  }
  assert.deepEqual(p.run(p.g.keyDown(key('ArrowDown'))), [], 'no focused tile');
  p.run(p.g.keyDown(key(' ', { item: 't5' })));
  assert.deepEqual(p.run(p.g.keyDown(key('ArrowDown', { item: 't5' }))), [{ type: 'prevent' }, { type: 'aimKey', key: 'ArrowDown' }]);
});

test('undo, redo and mode keys, except while typing in a field', () => {
  const p = page();
  assert.deepEqual(p.run(p.g.keyDown(key('z', { ctrl: true }))), [{ type: 'prevent' }, { type: 'undo' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('Z', { ctrl: true, shift: true }))), [{ type: 'prevent' }, { type: 'redo' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('y', { ctrl: true }))), [{ type: 'prevent' }, { type: 'redo' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('z', { ctrl: true, alt: true }))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('z', { ctrl: true, inField: true }))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('m'))), [{ type: 'mode', mode: 'move' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('p'))), [{ type: 'mode', mode: 'paint' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('s'))), [{ type: 'mode', mode: 'swap' }]);
  assert.deepEqual(p.run(p.g.keyDown(key('m', { inField: true }))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('m', { alt: true }))), []);
  assert.deepEqual(p.run(p.g.keyDown(key(' ', { item: 't1', inField: true }))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('x'))), []);
});

test('mode letters never act on a focused card, and only for a mode the board offers (issue 35)', () => {
  const p = page({ mode: 'move', modes: ['move'] });
  // `p` on a focused kanban card: nothing (not paint mode, not a preventDefault).
  assert.deepEqual(p.run(p.g.keyDown(key('p', { item: 'c1' }))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('s', { item: 'c1' }))), []);
  // From the board itself: still nothing, since a kanban board offers move only.
  assert.deepEqual(p.run(p.g.keyDown(key('p'))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('s'))), []);
  assert.deepEqual(p.run(p.g.keyDown(key('m'))), [{ type: 'mode', mode: 'move' }]);
  const colors = page({ modes: ['swap', 'move'] });
  assert.deepEqual(colors.run(colors.g.keyDown(key('m'))), [{ type: 'mode', mode: 'move' }]);
  assert.deepEqual(colors.run(colors.g.keyDown(key('p'))), []);
  assert.deepEqual(colors.run(colors.g.keyDown(key('m', { item: 't1' }))), []);
});

test('in a handle-only zone only the handle starts a drag; elsewhere the press is the browser\'s', () => {
  const p = page({ handles: ['s1', 's2'] });
  // Off the handle: nothing, not even preventDefault (text selection and scrolling go on).
  assert.deepEqual(p.run(p.g.pointerDown(mouse(100, 100, { item: 's1' }))), []);
  assert.deepEqual(p.run(p.g.pointerMove(mouse(160, 140))), []);
  assert.deepEqual(p.run(p.g.pointerUp(mouse(160, 140))), []);
  assert.equal(p.drag, null);
  // On the handle: its default is prevented (no text drag, no selection), the usual threshold, a drag.
  assert.deepEqual(p.run(p.g.pointerDown(mouse(300, 100, { item: 's1', handle: true }))), [{ type: 'prevent' }]);
  assert.deepEqual(types(p.run(p.g.pointerMove(mouse(300, 130)))), ['lift', 'aim']);
  assert.deepEqual(types(p.run(p.g.pointerUp(mouse(300, 130)))), ['aim', 'drop']);
  // Paint mode too: a stroke starts only from the handle.
  p.mode = 'paint';
  assert.deepEqual(p.run(p.g.pointerDown(mouse(100, 100, { item: 's2' }))), []);
  assert.deepEqual(types(p.run(p.g.pointerDown(mouse(300, 100, { item: 's2', handle: true })))), ['prevent', 'paint']);
  p.run(p.g.pointerUp(mouse(300, 100)));
  // Zones without handles: a press anywhere on the tile, handle flag or not.
  p.mode = 'swap';
  p.run(p.g.pointerDown(mouse(10, 10, { item: 't1' })));
  assert.deepEqual(types(p.run(p.g.pointerMove(mouse(40, 40)))), ['lift', 'aim']);
});

test('a finger on a handle drags at once when it moves (the handle does not scroll); off it, it scrolls', () => {
  const p = page({ handles: ['s1'] });
  // A swipe on the row: left to the browser, no delay asked for.
  assert.deepEqual(p.run(p.g.pointerDown(finger(50, 50, { item: 's1' }))), []);
  assert.deepEqual(p.run(p.g.pointerMove(finger(50, 150))), []);
  assert.equal(p.g.capturesTouch(), false);
  p.run(p.g.pointerUp(finger(50, 150)));
  // On the handle: moving past the threshold lifts, no long press needed.
  const down = p.run(p.g.pointerDown(finger(300, 50, { item: 's1', handle: true })));
  assert.deepEqual(types(down), ['prevent', 'wake']);
  assert.deepEqual(types(p.run(p.g.pointerMove(finger(300, 80)))), ['lift', 'aim']);
  assert.equal(p.g.capturesTouch(), true);
  assert.deepEqual(p.run(p.g.wake(down[1].token)), [], 'already lifted');
  p.run(p.g.pointerUp(finger(300, 80)));
  // Resting on the handle lifts after the delay as well.
  const rest = p.run(p.g.pointerDown(finger(300, 50, { item: 's1', handle: true })));
  assert.deepEqual(types(p.run(p.g.wake(rest[1].token))), ['lift']);
});
