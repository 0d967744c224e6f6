// The start page's DOM: the board list, the template choices and the new-board form. Like the
// board view, it only touches elements, and user text (titles, ids) goes in as textContent.

import { el } from './dom.js';
import { icon } from './icons.js';

/** The start page's view. `root` is the #app element. */
export class StartPage {
  constructor(root) {
    this.root = root;
    this.doc = root.ownerDocument;
  }

  /**
   * Fills the index page's board list: `boards` null means the server has no list; `append` adds
   * a further page; `more` says whether there is one after it (the "More" button). `templates`
   * maps a template's name to its title ("kanban" → "Kanban"): a board made from one says which.
   */
  renderBoardList(boards, { append = false, more = false, fragment = '', templates = new Map() } = {}) {
    const list = this.root.querySelector('#board-list');
    const note = this.root.querySelector('#board-list-note');
    this.root.querySelector('#more-boards').hidden = !boards || !more;
    if (!append) list.replaceChildren();
    if (!boards) {
      note.textContent = 'This server does not list its boards; open one by name below.';
      return;
    }
    if (!append) note.textContent = boards.length ? '' : 'No boards yet: make one below.';
    for (const b of boards) {
      const users = Number.isInteger(b.users) ? b.users : (Array.isArray(b.users) ? b.users.length : 0);
      const name = b.title || b.id;
      const changes = Number.isInteger(b.seq) ? b.seq : 0;
      const meta = [users ? `${users} on it now` : 'nobody on it', changes === 1 ? '1 change' : `${changes} changes`];
      // Boards made before the server kept templates (or from a definition) name none.
      const template = typeof b.template === 'string' && b.template ? templates.get(b.template) ?? b.template : null;
      const dataset = { board: b.id, seq: String(changes), ...(template ? { template: b.template } : {}) };
      list.append(el(this.doc, 'li', { dataset },
        el(this.doc, 'a', {
          href: `?board=${encodeURIComponent(b.id)}${fragment}`,
          text: b.title && b.title !== b.id ? `${b.title} (${b.id})` : b.id,
        }),
        el(this.doc, 'span', { className: 'meta', text: ` — ${template ? `${template} · ` : ''}${meta.join(', ')}` }),
        el(this.doc, 'span', { className: 'board-actions' },
          this.action('pencil', `Rename ${name}`, 'rename', b.id),
          this.action('trash', `Delete ${name}`, 'delete', b.id))));
    }
  }

  /** The listed board `id`'s last change: by whom (a name, or null) and how long ago. */
  showLastChange(id, name, when) {
    const item = this.root.querySelector(`#board-list [data-board="${CSS.escape(id)}"]`);
    if (!item || !when) return;
    const text = ` · last change ${name ? 'by ' : ''}`;
    const span = el(this.doc, 'span', { className: 'meta last-change' }, text, ...(name ? [el(this.doc, 'bdi', { text: name })] : []), `, ${when}`);
    item.querySelector('.last-change')?.remove();
    item.querySelector('.board-actions').before(span);
  }

  /** A board's icon button on the list (`data-board-action`), named `label`. */
  action(iconName, label, kind, id) {
    return el(this.doc, 'button', {
      type: 'button', className: 'icon-only', title: label,
      attrs: { 'aria-label': label }, dataset: { boardAction: kind, id },
    }, icon(this.doc, iconName));
  }

  /**
   * Template choices: radio buttons with each template's title and description, the first
   * checked, in the fieldset `box` (the start page's, or the "no such board" question's).
   * `templates` null or empty: the server has none, and the start page's form is hidden.
   */
  renderTemplates(templates, box = '#templates') {
    const fieldset = this.root.querySelector(box);
    fieldset.querySelectorAll('label').forEach((l) => l.remove());
    if (box === '#templates') this.root.querySelector('#new-form').hidden = !templates || templates.length === 0;
    (templates ?? []).forEach((t, i) => {
      fieldset.append(el(this.doc, 'label', { className: 'template' },
        el(this.doc, 'input', {
          type: 'radio', name: 'template', value: t.name, dataset: { template: t.name }, checked: i === 0,
        }),
        el(this.doc, 'span', { className: 'template-title', text: t.title || t.name }),
        el(this.doc, 'span', { className: 'template-desc', text: t.description || '' })));
    });
  }

  /** The start page's new-board form: busy while its request is under way. */
  setCreating(busy) {
    const button = this.root.querySelector('#new-form button[type=submit]');
    button.disabled = busy;
    button.textContent = busy ? 'Making…' : 'Make board';
  }
}
