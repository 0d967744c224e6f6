// The card panel (issue 32): a dialog with everything a card holds — its label, its description
// (Markdown, shown rendered as DOM nodes), tags, assignees, due date and checklist — kept live
// while open. DOM only: it calls `act(body, text)` with an op for the session to send, and never
// puts user text in as HTML.

import { el } from './dom.js';
import { checklistProgress, initials, isDueDate } from './cards.js';
import { renderMarkdown } from './markdown.js';
import { changeText, describeChange, previousValue } from './history.js';
import { CommentsSection } from './comment-panel.js';

const COLOR_NAMES = ['Red', 'Orange', 'Yellow', 'Green', 'Teal', 'Blue', 'Purple', 'Brown'];
import { PALETTE } from './view.js';

export class CardPanel {
  /**
   * `doc`: the page; `act(body, text)`: sends an op; `rename(item, label)`: edits the label;
   * `people()`: [{member, name}] who can be assigned (on the board and from /members);
   * `me()`: {member, name} of this page; `nameOf(userId)`: a user's display name.
   */
  constructor(doc, { act, rename, people, me, confirmed = () => null, onClose = () => {}, fetchComments = () => null,
    archive = null, remove = null }) {
    /** `archive(item)` / `remove(item)`: the card's own actions (undoable), closing the panel. */
    this.archiveCard = archive;
    this.removeCard = remove;
    this.comments = new CommentsSection(doc, { act: (body, text) => this.act(body, text), fetchPage: fetchComments, people, me });
    this.confirmed = confirmed;
    /** The description this page saved, until the server's board has it. */
    this.saved = null;
    this.assigned = new Set();
    this.doc = doc;
    this.act = act;
    this.rename = rename;
    this.people = people;
    this.me = me;
    this.onClose = onClose;
    this.item = null;
    this.root = null;
    /** The description as it was when editing began (null: not editing). */
    this.draftBase = null;
  }

  get isOpen() { return this.root !== null; }

  /** Archive and Delete for this card (the only way to them where a tile has no room for its
   * own buttons, as on a phone); each is one undoable change, and the panel closes. */
  actionsRow() {
    const d = this.doc;
    const row = el(d, 'div', { className: 'row panel-actions' });
    for (const [text, run] of [['Archive card', this.archiveCard], ['Delete card', this.removeCard]]) {
      if (!run) continue;
      const b = el(d, 'button', { type: 'button', text, className: text === 'Delete card' ? 'danger' : '' });
      b.addEventListener('click', () => {
        const item = this.item;
        this.close(false);
        run(item);
      });
      row.append(b);
    }
    return row;
  }

