// Issue 36's page wiring: multi-select (selection.js), bulk actions and the archive panel
// (archive.js), hooked into the app with two lines (its constructor and its render). It listens
// in the capture phase, so a Ctrl/Cmd- or Shift-click on a card selects instead of starting a
// drag or opening the card, and `x` / Shift+X / Escape change the selection before any other
// key handling sees them.

import { ArchivePanel } from './archive.js';
import { MAX_BULK } from './bulk.js';
import { SelectionBar, selectionKey } from './selection.js';

const tileOf = (el) => el?.closest?.('[data-item]')?.dataset.item ?? null;

/** Installs the selection, the bulk bar and the archive on `app` (app.js); returns {render}. */
export function installMultiCard(app) {
  const doc = app.root.ownerDocument;
  const s = app.session;
  const sel = s.selection;
  const view = () => s.state.view();
  const run = (effects) => { app.run(effects); draw(); };
  const chunks = (ids) => {
    const out = [];
    for (let i = 0; i < ids.length; i += MAX_BULK) out.push(ids.slice(i, i + MAX_BULK));
    return out;
  };
  const n = (count) => `${count} card${count === 1 ? '' : 's'}`;

  const bar = new SelectionBar(doc, {
    tag: (tag) => {
      const ids = sel.ordered(view());
      run(s.bulk(ids.map((item) => ({ type: 'tag', item, add: [tag], remove: [] })), `Tagged ${n(ids.length)}.`));
    },
    assignMe: () => {
      const ids = sel.ordered(view());
      const me = { member: app.member, name: app.name };
      if (!me.member) return;
      run(s.bulk(ids.map((item) => ({ type: 'assign', item, add: [me], remove: [] })), `Assigned ${n(ids.length)} to you.`));
    },
    archive: () => {
      const ids = sel.ordered(view());
      sel.clear();
      run(s.bulk(chunks(ids).map((items) => ({ type: 'archive', items })), `Archived ${n(ids.length)}.`));
    },
    remove: () => {
      const ids = sel.ordered(view());
      sel.clear();
      run(s.bulk(ids.map((item) => ({ type: 'remove', item })), `Deleted ${n(ids.length)}.`));
    },
    clear: () => { sel.clear(); draw(); },
  }, () => view()?.tags ?? []);

  const archive = new ArchivePanel(doc, {
    restore: (ids) => {
      const first = view()?.zones[0];
      if (!first) return;
      run(s.bulk([{ type: 'unarchive', items: ids, zone: first.id, before: null }], `Restored ${n(ids.length)}.`));
    },
    archiveZone: (zone) => {
      const ids = view()?.zones.find((z) => z.id === zone)?.items.filter((id) => !id.startsWith('~')) ?? [];
      if (!ids.length) return;
      run(s.bulk(chunks(ids).map((items) => ({ type: 'archive', items })), `Archived ${n(ids.length)}.`));
    },
  }, view);

  const zones = app.root.querySelector('#zones');
  const draw = () => {
    const board = view();
    sel.prune(board);
    if (zones) bar.render(zones, sel);
    archive.render();
    // A lifted selection: the ghost carries the count.
    const ghost = app.view.ghost?.el;
    const count = s.drag?.group?.length ? s.drag.group.length + 1 : 0;
    if (ghost && count && !ghost.querySelector('.stack-count')) {
      const badge = doc.createElement('span');
      badge.className = 'stack-count';
      badge.textContent = String(count);
      ghost.append(badge);
      ghost.classList.add('is-stack');
    }
    addPanelButton(board);
  };

  // "Archive" in the open card's panel.
  const addPanelButton = (board) => {
    const dialog = app.panel.isOpen ? app.panel.dialog : null;
    const id = app.panel.item;
    if (!dialog || !id || dialog.querySelector('[data-archive-card]')) return;
    if (Array.isArray(board?.archived) && board.archived.includes(id)) return;
    const b = doc.createElement('button');
    b.type = 'button';
    b.dataset.archiveCard = id;
    b.textContent = 'Archive';
    b.addEventListener('click', () => {
      app.panel.close();
      run(s.bulk([{ type: 'archive', items: [id] }], 'Archived the card.'));
    });
    dialog.append(b);
  };

  zones?.addEventListener('pointerdown', (e) => {
    const item = tileOf(e.target);
    if (!item || !(e.ctrlKey || e.metaKey || e.shiftKey) || e.button !== 0 || s.drag) return;
    e.preventDefault();
    e.stopPropagation();
    if (e.shiftKey) sel.range(view(), item);
    else sel.toggle(item);
    draw();
    app.view.announce?.(`${n(sel.size)} selected.`);
  }, { capture: true });

  doc.addEventListener('keydown', (e) => {
    const intent = selectionKey({
      key: e.key, ctrl: e.ctrlKey || e.metaKey, shift: e.shiftKey, alt: e.altKey,
      inField: !!e.target.closest?.('input, textarea, select, [contenteditable]'),
    }, { item: tileOf(e.target), dragging: !!s.drag, size: sel.size });
    if (!intent || app.panel.isOpen) return;
    e.preventDefault();
    e.stopPropagation();
    if (intent.type === 'toggle') sel.toggle(intent.item);
    else if (intent.type === 'range') sel.range(view(), intent.item);
    else sel.clear();
    draw();
    app.view.announce?.(sel.size ? `${n(sel.size)} selected.` : 'Selection cleared.');
  }, { capture: true });

  // The card panel gets its "Archive" button as it opens.
  const openCard = app.openCard.bind(app);
  app.openCard = (item) => {
    openCard(item);
    draw();
  };

  return { render: draw };
}
