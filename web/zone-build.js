// Building a board's zones in the view (view.js): each a titled section holding an
// `<ol data-zone data-layout>` (a grid of its columns, a row or a list) with its editing buttons,
// its "Drop here" note and its "Add card" field; neighbouring lists stand side by side as lanes.
// Built again only when the zones' layout changed (layout.js layoutKey), keeping what someone was
// typing in them.

import { el } from './dom.js';
import { arrangeZones, zoneLayouts } from './layout.js';
import { iconButton } from './tile-view.js';

/** Builds the zones of `board` into `view` (its zonesEl, zoneEls, layouts), the layout `key`. */
export function buildZones(view, board, key) {
  const doc = view.doc;
  // What someone is typing in an "Add card" field survives a rebuild (another person renamed
  // or added a column meanwhile), focus and caret included.
  const typed = new Map();
  for (const form of view.zonesEl.querySelectorAll('[data-add-card]')) {
    const input = form.querySelector('input');
    if (input.value || doc.activeElement === input) {
      typed.set(form.dataset.addCard, { value: input.value, focused: doc.activeElement === input, at: input.selectionStart });
    }
  }
  // So does a column title being edited, or a grid's new card being typed (their fields are
  // moved into the new heading); one for a column that is gone goes with it, unsent.
  const heads = [...view.zonesEl.querySelectorAll('.zone-head > .inline-edit')]
    .map((input) => ({ input, zone: input.closest('[data-zone-wrap]')?.dataset.zoneWrap }));
  view.zonesEl.replaceChildren();
  view.zoneEls.clear();
  view.layouts.clear();
  view.virtual.reset();
  view.zoneKey = key;
  for (const band of arrangeZones(zoneLayouts(board))) {
    let parent = view.zonesEl;
    if (band.lanes.length > 1) {
      parent = el(doc, 'div', { className: 'lanes', style: { '--lanes': String(band.lanes.length) } });
      view.zonesEl.append(parent);
    }
    for (const lay of band.lanes) {
      const section = el(doc, 'section', {
        className: `zone-wrap zone-wrap-${lay.layout}`, dataset: { zoneWrap: lay.id },
      });
      // The heading, then the zone's editing buttons beside it (a grid adds cards from here:
      // a field under it would push the zones below it down).
      const h = el(doc, 'div', { className: 'zone-head' },
        el(doc, 'h2', { className: 'zone-title', text: lay.title }));
      if (lay.layout === 'grid') h.append(iconButton(doc, 'plus', `Add card to ${lay.title}`, { action: 'add-card', column: lay.id }));
      h.append(
        iconButton(doc, 'pencil', `Rename ${lay.title}`, { action: 'rename-zone', column: lay.id }),
        iconButton(doc, 'trash', `Remove ${lay.title}`, { action: 'remove-zone', column: lay.id }),
      );
      const list = el(doc, 'ol', {
        className: `zone zone-${lay.layout}${lay.dense ? ' is-dense' : ''}${lay.handle ? ' has-handles' : ''}`,
        dataset: { zone: lay.id, layout: lay.layout, ...(lay.axis ? { axis: lay.axis } : {}) },
        attrs: { 'aria-label': lay.title },
        style: lay.layout === 'grid' ? { '--columns': String(lay.columns) } : {},
      });
      const empty = el(doc, 'p', { className: 'zone-empty', text: lay.layout === 'list' ? 'No cards yet — add one' : 'Drop here' });
      // "Add card" at the end of every zone: Enter adds, the input stays for the next one.
      const input = el(doc, 'input', {
        name: 'label', autocomplete: 'off', maxLength: 200, placeholder: 'Add card',
        attrs: { 'aria-label': `New card in ${lay.title}` },
      });
      const form = el(doc, 'form', { className: 'add-card', dataset: { addCard: lay.id } },
        input, el(doc, 'button', { type: 'submit', text: 'Add', attrs: { 'aria-label': `Add card to ${lay.title}` } }));
      section.append(h, list, empty);
      if (lay.layout !== 'grid') section.append(form);
      parent.append(section);
      view.zoneEls.set(lay.id, list);
      view.layouts.set(lay.id, lay);
      for (const { input: field } of heads.filter((o) => o.zone === lay.id)) {
        const target = h.querySelector(field.dataset.editOf === 'add' ? '[data-action="add-card"]' : '.zone-title');
        if (target) field.retarget(target);
      }
      const kept = typed.get(lay.id);
      if (kept && lay.layout !== 'grid') {
        input.value = kept.value;
        if (kept.focused) {
          input.focus({ preventScroll: true });
          input.setSelectionRange(kept.at, kept.at);
        }
      }
    }
  }
}
