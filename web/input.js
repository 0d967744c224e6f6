// Input for the page (app.js): pointer, keyboard and editing clicks on the board turned into
// gestures (gestures.js) and session calls (session.js), and the gestures' intents acted on.
// Functions of the App (`app`), which owns the state they touch.

import { showsDetails } from './layout.js';

/** The tile (item id) an event target is in, or null. */
export const tileOf = (el) => el?.closest?.('[data-item]')?.dataset.item ?? null;
/** True when an event target is a drag handle (or inside one). */
const onHandle = (el) => !!el?.closest?.('[data-handle]');

/** Listens to the board's pointer, keyboard and click events. */
export function listen(app) {
  app.filterBar.listen();
  const zones = app.root.querySelector('#zones');
  const point = (e, item = null) => ({
    pointerId: e.pointerId, pointerType: e.pointerType, button: e.button, x: e.clientX, y: e.clientY, item,
    handle: item !== null && onHandle(e.target),
  });
  // The editing controls (add card, rename, remove, an inline field) are not drag surfaces.
  const control = (el) => !!el?.closest?.('input, form, .card-editor, button:not([data-handle])');
  zones.addEventListener('pointerdown', (e) => {
    app.press = tileOf(e.target) && !control(e.target) ? { item: tileOf(e.target), x: e.clientX, y: e.clientY } : null;
    if (!control(e.target)) app.act(app.gestures.pointerDown(point(e, tileOf(e.target))), e);
  });
  zones.addEventListener('click', (e) => {
    editClick(app, e);
    // A click on a card that is not a drag (the pointer did not move) opens it, unless a
    // double click (the label edited in place) follows; paint boards paint on a click.
    const p = app.press;
    app.press = null;
    const item = tileOf(e.target);
    if (!p || item !== p.item || control(e.target) || app.session.mode === 'paint') return;
    if (Math.hypot(e.clientX - p.x, e.clientY - p.y) > 4 || e.detail > 1) return;
    app.win.clearTimeout(app.openTimer);
    app.openTimer = app.win.setTimeout(() => app.openCard(item), 300);
  });
  zones.addEventListener('submit', (e) => {
    const form = e.target.closest?.('[data-add-card]');
    if (!form) return;
    e.preventDefault();
    const input = form.querySelector('input');
    const before = app.session.state.view()?.items.length ?? 0;
    app.run(app.session.addCard(form.dataset.addCard, input.value));
    // Added (or refused with a toast that says why): cleared only when it went out.
    if ((app.session.state.view()?.items.length ?? 0) > before) input.value = '';
  });
  zones.addEventListener('dblclick', (e) => {
    app.win.clearTimeout(app.openTimer);
    const item = tileOf(e.target);
    if (item && !control(e.target)) app.editLabel(item);
  });
  app.win.addEventListener('pointermove', (e) => app.act(app.gestures.pointerMove(point(e)), e));
  app.win.addEventListener('pointerup', (e) => app.act(app.gestures.pointerUp(point(e)), e));
  app.win.addEventListener('pointercancel', (e) => app.act(app.gestures.pointerCancel(point(e)), e));
  // A long press on a tile is a lift, not a context menu (in a handle-only zone only the handle's).
  zones.addEventListener('contextmenu', (e) => {
    const item = tileOf(e.target);
    if (item && (onHandle(e.target) || !app.session.layoutOf(item)?.handle)) e.preventDefault();
  });
  // Once a touch drag or stroke is under way, the page must not scroll under the finger.
  app.win.document.addEventListener('touchmove', (e) => {
    if (app.gestures.capturesTouch()) e.preventDefault();
  }, { passive: false });
  app.win.document.addEventListener('keydown', (e) => app.act(app.gestures.keyDown({
    key: e.key,
    ctrl: e.ctrlKey || e.metaKey,
    shift: e.shiftKey,
    alt: e.altKey,
    inField: !!e.target.closest?.('input, textarea, select, [contenteditable]'),
    item: tileOf(e.target),
  }), e));
  app.win.addEventListener('blur', () => app.act(app.gestures.blur()));
}

/** A click on an editing button in the zones: remove a card, rename or remove a column. */
function editClick(app, e) {
  const b = e.target.closest?.('[data-action]');
  if (!b) return;
  const s = app.session;
  switch (b.dataset.action) {
    case 'remove-card': if (tileOf(b)) app.run(s.removeCard(tileOf(b))); break;
    case 'remove-zone': app.run(s.removeZone(b.dataset.column)); break;
    case 'add-card':
      app.view.newCardField(b.dataset.column, (v) => { if (v && v.trim()) app.run(s.addCard(b.dataset.column, v)); });
      break;
    case 'rename-zone':
      app.view.editZoneTitle(b.dataset.column, (v) => { if (v !== null) app.run(s.renameZone(b.dataset.column, v)); });
      break;
    default: break;
  }
}

/** Edits the label of `item` in place; the session sends the edit (or says why not). */
export function editLabel(app, item) {
  if (!app.session.state.view() || app.session.drag) return;
  // The detail is edited where the zone shows details: every layout does (layout.js).
  const withDetail = showsDetails(app.session.layoutOf(item));
  app.view.editCard(
    item, { withDetail },
    (v) => { if (v !== null) app.run(app.session.editCard(item, v)); },
    (color) => app.run(app.session.editCard(item, { color })),
  );
}

export function act(app, intents, event) {
  const s = app.session;
  for (const i of intents) {
    switch (i.type) {
      case 'prevent': event?.preventDefault(); break;
      case 'lift':
        if (i.source === 'pointer') {
          // Text selected around a handle-only list would look dragged along: it goes.
          const sel = app.win.getSelection?.();
          if (sel && !sel.isCollapsed) sel.removeAllRanges();
          app.origin = { x: i.x, y: i.y };
          app.axis = s.layoutOf(i.item)?.axis ?? null;
          app.lastPoint = app.origin;
        }
        app.run(s.lift(i.item, i.source));
        break;
      case 'aim': app.aim(i.x, i.y); break;
      case 'aimKey': app.run(s.aimKey(i.key)); break;
      case 'drop': app.run(s.drop()); break;
      case 'cancel': app.run(s.cancel()); break;
      case 'paint': app.run(s.paint(i.item)); break;
      case 'paintEnd': app.run(s.paintEnd()); break;
      case 'refuse': app.run(s.refuse(i.item, i.source)); break;
      case 'undo': app.run(s.undo()); break;
      case 'open': app.openCard(i.item); break;
      case 'edit': app.editLabel(i.item); break;
      case 'step': if (app.view.step(i.item, i.key)) event?.preventDefault?.(); break;
      case 'remove': app.run(s.removeCard(i.item)); break;
      case 'redo': app.run(s.redo()); break;
      case 'mode':
        app.chooseMode(i.mode);
        app.view.announce(`${i.mode} mode`);
        break;
      case 'wake': setTimeout(() => app.act(app.gestures.wake(i.token)), i.after); break;
      default: break;
    }
  }
}
