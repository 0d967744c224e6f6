// Unit tests of web/virtual.js (issue 36: windowed columns): run with `node --test Tests/web/*.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OVERSCAN, cardSegments, lineShape, scrollFor, segments, visibleRange } from '../../web/virtual.js';

test('the window is the rows in the box and the overscan around them, within the column', () => {
  // 3,000 rows of 60 px, a 600 px box scrolled to row 1,000.
  assert.deepEqual(visibleRange(3000, 60000, 600, 60), { start: 1000 - OVERSCAN, end: 1010 + OVERSCAN });
  assert.deepEqual(visibleRange(3000, 0, 600, 60), { start: 0, end: 10 + OVERSCAN });
  assert.deepEqual(visibleRange(3000, 10 ** 9, 600, 60), { start: 3000, end: 3000 });
  assert.deepEqual(visibleRange(5, 0, 600, 60), { start: 0, end: 5 });
  // No height or row measured yet: the default row, never a division by zero.
  assert.ok(visibleRange(100, 0, 0, 0).end <= 100);
});

test('segments are tiles for the window and the pinned rows, spacers for the rest, in order', () => {
  assert.deepEqual(segments(10, { start: 3, end: 5 }, [8]), [
    { pad: 3, from: 0 }, { index: 3 }, { index: 4 }, { pad: 3, from: 5 }, { index: 8 }, { pad: 1, from: 9 },
  ]);
  // A pinned row inside the window, repeated, or out of range changes nothing.
  assert.deepEqual(segments(4, { start: 0, end: 4 }, [2, 2, -1, 9]), [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }]);
  assert.deepEqual(segments(0, { start: 0, end: 0 }, []), []);
  // Every row is accounted for exactly once.
  const segs = segments(3000, { start: 1200, end: 1250 }, [0, 2999, 1700]);
  const total = segs.reduce((n, s) => n + (s.pad ?? 1), 0);
  assert.equal(total, 3000);
});

test('scrolling to a row moves the box as little as needed', () => {
  assert.equal(scrollFor(10, 60, 0, 600), 60); // just below the box: its bottom lines up
  assert.equal(scrollFor(5, 60, 0, 600), 0); // in the box already
  assert.equal(scrollFor(2, 60, 600, 600), 120); // above: its top lines up
});

test('a grid is windowed by rows of its columns, a row zone across, a list by cards', () => {
  assert.deepEqual(lineShape({ layout: 'grid', columns: 4 }), { axis: 'y', per: 4 });
  assert.deepEqual(lineShape({ layout: 'row', columns: 1 }), { axis: 'x', per: 1 });
  assert.deepEqual(lineShape({ layout: 'list', columns: 1 }), { axis: 'y', per: 1 });
  // 10 cards, 4 a line (3 lines, the last of 2): lines 1..2 rendered, line 0 a spacer.
  assert.deepEqual(cardSegments(10, 4, { start: 1, end: 3 }), [
    { pad: 1, from: 0 }, { index: 4 }, { index: 5 }, { index: 6 }, { index: 7 }, { index: 8 }, { index: 9 },
  ]);
  // A pinned card renders its whole line, in its columns; spacers name the first card they stand for.
  assert.deepEqual(cardSegments(12, 3, { start: 0, end: 1 }, [10]), [
    { index: 0 }, { index: 1 }, { index: 2 }, { pad: 2, from: 3 }, { index: 9 }, { index: 10 }, { index: 11 },
  ]);
  // Every card is accounted for once, rendered (in order) or in a spacer's full lines (the last,
  // short line is rendered: 2999 is pinned).
  const per = 7;
  const segs = cardSegments(3000, per, { start: 100, end: 130 }, [0, 2999, 1500]);
  assert.equal(segs.reduce((n, s) => n + (s.pad ? s.pad * per : 1), 0), 3000);
  assert.deepEqual(segs.filter((s) => s.index != null).map((s) => s.index), [...new Set(segs.filter((s) => s.index != null).map((s) => s.index))].sort((a, b) => a - b));
});
