// Editing in place, for the view (view.js): a text over the element it edits (a column's title,
// a grid's new card, the board's title) and a card's label, detail and color. User text goes in
// as field values, never as markup. A field moved by a render (the view's `rendering`) stays open.

import { el } from './dom.js';

/** The colors a card can be given from its editor's palette. */
export const PALETTE = ['#e53935', '#fb8c00', '#fdd835', '#43a047', '#00acc1', '#1e88e5', '#8e24aa', '#6d4c41'];

/** The view's editors. `view`: the View (its tiles, layouts, root and `rendering`). */
export class Editors {
  constructor(view) {
    this.view = view;
    this.doc = view.doc;
  }

  /**
   * Edits the text of `el` in place: an input over it, its text selected. Enter or leaving the
   * field commits (`done(value)`), Escape cancels (`done(null)`). Returns the input.
   */
  editText(target, value, done, { label = 'Edit', maxLength = 200, of = 'title' } = {}) {
    const input = el(this.doc, 'input', {
      className: 'inline-edit', value, maxLength, attrs: { 'aria-label': label }, dataset: { editOf: of },
    });
    let finished = false;
    let current = target;
    const finish = (result) => {
      if (finished) return;
      finished = true;
      input.remove();
      current.hidden = false;
      done(result);
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); finish(input.value); }
      else if (e.key === 'Escape') { e.preventDefault(); finish(null); }
      e.stopPropagation();
    });
    // Left for elsewhere: committed. Moved by a render (its zone rebuilt): still open.
    input.addEventListener('blur', () => { if (!this.view.rendering) finish(input.value); });
    /** The zones were built again: the field moves beside `t`, the new element it edits. */
    input.retarget = (t) => {
      current = t;
      t.hidden = true;
      t.after(input);
    };
    target.hidden = true;
    target.after(input);
    input.focus();
    input.select();
    return input;
  }

  /**
   * Edits the card of `id` in place: its label (and its detail when `withDetail`, in zones that
   * show details) in fields over it, and a palette of colors. Enter or leaving the editor commits
   * `done({label, detail})`, Escape cancels (`done(null)`); a color is picked at once
   * (`recolor(color)`).
   */
  editCard(id, { withDetail = false } = {}, done, recolor) {
    const card = this.view.tiles.get(id);
    const text = card?.querySelector('.tile-text');
    if (!text || card.querySelector('.card-editor')) return;
    const editor = el(this.doc, 'div', { className: 'card-editor' });
    const field = (value, label, placeholder, max) => el(this.doc, 'input', {
      className: 'inline-edit', value, maxLength: max, placeholder, attrs: { 'aria-label': label },
    });
    const label = field(card.querySelector('.tile-label').textContent, 'Card label', 'Label', 200);
    const detail = withDetail
      ? field(card.querySelector('.tile-detail').textContent, 'Card detail', 'Detail (optional)', 200)
      : null;
    const palette = el(this.doc, 'div', { className: 'palette', attrs: { role: 'group', 'aria-label': 'Card color' } });
    // The card's color is the pressed swatch (if it is one of them).
    const press = (current) => {
      for (const b of palette.children) b.setAttribute('aria-pressed', String(b.dataset.color === current));
    };
    for (const color of PALETTE) {
      const b = el(this.doc, 'button', {
        type: 'button', className: 'swatch', dataset: { color }, attrs: { 'aria-label': `Color ${color}` },
        style: { '--swatch': color },
      });
      // Keeps the focus in the field, so picking a color does not end the edit.
      b.addEventListener('pointerdown', (e) => e.preventDefault());
      b.addEventListener('click', () => { press(color); recolor(color); });
      palette.append(b);
    }
    press(card.style.getPropertyValue('--tile-color'));
    editor.append(label, ...(detail ? [detail] : []), palette);
    let finished = false;
    // `refocus`: ended from the keyboard (Enter, Escape), so the focus goes back to the tile
    // (its handle in a handle-only zone) and the keyboard can go on from it. Left by a click
    // elsewhere, the focus stays where the click put it.
    const finish = (result, refocus = false) => {
      if (finished) return;
      finished = true;
      editor.remove();
      text.hidden = false;
      done(result);
      if (refocus) this.view.focusItem(id);
    };
    const values = () => ({ label: label.value, ...(detail ? { detail: detail.value } : {}) });
    editor.addEventListener('keydown', (e) => {
      // Enter on a swatch picks its color (the button's click); elsewhere it commits.
      if (e.key === 'Enter' && e.target.closest?.('.swatch')) { e.stopPropagation(); return; }
      if (e.key === 'Enter') { e.preventDefault(); finish(values(), true); }
      else if (e.key === 'Escape') { e.preventDefault(); finish(null, true); }
      e.stopPropagation();
    });
    // Left for elsewhere: committed. Moved by a render (its tile moved, its zone rebuilt): open.
    editor.addEventListener('focusout', (e) => {
      if (!this.view.rendering && !editor.contains(e.relatedTarget)) finish(values());
    });
    text.hidden = true;
    text.after(editor);
    label.focus();
    label.select();
  }

  /** Edits the title of the zone `id` in place. */
  editZoneTitle(id, done) {
    const name = this.view.root.querySelector(`[data-zone-wrap="${CSS.escape(id)}"] .zone-title`);
    if (name) this.editText(name, name.textContent, done, { label: 'Column title', maxLength: 100 });
  }

  /** A new card's label, typed in place of a grid's add button (Escape: none). */
  newCardField(id, done) {
    const button = this.view.root.querySelector(`[data-zone-wrap="${CSS.escape(id)}"] [data-action="add-card"]`);
    if (button) this.editText(button, '', done, { label: `New card in ${this.view.layouts.get(id)?.title ?? id}`, of: 'add' });
  }

  /** Edits the board title in place. */
  editBoardTitle(done) {
    this.editText(this.view.titleEl, this.view.titleEl.textContent, done, { label: 'Board name' });
  }
}
