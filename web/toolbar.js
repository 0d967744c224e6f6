// The board's own toolbar (issue 35): the modes its template uses, Undo/Redo, Add column, Filter,
// History and the share slot (Copy link), as icon buttons with accessible names; the connection
// state; and, on a phone (≤ 600 px), one row with a menu button that opens the rest. Only
// touches the toolbar's elements.

import { fillIcons } from './icons.js';

/** The toolbar's view. `root` is the #app element. */
export class Toolbar {
  constructor(root) {
    this.root = root;
    this.doc = root.ownerDocument;
    this.connEl = root.querySelector('#conn');
    this.tools = root.querySelector('#board-tools');
    this.menuButton = root.querySelector('#menu-toggle');
    this.menu = root.querySelector('#toolbar-menu');
    this.filterButton = root.querySelector('#filter-toggle');
    this.filterBar = root.querySelector('#filter-bar');
    this.copyTimer = null;
    fillIcons(root);
    this.menuButton?.addEventListener('click', () => this.openMenu(this.menuButton.getAttribute('aria-expanded') !== 'true'));
    // The menu closes when something in it was chosen, on Escape, and on a press outside it.
    this.menu?.addEventListener('click', (e) => { if (e.target.closest?.('button')) this.openMenu(false); });
    this.doc.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.menuOpen) { this.openMenu(false); this.menuButton.focus(); }
    });
    this.doc.addEventListener('pointerdown', (e) => {
      if (this.menuOpen && !e.target.closest?.('#toolbar-menu, #menu-toggle')) this.openMenu(false);
    });
    this.filterButton?.addEventListener('click', () => this.showFilter(this.filterBar.hidden));
  }

  get menuOpen() {
    return this.menuButton?.getAttribute('aria-expanded') === 'true';
  }

  /** Opens (or closes) the phone menu. */
  openMenu(open) {
    if (!this.menuButton) return;
    this.menuButton.setAttribute('aria-expanded', String(open));
    this.menu.classList.toggle('is-open', open);
  }

  /** Shows (or hides) the filter bar; shown, its text field has the focus when `focus`. */
  showFilter(show, focus = true) {
    if (!this.filterBar) return;
    this.filterBar.hidden = !show;
    this.filterButton.setAttribute('aria-expanded', String(show));
    if (show && focus) this.filterBar.querySelector('input')?.focus();
  }

  /** Marks the root with the connection state (data-connected) and says it in the toolbar. */
  setConnection(state) {
    this.root.dataset.connected = state === 'open' ? 'true' : 'false';
    const words = {
      open: 'Connected', connecting: 'Connecting…', closed: 'Offline — reconnecting…',
      stalled: 'No answer from the board — still trying…',
      unauthorized: 'Not allowed: no valid access token',
      expired: 'Your access has expired',
      revoked: 'Your access has been revoked',
    };
    this.connEl.textContent = words[state] ?? state;
    this.connEl.dataset.state = state;
  }

  /** The mode buttons the board offers (`modes`); a single mode needs no buttons. */
  setModes(modes) {
    const group = this.root.querySelector('.modes');
    for (const b of group.querySelectorAll('[data-mode-button]')) b.hidden = !modes.includes(b.dataset.modeButton);
    group.hidden = modes.length < 2;
  }

  /** Highlights the button of the current mode. */
  setMode(mode) {
    this.root.dataset.mode = mode;
    for (const b of this.root.querySelectorAll('[data-mode-button]')) {
      b.setAttribute('aria-pressed', b.dataset.modeButton === mode ? 'true' : 'false');
    }
  }

  /** Shows the board's tools (page 'board') or none (the start page, the "no such board" page). */
  showPage(page) {
    this.tools.hidden = page !== 'board';
    this.connEl.hidden = page !== 'board';
    this.menuButton.hidden = page !== 'board';
    if (page !== 'board') this.showFilter(false, false);
  }

  /** Says a link was copied: the button reads "Copied" for a moment. */
  copied(ok) {
    const button = this.root.querySelector('#copy-link');
    const label = button.querySelector('.label') ?? button;
    clearTimeout(this.copyTimer);
    if (!ok) return;
    label.textContent = 'Copied';
    button.dataset.copied = 'true';
    this.copyTimer = setTimeout(() => { label.textContent = 'Copy link'; delete button.dataset.copied; }, 2000);
  }
}
