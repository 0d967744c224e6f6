// The board's archive (issue 36): an "Archive" button in the toolbar opens a panel that lists
// the archived cards (filtered by text) with "Restore" on each, and "Archive all cards in this
// column" for a column picked there. Archived cards keep their content; restoring puts
// them back at the end of the first column (one `unarchive`, undoable).

/** The archived cards of `board` whose label, detail or description contains `text` (any case). */
export function archivedCards(board, text = '') {
  const wanted = text.trim().toLowerCase();
  const ids = Array.isArray(board?.archived) ? board.archived : [];
  const items = new Map((board?.items ?? []).map((it) => [it.id, it]));
  return ids.map((id) => items.get(id)).filter((it) => it && (!wanted
    || [it.label, it.detail, it.description].some((s) => typeof s === 'string' && s.toLowerCase().includes(wanted))));
}

export class ArchivePanel {
  /** `actions`: {restore(ids), archiveZone(zoneId)}; `board()`: the board shown. */
  constructor(doc, actions, board) {
    this.doc = doc;
    this.actions = actions;
    this.board = board;
    this.toggle = doc.createElement('button');
    this.toggle.type = 'button';
    this.toggle.id = 'archive-toggle';
    this.toggle.setAttribute('aria-expanded', 'false');
    this.toggle.setAttribute('aria-controls', 'archive');
    this.toggle.title = 'Archived cards: find and restore them';
    this.toggle.textContent = 'Archive';
    this.toggle.addEventListener('click', () => this.setOpen(this.panel.hidden));
    // With the people on the board (the toolbar has no room to spare on a narrow screen).
    (doc.querySelector('aside.people') ?? doc.body).append(this.toggle);

    this.panel = doc.createElement('aside');
    this.panel.id = 'archive';
    this.panel.className = 'archive-panel';
    this.panel.hidden = true;
    this.panel.setAttribute('aria-label', 'Archived cards');
    const head = doc.createElement('div');
    head.className = 'archive-head';
    const title = doc.createElement('h2');
    title.textContent = 'Archived cards';
    const close = doc.createElement('button');
    close.type = 'button';
    close.textContent = 'Close';
    close.addEventListener('click', () => this.setOpen(false));
    head.append(title, close);
    this.search = doc.createElement('input');
    this.search.type = 'search';
    this.search.id = 'archive-search';
    this.search.maxLength = 200;
    this.search.placeholder = 'Find an archived card';
    this.search.setAttribute('aria-label', 'Find an archived card');
    this.search.addEventListener('input', () => this.render());
    this.list = doc.createElement('ul');
    this.list.className = 'archive-list';
    this.list.id = 'archive-list';
    this.empty = doc.createElement('p');
    this.empty.className = 'note';
    // "Archive all cards in this column": a column picked here (a button in every column's
    // heading would change the heading's size under a drag).
    this.columns = doc.createElement('select');
    this.columns.id = 'archive-column';
    this.columns.setAttribute('aria-label', 'Column to archive');
    const all = doc.createElement('button');
    all.type = 'button';
    all.id = 'archive-column-go';
    all.textContent = 'Archive all cards in this column';
    all.addEventListener('click', () => { if (this.columns.value) this.actions.archiveZone(this.columns.value); });
    const column = doc.createElement('div');
    column.className = 'archive-column';
    column.append(this.columns, all);
    this.panel.append(head, column, this.search, this.list, this.empty);
    (doc.getElementById('board') ?? doc.body).append(this.panel);
    this.panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); this.setOpen(false); } });
  }

  /** The column picker's choices: the board's columns, by title. */
  renderColumns(board) {
    const zones = board?.zones ?? [];
    const key = JSON.stringify(zones.map((z, i) => [z.id, z.title ?? `Column ${i + 1}`]));
    if (this.columns.dataset.key === key) return;
    this.columns.dataset.key = key;
    const chosen = this.columns.value;
    this.columns.replaceChildren(...zones.map((z, i) => {
      const o = this.doc.createElement('option');
      o.value = z.id;
      o.textContent = z.title ?? `Column ${i + 1}`;
      return o;
    }));
    if (zones.some((z) => z.id === chosen)) this.columns.value = chosen;
  }

  setOpen(open) {
    this.panel.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    if (open) {
      this.render();
      this.search.focus();
    }
  }

  /** Draws the list (when open) and the count on the Archive button. */
  render() {
    const board = this.board();
    const n = Array.isArray(board?.archived) ? board.archived.length : 0;
    this.toggle.textContent = n ? `Archive (${n})` : 'Archive';
    if (this.panel.hidden) return;
    this.renderColumns(board);
    const cards = archivedCards(board, this.search.value);
    this.list.replaceChildren(...cards.map((it) => {
      const li = this.doc.createElement('li');
      li.dataset.archivedItem = it.id;
      const label = this.doc.createElement('span');
      label.className = 'archive-label';
      label.textContent = it.label || '(no label)';
      const restore = this.doc.createElement('button');
      restore.type = 'button';
      restore.textContent = 'Restore';
      restore.setAttribute('aria-label', `Restore ${it.label || 'card'}`);
      restore.addEventListener('click', () => this.actions.restore([it.id]));
      li.append(label, restore);
      return li;
    }));
    this.empty.textContent = cards.length ? '' : (n ? 'No archived card matches.' : 'Nothing is archived.');
  }
}
