// The filter bar (issue 32), opened by the toolbar's Filter button: text, tag, assignee and due
// date. The filter is kept in the URL (so a link carries it); the cards it hides are hidden, not
// removed (none while a drag is under way, so that every drop target stays).

import { filterFrom, filterIsEmpty, matchesFilter } from './cards.js';

export class FilterBar {
  /** `changed()`: the filter changed (the page renders again). */
  constructor(win, changed) {
    this.win = win;
    this.doc = win.document;
    this.filter = filterFrom(new URLSearchParams(win.location.search));
    this.changed = changed;
  }

  /** Whether the filter shows only some cards. */
  get active() {
    return !filterIsEmpty(this.filter);
  }

  /** Wires the bar's fields (index.html) to the filter. */
  listen() {
    const doc = this.doc;
    const text = doc.getElementById('filter-text');
    if (!text) return;
    text.value = this.filter.text;
    doc.getElementById('filter-due').value = this.filter.due;
    doc.getElementById('filter-bar').addEventListener('submit', (e) => e.preventDefault());
    text.addEventListener('input', () => this.set({ text: text.value }));
    doc.getElementById('filter-tag').addEventListener('change', (e) => this.set({ tag: e.target.value }));
    doc.getElementById('filter-who').addEventListener('change', (e) => this.set({ who: e.target.value }));
    doc.getElementById('filter-due').addEventListener('change', (e) => this.set({ due: e.target.value }));
  }

  /**
   * The ids of the cards the filter hides on `board` (none while `dragging`), with the bar's
   * choices brought up to date and the count it shows.
   */
  hidden(board, dragging) {
    const doc = this.doc;
    const f = this.filter;
    const options = (select, entries, first) => {
      const key = JSON.stringify(entries);
      if (select.dataset.key === key) return;
      select.dataset.key = key;
      const chosen = select.value || (select.id === 'filter-tag' ? f.tag : f.who);
      select.replaceChildren(new Option(first, ''), ...entries.map(([value, text]) => new Option(text, value)));
      select.value = entries.some(([v]) => v === chosen) ? chosen : '';
    };
    const tagSelect = doc.getElementById('filter-tag');
    const whoSelect = doc.getElementById('filter-who');
    if (!tagSelect || !whoSelect) return new Set();
    options(tagSelect, (board.tags ?? []).map((t) => [t.id, t.name]), 'All tags');
    const people = new Map();
    for (const it of board.items) for (const p of it.assignees ?? []) if (!people.has(p.member)) people.set(p.member, p.name);
    options(whoSelect, [...people], 'Anyone');
    const count = doc.getElementById('filter-count');
    doc.getElementById('filter-toggle')?.classList.toggle('is-active', this.active);
    if (!this.active || dragging) {
      count.textContent = '';
      return new Set();
    }
    const now = Date.now();
    // Archived cards are on no zone: the count is of the cards on the board (the Archive panel has the rest).
    const archived = new Set(board.archived ?? []);
    const onBoard = board.items.filter((it) => !archived.has(it.id));
    const hidden = new Set(onBoard.filter((it) => !matchesFilter(it, f, now)).map((it) => it.id));
    count.textContent = `${onBoard.length - hidden.size} of ${onBoard.length} cards`;
    return hidden;
  }

  /** The filter changed: kept in the URL (so a link carries it) and applied. */
  set(change) {
    this.filter = { ...this.filter, ...change };
    const url = new URL(this.win.location.href);
    for (const [key, value] of [['q', this.filter.text], ['tag', this.filter.tag], ['who', this.filter.who], ['due', this.filter.due]]) {
      if (value) url.searchParams.set(key, value);
      else url.searchParams.delete(key);
    }
    this.win.history.replaceState(this.win.history.state, '', url);
    this.changed();
  }
}
