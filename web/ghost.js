// The local ghost: a copy of the lifted tile that follows this page's pointer (built afresh, not
// cloned, so no style attribute is copied under a strict CSP), for the view (view.js).

import { el } from './dom.js';

/** The ghost of the view `view` (its tiles and layouts). */
export class Ghost {
  constructor(view) {
    this.view = view;
    this.doc = view.doc;
    this.ghost = null; // {el, dx, dy, id}
  }

  /** Lifts a copy of the tile at its current place; `grab` is the pointer offset inside it. */
  show(id, x, y) {
    this.hide();
    const src = this.view.tiles.get(id);
    if (!src) return;
    const r = src.getBoundingClientRect();
    // Built afresh rather than cloned, so no style attribute is copied (strict CSP).
    const lay = this.view.layouts.get(src.closest('[data-zone]')?.dataset.zone);
    const g = el(this.doc, 'div', {
      className: `tile ghost is-${lay?.layout ?? 'grid'}${lay?.dense ? ' is-dense' : ''}`,
      attrs: { 'aria-hidden': 'true' }, style: { '--tile-color': src.style.getPropertyValue('--tile-color') },
      dataset: src.dataset.on ? { on: 'true' } : {},
    }, el(this.doc, 'span', { className: 'tile-text' },
      el(this.doc, 'span', { className: 'tile-label', text: src.querySelector('.tile-label').textContent }),
      el(this.doc, 'span', { className: 'tile-detail', text: src.querySelector('.tile-detail').textContent })));
    if (lay?.handle) g.append(el(this.doc, 'span', { className: 'tile-handle', text: '⠿' }));
    g.style.width = `${r.width}px`;
    g.style.height = `${r.height}px`;
    this.doc.body.append(g);
    this.ghost = { el: g, dx: x - r.left, dy: y - r.top, id };
    this.move(x, y);
  }

  /**
   * Someone edited the lifted card (an edit of a held card commits): the ghost under this
   * page's pointer shows its new label, detail and color, as its tile does.
   */
  refresh() {
    const g = this.ghost;
    const src = g && this.view.tiles.get(g.id);
    if (!src) return;
    for (const part of ['.tile-label', '.tile-detail']) {
      const text = src.querySelector(part).textContent;
      const mine = g.el.querySelector(part);
      if (mine.textContent !== text) mine.textContent = text;
    }
    g.el.style.setProperty('--tile-color', src.style.getPropertyValue('--tile-color'));
  }

  /**
   * Moves the ghost with the pointer: by its `translate` (board.css puts it at the window's
   * corner), which moves it on the compositor without laying out the page again on every
   * pointer move (left/top did, and the next rectangle read waited for that layout).
   */
  move(x, y) {
    if (!this.ghost) return;
    const { el, dx, dy } = this.ghost;
    el.style.translate = `${x - dx}px ${y - dy}px`;
  }

  /** Removes the ghost; returns its last rectangle (so the tile can glide from there). */
  hide() {
    if (!this.ghost) return null;
    const r = this.ghost.el.getBoundingClientRect();
    this.ghost.el.remove();
    this.ghost = null;
    return r;
  }
}