  /** Opens the panel for card `id` of `board`. */
  open(id, board) {
    this.close(false);
    this.item = id;
    const d = this.doc;
    this.labelInput = el(d, 'input', { className: 'panel-label', attrs: { 'aria-label': 'Card label', maxlength: '200' } });
    // Enter commits the label (its change event) and leaves the focus in the dialog, on itself,
    // so Escape still closes it and Tab goes on from there.
    this.labelInput.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      this.labelInput.blur();
      this.dialog.focus();
    });
    this.labelInput.addEventListener('change', () => this.rename(this.item, this.labelInput.value));
    const close = el(d, 'button', { type: 'button', className: 'panel-close', text: '×', attrs: { 'aria-label': 'Close' } });
    close.addEventListener('click', () => this.close());
    this.rendered = el(d, 'div', { className: 'rendered', attrs: { 'data-description': '' } });
    this.editButton = el(d, 'button', { type: 'button', text: 'Edit description' });
    this.editButton.addEventListener('click', () => this.startDraft());
    this.draft = el(d, 'textarea', { hidden: true, attrs: { 'aria-label': 'Description (Markdown)', maxlength: '10000' } });
    this.notice = el(d, 'p', { className: 'notice', hidden: true, attrs: { role: 'status' } });
    this.saveButton = el(d, 'button', { type: 'button', text: 'Save', hidden: true });
    this.saveButton.addEventListener('click', () => this.saveDraft());
    this.cancelButton = el(d, 'button', { type: 'button', text: 'Cancel', hidden: true });
    this.cancelButton.addEventListener('click', () => this.endDraft());
    this.tagsRow = el(d, 'div', { className: 'row tags' });
    this.newTag = el(d, 'input', { attrs: { 'aria-label': 'New tag name', placeholder: 'New tag', maxlength: '50' } });
    this.newTagColor = el(d, 'select', { attrs: { 'aria-label': 'New tag color' } },
      ...PALETTE.map((c, i) => el(d, 'option', { value: c, text: COLOR_NAMES[i] ?? c })));
    this.manageTags = el(d, 'ul', { className: 'manage-tags' });
    this.historyList = el(d, 'ol', { className: 'history-list' });
    const makeTag = el(d, 'button', { type: 'button', text: 'Create tag' });
    const create = () => {
      const name = this.newTag.value.trim();
      if (!name) return;
      this.act({ type: 'addTag', tag: { name, color: this.newTagColor.value } }, `Made the tag ${name}.`);
      this.newTag.value = '';
    };
    makeTag.addEventListener('click', create);
    this.newTag.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); create(); } });
    this.peopleRow = el(d, 'div', { className: 'row people' });
    this.assignMe = el(d, 'button', { type: 'button', text: 'Assign me' });
    this.assignMe.addEventListener('click', () => this.togglePerson(this.me()));
    this.due = el(d, 'input', { type: 'date', attrs: { 'aria-label': 'Due date' } });
    this.due.addEventListener('change', () => {
      const value = this.due.value;
      if (value === '') this.act({ type: 'edit', item: this.item, due: null }, 'Cleared the due date.');
      else if (isDueDate(value)) this.act({ type: 'edit', item: this.item, due: value }, `Due ${value}.`);
    });
    const clearDue = el(d, 'button', { type: 'button', text: 'No due date' });
    clearDue.addEventListener('click', () => this.act({ type: 'edit', item: this.item, due: null }, 'Cleared the due date.'));
    this.progress = el(d, 'progress', { max: 1, value: 0, attrs: { 'aria-label': 'Checklist progress' } });
    this.progressText = el(d, 'span', { className: 'progress-text' });
    this.checklist = el(d, 'ul', { className: 'checklist' });
    this.newCheck = el(d, 'input', { attrs: { 'aria-label': 'New checklist item', placeholder: 'Add an item', maxlength: '200' } });
    this.newCheck.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      const text = this.newCheck.value.trim();
      if (!text) return;
      this.act({ type: 'addCheck', item: this.item, before: null, text }, `Added ${text} to the checklist.`);
      this.newCheck.value = '';
    });
    const section = (title, ...children) => el(d, 'section', {}, el(d, 'h2', { text: title }), ...children);
    this.dialog = el(d, 'div', { className: 'card-panel', attrs: { role: 'dialog', 'aria-modal': 'true', tabindex: '-1' } },
      el(d, 'div', { className: 'panel-head' }, this.labelInput, close),
      section('Description', this.rendered, this.draft, this.notice, el(d, 'div', { className: 'row' }, this.editButton, this.saveButton, this.cancelButton)),
      section('Tags', this.tagsRow, el(d, 'div', { className: 'row' }, this.newTag, this.newTagColor, makeTag),
        el(d, 'details', {}, el(d, 'summary', { text: 'Rename, recolor or delete tags' }), this.manageTags)),
      section('Assignees', this.peopleRow, el(d, 'div', { className: 'row' }, this.assignMe)),
      section('Due', el(d, 'div', { className: 'row' }, this.due, clearDue)),
      section('Checklist', el(d, 'div', { className: 'row' }, this.progressText), this.progress, this.checklist, this.newCheck),
      this.comments.element,
      section('History of this card', this.historyList),
      this.actionsRow());
    this.root = el(d, 'div', { className: 'card-panel-backdrop' }, this.dialog);
    this.root.addEventListener('pointerdown', (e) => { if (e.target === this.root) this.close(); });
    this.root.addEventListener('keydown', (e) => {
      e.stopPropagation(); // The board's keys (undo, drags) are not the panel's.
      if (e.key === 'Escape') { e.preventDefault(); this.close(); }
    });
    d.body.append(this.root);
    this.comments.open(id);
    this.update(board);
    this.labelInput.focus();
  }

  /** Shows what `board` says of the card now (someone else's change included). */
  update(board) {
    if (!this.root) return;
    const item = board?.items.find((it) => it.id === this.item);
    if (!item) {
      this.close();
      return;
    }
    const d = this.doc;
    this.dialog.setAttribute('aria-label', item.label || 'Card');
    if (d.activeElement !== this.labelInput && this.labelInput.value !== item.label) this.labelInput.value = item.label;
    const description = item.description ?? '';
    if (this.rendered.dataset.source !== description) {
      this.rendered.dataset.source = description;
      this.rendered.replaceChildren(renderMarkdown(d, description));
    }
    if (this.saved !== null) {
      const confirmedItem = this.confirmed()?.items.find((it) => it.id === this.item);
      if ((confirmedItem?.description ?? '') === this.saved) {
        this.saved = null; // Committed.
      } else if (description !== this.saved) {
        // Refused (someone else's description came first): the typed text comes back.
        const text = this.saved;
        this.saved = null;
        this.restoreDraft(text);
      }
    }
    if (this.draftBase !== null && description !== this.draftBase) {
      // Someone else changed it while this page writes: their text is shown above, the typed
      // text stays in the field, and saving replaces theirs (the person was told).
      this.notice.hidden = false;
      this.notice.textContent = 'Someone else changed this description while you were writing. Your text is kept below; Save replaces theirs, Cancel keeps theirs.';
    }
    const tags = board.tags ?? [];
    this.tagsRow.replaceChildren(...tags.map((t) => {
      const on = (item.tags ?? []).includes(t.id);
      // A tag not yet made by the server (its id is still the op's) cannot be picked yet.
      const b = el(d, 'button', { type: 'button', className: 'tag-choice', text: t.name, style: { '--chip-color': t.color },
        attrs: { 'aria-pressed': String(on) }, dataset: { tag: t.id }, disabled: t.id.startsWith('~') });
      b.addEventListener('click', () => this.act(
        on ? { type: 'tag', item: this.item, remove: [t.id] } : { type: 'tag', item: this.item, add: [t.id] },
        on ? `Took ${t.name} off.` : `Tagged with ${t.name}.`));
      return b;
    }));
    this.renderManageTags(tags);
    const assigned = item.assignees ?? [];
    this.assigned = new Set(assigned.map((q) => q.member));
    const people = [...assigned];
    for (const p of this.people()) if (!people.some((q) => q.member === p.member)) people.push(p);
    this.peopleRow.replaceChildren(...people.map((p) => {
      const on = assigned.some((q) => q.member === p.member);
      // The initials are drawn as a small avatar (hidden from readers: the name says it).
      const b = el(d, 'button', { type: 'button', className: 'person', attrs: { 'aria-pressed': String(on) }, dataset: { member: p.member } },
        el(d, 'span', { className: 'avatar', text: initials(p.name), attrs: { 'aria-hidden': 'true' } }),
        el(d, 'bdi', { text: p.name }));
      b.addEventListener('click', () => this.togglePerson(p));
      return b;
    }));
    const mine = this.me();
    this.assignMe.textContent = assigned.some((q) => q.member === mine.member) ? 'Unassign me' : 'Assign me';
    const dueDay = (item.due ?? '').slice(0, 10);
    if (d.activeElement !== this.due && this.due.value !== dueDay) this.due.value = dueDay;
    const list = item.checklist ?? [];
    this.progress.max = Math.max(1, list.length);
    this.progress.value = list.filter((c) => c.done).length;
    this.progressText.textContent = list.length ? `${checklistProgress(item)} done` : 'No items yet';
    this.renderChecklist(list);
    this.comments.render();
  }

  /** The board's tags, each with its name and color to change, and a delete button. Rows are
   * kept (keyed by tag id) and brought up to date in place, so a field being typed in stays. */
  renderManageTags(tags) {
    const d = this.doc;
    const rows = new Map([...this.manageTags.children].map((li) => [li.dataset.tag, li]));
    const list = tags.map((t) => {
      let li = rows.get(t.id);
      if (!li) {
        const name = el(d, 'input', { className: 'tag-name', attrs: { maxlength: '50' } });
        name.addEventListener('change', () => {
          const v = name.value.trim();
          const was = name.dataset.name;
          if (v && v !== was) this.act({ type: 'editTag', tag: t.id, name: v }, `Renamed the tag ${was} to ${v}.`);
        });
        const color = el(d, 'select', { className: 'tag-color' },
          ...PALETTE.map((c, i) => el(d, 'option', { value: c, text: COLOR_NAMES[i] ?? c })));
        color.addEventListener('change', () => this.act({ type: 'editTag', tag: t.id, color: color.value }, 'Recolored a tag.'));
        const remove = el(d, 'button', { type: 'button', className: 'tag-delete', text: 'Delete' });
        remove.addEventListener('click', () => this.act({ type: 'removeTag', tag: t.id }, `Deleted the tag ${name.dataset.name}.`));
        li = el(d, 'li', { className: 'row', dataset: { tag: t.id } }, el(d, 'span', { className: 'chip' }), name, color, remove);
      }
      const chip = li.querySelector('.chip');
      chip.textContent = t.name;
      chip.style.setProperty('--chip-color', t.color);
      const name = li.querySelector('.tag-name');
      name.dataset.name = t.name;
      name.setAttribute('aria-label', `Name of tag ${t.name}`);
      if (d.activeElement !== name) name.value = t.name;
      const color = li.querySelector('.tag-color');
      color.setAttribute('aria-label', `Color of tag ${t.name}`);
      if (d.activeElement !== color) color.value = t.color;
      li.querySelector('.tag-delete').setAttribute('aria-label', `Delete tag ${t.name}`);
      return li;
    });
    if (list.length !== this.manageTags.children.length || list.some((li, i) => this.manageTags.children[i] !== li)) {
      this.manageTags.replaceChildren(...list);
    }
  }

  /** The card's own history: `entries` from GET …/history, newest first, those about this card. */
  showHistory(entries, board) {
    if (!this.root) return;
    const d = this.doc;
    const mine = entries.filter((e) => e?.op?.item === this.item || e?.op?.item?.id === this.item).slice(0, 50);
    this.historyList.replaceChildren(...(mine.length ? mine.map((e) => el(d, 'li', { text: changeText(describeChange(e, board, null, previousValue(entries, entries.indexOf(e)))) }))
      : [el(d, 'li', { text: 'No changes yet.' })]));
  }

  renderChecklist(list) {
    const d = this.doc;
    const focused = d.activeElement?.closest?.('[data-check]')?.dataset.check;
    const rows = list.map((c) => {
      const existing = focused === c.id ? this.checklist.querySelector(`[data-check="${CSS.escape(c.id)}"]`) : null;
      if (existing) {
        existing.classList.toggle('done', c.done);
        existing.querySelector('input[type="checkbox"]').checked = c.done;
        return existing;
      }
      const box = el(d, 'input', { type: 'checkbox', checked: c.done, disabled: c.id.startsWith('~'), attrs: { 'aria-label': `Done: ${c.text}` } });
      box.addEventListener('change', () => this.act({ type: 'editCheck', item: this.item, check: c.id, done: box.checked },
        box.checked ? `Ticked ${c.text}.` : `Unticked ${c.text}.`));
      const pending = c.id.startsWith('~'); // not made by the server yet: nothing to change
      const text = el(d, 'input', { type: 'text', value: c.text, disabled: pending, attrs: { 'aria-label': 'Checklist item', maxlength: '200' } });
      text.addEventListener('change', () => {
        const t = text.value.trim();
        if (t && t !== c.text) this.act({ type: 'editCheck', item: this.item, check: c.id, text: t }, `Renamed a checklist item to ${t}.`);
      });
      const remove = el(d, 'button', { type: 'button', text: '×', disabled: pending, attrs: { 'aria-label': `Remove ${c.text}` } });
      remove.addEventListener('click', () => this.act({ type: 'removeCheck', item: this.item, check: c.id }, `Removed ${c.text}.`));
      return el(d, 'li', { className: c.done ? 'done' : '', dataset: { check: c.id } }, box, text, remove);
    });
    this.checklist.replaceChildren(...rows);
  }

  togglePerson(p) {
    const on = this.assigned.has(p.member);
    this.act(on ? { type: 'assign', item: this.item, remove: [p.member] } : { type: 'assign', item: this.item, add: [{ member: p.member, name: p.name }] },
      on ? `Unassigned ${p.name}.` : `Assigned ${p.name}.`);
  }

  startDraft() {
    this.draftBase = this.rendered.dataset.source ?? '';
    this.draft.value = this.draftBase;
    this.draft.hidden = false;
    this.saveButton.hidden = false;
    this.cancelButton.hidden = false;
    this.editButton.hidden = true;
    this.draft.focus();
  }

  saveDraft() {
    const text = this.draft.value;
    const body = { type: 'edit', item: this.item, description: text.trim() ? text : null };
    this.endDraft();
    this.saved = text.trim() ? text : '';
    this.act(body, text.trim() ? 'Saved the description.' : 'Cleared the description.');
  }

  endDraft() {
    this.draftBase = null;
    this.draft.hidden = true;
    this.saveButton.hidden = true;
    this.cancelButton.hidden = true;
    this.editButton.hidden = false;
    this.notice.hidden = true;
  }

  /**
   * The session refused this page's description edit (a conflict): the typed text comes back
   * into the field, with a word on why, so that nothing typed is lost.
   */
  restoreDraft(text) {
    if (!this.root) return;
    this.startDraft();
    this.draft.value = text;
    this.notice.hidden = false;
    this.notice.textContent = 'Someone else changed this description first. Your text is kept below; Save replaces theirs.';
  }

  close(notify = true) {
    if (!this.root) return;
    this.root.remove();
    this.root = null;
    this.comments.item = null;
    this.draftBase = null;
    const item = this.item;
    this.item = null;
    if (notify) this.onClose(item);
  }
}
