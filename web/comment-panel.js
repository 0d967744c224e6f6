// The comments of the card panel (issue 34): newest first, with "Load older", a composer where
// `@` suggests members, and edit/delete of one's own. DOM only: texts go in as rendered Markdown
// nodes (web/markdown.js) or textContent, never as HTML. The list is what the page knows
// (web/comments.js `known`: pages read from the server and every committed comment op), so a
// live comment shows up the moment its op applies.

import { el } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { known, learn } from './comments.js';

/** The seq in a comment id `n<seq>` (0 for another form). */
const seqOf = (id) => (/^n(\d+)$/.exec(id) ? Number(id.slice(1)) : 0);

/** The `@` word being typed just before the caret, or null. */
export function mentionQuery(text, caret) {
  const m = /(^|\s)@([^\s@]{0,40})$/.exec(text.slice(0, caret));
  return m ? m[2] : null;
}

/** The mentions whose `@Name` is still in `text`, each member once, at most 20. */
export function mentionsIn(text, picked) {
  const out = [];
  for (const p of picked) {
    if (out.length >= 20 || out.some((q) => q.member === p.member)) continue;
    if (text.includes(`@${p.name}`)) out.push({ member: p.member, name: p.name });
  }
  return out;
}

export class CommentsSection {
  /**
   * `act(body, text)`: sends an op; `fetchPage(item, before)`: a promise of a page
   * `{comments, more, next}` (null on failure); `people()`: [{member, name}] to mention;
   * `me()`: {member, name} of this page.
   */
  constructor(doc, { act, fetchPage, people, me }) {
    Object.assign(this, { doc, act, fetchPage, people, me });
    this.item = null;
    this.more = false;
    this.picked = [];
    this.editing = null; // the id of the comment being edited here
    const d = doc;
    this.list = el(d, 'ol', { className: 'comments', attrs: { 'aria-label': 'Comments, newest first' } });
    this.older = el(d, 'button', { type: 'button', text: 'Load older comments', hidden: true });
    this.older.addEventListener('click', () => this.load(this.oldestId()));
    this.composer = el(d, 'textarea', {
      className: 'comment-composer',
      attrs: { 'aria-label': 'Write a comment (Markdown; @ mentions someone)', maxlength: '4000', placeholder: 'Write a comment…' },
    });
    this.suggestions = el(d, 'ul', { className: 'mention-suggestions', hidden: true, attrs: { role: 'listbox', 'aria-label': 'People to mention' } });
    this.post = el(d, 'button', { type: 'button', text: 'Comment' });
    this.post.addEventListener('click', () => this.send());
    this.composer.addEventListener('input', () => this.suggest());
    this.composer.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.send(); }
    });
    this.element = el(d, 'section', { className: 'comments-section' },
      el(d, 'h2', { text: 'Comments' }), this.composer, this.suggestions,
      el(d, 'div', { className: 'row' }, this.post), this.list, this.older);
  }

  /** Shows card `item`'s comments: what the page knows now, then the newest page from the server. */
  open(item) {
    this.item = item;
    this.more = false;
    this.picked = [];
    this.editing = null;
    this.sig = null;
    this.composer.value = '';
    this.suggestions.hidden = true;
    this.render();
    this.load(null);
  }

  /** Reads the page before comment `before` (null: the newest) and shows it. */
  load(before) {
    const item = this.item;
    Promise.resolve(this.fetchPage(item, before)).then((page) => {
      if (item !== this.item || !Array.isArray(page?.comments)) return;
      for (const c of page.comments) learn(item, c);
      this.more = page.more === true;
      this.render();
    }).catch(() => {});
  }

  oldestId() {
    const ids = this.ids();
    return ids.length ? ids[ids.length - 1] : null;
  }

  /** The ids of this card's known comments, newest first. */
  ids() {
    const ids = [];
    for (const [id, c] of known) if (c.item === this.item) ids.push(id);
    return ids.sort((a, b) => seqOf(b) - seqOf(a));
  }

  /** Draws the list again when it changed (after a page or any op); an edit being typed stays. */
  render() {
    if (this.item === null) return;
    const d = this.doc;
    const mine = this.me()?.member;
    const ids = this.ids();
    const sig = `${ids.map((id) => `${id}:${known.get(id).edited ?? 0}`).join(',')}|${this.editing}|${this.more}|${mine}`;
    if (sig === this.sig) return;
    this.sig = sig;
    const rows = ids.map((id) => {
      const c = known.get(id);
      const when = Number.isFinite(c.at) ? new Date(c.at).toLocaleString() : '';
      const head = el(d, 'div', { className: 'comment-head' },
        el(d, 'strong', { text: c.name ?? c.member ?? '' }), ' ',
        el(d, 'time', { text: when, attrs: { datetime: Number.isFinite(c.at) ? new Date(c.at).toISOString() : '' } }),
        c.edited ? el(d, 'span', { className: 'edited', text: ' (edited)' }) : '');
      const body = el(d, 'div', { className: 'rendered comment-text' }, renderMarkdown(d, c.text));
      const li = el(d, 'li', { className: 'comment', dataset: { comment: id } }, head);
      if (this.editing === id) {
        const box = el(d, 'textarea', { value: c.text, attrs: { 'aria-label': 'Edit your comment', maxlength: '4000' } });
        const save = el(d, 'button', { type: 'button', text: 'Save' });
        save.addEventListener('click', () => {
          const text = box.value;
          if (!text.trim()) return;
          this.editing = null;
          this.act({ type: 'editComment', item: this.item, comment: id, text, mentions: mentionsIn(text, [...c.mentions, ...this.picked]) },
            'Edited your comment.');
          this.render();
        });
        const cancel = el(d, 'button', { type: 'button', text: 'Cancel' });
        cancel.addEventListener('click', () => { this.editing = null; this.render(); });
        li.append(box, el(d, 'div', { className: 'row' }, save, cancel));
      } else {
        li.append(body);
        if (c.member === mine) {
          const edit = el(d, 'button', { type: 'button', text: 'Edit', attrs: { 'aria-label': 'Edit your comment' } });
          edit.addEventListener('click', () => { this.editing = id; this.render(); });
          const del = el(d, 'button', { type: 'button', text: 'Delete', attrs: { 'aria-label': 'Delete your comment' } });
          del.addEventListener('click', () => this.act({ type: 'removeComment', item: this.item, comment: id }, 'Deleted your comment.'));
          li.append(el(d, 'div', { className: 'row' }, edit, del));
        }
      }
      return li;
    });
    this.list.replaceChildren(...rows);
    this.older.hidden = !this.more;
  }

  /** Sends the composer's text as a comment, with the mentions still in it. */
  send() {
    const text = this.composer.value;
    if (!text.trim() || this.item === null) return;
    this.act({ type: 'comment', item: this.item, text, mentions: mentionsIn(text, this.picked) }, 'Commented.');
    this.composer.value = '';
    this.picked = [];
    this.suggestions.hidden = true;
  }

  /** After `@`, the people whose names start with what follows it. */
  suggest() {
    const q = mentionQuery(this.composer.value, this.composer.selectionStart ?? this.composer.value.length);
    if (q === null) { this.suggestions.hidden = true; return; }
    const lower = q.toLowerCase();
    const matches = this.people().filter((p) => p.name.toLowerCase().startsWith(lower)).slice(0, 8);
    const d = this.doc;
    this.suggestions.replaceChildren(...matches.map((p) => {
      const b = el(d, 'button', { type: 'button', text: p.name, dataset: { member: p.member } });
      b.addEventListener('click', () => this.pick(p));
      return el(d, 'li', { attrs: { role: 'option' } }, b);
    }));
    this.suggestions.hidden = matches.length === 0;
  }

  /** Puts `@Name ` in place of the `@` word being typed and remembers the member. */
  pick(p) {
    const caret = this.composer.selectionStart ?? this.composer.value.length;
    const before = this.composer.value.slice(0, caret).replace(/@([^\s@]{0,40})$/, `@${p.name} `);
    this.composer.value = before + this.composer.value.slice(caret);
    this.picked.push({ member: p.member, name: p.name });
    this.suggestions.hidden = true;
    this.composer.focus();
    this.composer.selectionStart = this.composer.selectionEnd = before.length;
  }
}
