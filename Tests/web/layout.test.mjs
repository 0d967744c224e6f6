// Unit tests of web/layout.js: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  arrangeZones, boardModes, layoutKey, layoutOfItem, suggestedMode, templateMode, zoneLayout, zoneLayouts,
} from '../../web/layout.js';

const colors = {
  id: 'b1', title: 'b1', columns: 3,
  zones: [{ id: 'grid', items: ['t1', 't2'] }, { id: 'tray', items: ['t3'] }],
  items: [],
};
const kanban = {
  id: 'k', title: 'K', columns: 3,
  zones: [
    { id: 'todo', items: ['t1'], title: 'To do', layout: 'list' },
    { id: 'doing', items: [], title: 'Doing', layout: 'list' },
    { id: 'done', items: ['t2'], title: 'Done', layout: 'list' },
  ],
  items: [],
};

test('a zone without a layout is what boards always were: the first a grid, the others rows', () => {
  assert.deepEqual(zoneLayouts(colors), [
    { id: 'grid', layout: 'grid', columns: 3, handle: false, axis: null, title: 'Grid', dense: false },
    { id: 'tray', layout: 'row', columns: 1, handle: false, axis: null, title: 'Tray', dense: false },
  ]);
  assert.equal(zoneLayout({ columns: 4 }, { id: 'other', items: [] }, 2).title, 'other');
});

test('explicit layouts: grid columns (the zone\'s, else the board\'s), handles, axes and titles', () => {
  const b = {
    id: 'x', title: 'x', columns: 5,
    zones: [
      { id: 'cells', items: [], layout: 'grid', columns: 8 },
      { id: 'g2', items: [], layout: 'grid' },
      { id: 'songs', items: ['s1'], layout: 'list', handle: true, axis: 'y', title: 'Playlist' },
      { id: 'top', items: [], layout: 'row', axis: 'x', title: '  ' },
      { id: 'odd', items: [], layout: 'spiral', axis: 'z', handle: 'yes', columns: 900 },
    ],
    items: [],
  };
  const [cells, g2, songs, top, odd] = zoneLayouts(b);
  assert.deepEqual([cells.layout, cells.columns, cells.dense], ['grid', 8, true]);
  assert.deepEqual([g2.columns, g2.dense], [5, false]);
  assert.deepEqual([songs.layout, songs.handle, songs.axis, songs.title, songs.columns], ['list', true, 'y', 'Playlist', 1]);
  assert.deepEqual([top.layout, top.axis, top.title], ['row', 'x', 'top']);
  // Values this client does not know fall back (a later zone without a known layout is a row).
  assert.deepEqual([odd.layout, odd.axis, odd.handle], ['row', null, false]);
  assert.equal(layoutOfItem(b, 's1').id, 'songs');
  assert.equal(layoutOfItem(b, 'nope'), null);
});

test('neighbouring lists stand side by side as lanes; every other zone has a band of its own', () => {
  const bands = (b) => arrangeZones(zoneLayouts(b)).map((band) => band.lanes.map((l) => l.id).join('+'));
  assert.deepEqual(bands(kanban), ['todo+doing+done']);
  assert.deepEqual(bands(colors), ['grid', 'tray']);
  const mixed = { columns: 3, zones: [{ id: 'a', layout: 'list', items: [] }, { id: 'g', layout: 'grid', items: [] }, { id: 'b', layout: 'list', items: [] }, { id: 'c', layout: 'list', items: [] }] };
  assert.deepEqual(bands(mixed), ['a', 'g', 'b+c']);
});

test('the layout key changes with the zones, not with the items in them', () => {
  const moved = { ...kanban, zones: kanban.zones.map((z) => ({ ...z, items: [...z.items].reverse() })) };
  moved.zones[1].items = ['t9'];
  assert.equal(layoutKey(moved), layoutKey(kanban));
  const retitled = { ...kanban, zones: kanban.zones.map((z, i) => (i === 1 ? { ...z, title: 'Busy' } : z)) };
  assert.notEqual(layoutKey(retitled), layoutKey(kanban));
  assert.notEqual(layoutKey({ ...colors, columns: 4 }), layoutKey(colors));
});

test('boards of rows and lists suggest move mode; the others swap; a paint board opens in paint', () => {
  assert.equal(suggestedMode(colors), 'swap');
  assert.equal(suggestedMode(kanban), 'move');
  assert.equal(suggestedMode({ ...colors, mode: 'paint' }), 'paint', 'a board that names its mode gets it');
  assert.equal(suggestedMode({ ...colors, mode: 'fly' }), 'swap', 'an unknown mode is ignored');
  assert.equal(suggestedMode({ zones: [{ id: 'top', layout: 'row', items: [] }] }), 'move');
  assert.equal(suggestedMode({ zones: [{ id: 'cells', layout: 'grid', items: [] }] }), 'swap');
  assert.equal(templateMode('paint'), 'paint');
  assert.equal(templateMode('kanban'), null);
});

test('boardModes: the modes a board template uses, plus one a link asked for (issue 35)', () => {
  assert.deepEqual(boardModes({ mode: 'move', zones: [] }), ['move']); // kanban, playlist, strips
  assert.deepEqual(boardModes({ mode: 'paint', zones: [] }), ['paint']);
  assert.deepEqual(boardModes({ zones: [] }), ['swap', 'move']); // colors, and boards made before modes
  assert.deepEqual(boardModes({ mode: 'swap', zones: [] }), ['swap', 'move']);
  assert.deepEqual(boardModes({ zones: [] }, 'paint'), ['swap', 'move', 'paint']);
  assert.deepEqual(boardModes({ mode: 'move', zones: [] }, 'move'), ['move']);
  assert.deepEqual(boardModes(null), ['swap', 'move']);
});

test('offeredTemplates: Kanban first, then the server order; junk left out (issue 35)', async () => {
  const { offeredTemplates } = await import('../../web/boardgate.js');
  const names = (list) => offeredTemplates(list).map((t) => t.name);
  assert.deepEqual(names([{ name: 'colors' }, { name: 'strips' }, { name: 'kanban' }, { name: 'paint' }]), ['kanban', 'colors', 'strips', 'paint']);
  assert.deepEqual(names([{ name: 'colors' }, null, { title: 'x' }]), ['colors']);
  assert.deepEqual(names(null), []);
});
