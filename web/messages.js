// People and messages for the view (view.js): the presence list, the toast (with an optional
// action button) and the two live regions for screen readers. Text goes in as text (names in
// <bdi>, via bidi.js), never as markup.

import { isolatedNodes } from './bidi.js';
import { el } from './dom.js';

export class Messages {
  /** `root`: the #app element. */
  constructor(root) {
    this.doc = root.ownerDocument;
    this.usersEl = root.querySelector('#users');
    this.toastEl = root.querySelector('#toast');
    this.liveEl = root.querySelector('#live');
    this.othersLiveEl = root.querySelector('#live-others');
    this.toastTimer = null;
  }

  /** The presence list. `users`: Map id→{id, name, color}. */
  renderPresence(users, me, count = null) {
    this.usersEl.replaceChildren();
    for (const u of users.values()) {
      const dot = el(this.doc, 'span', { className: 'dot' });
      dot.style.setProperty('--user-color', u.color || '#333');
      this.usersEl.append(el(this.doc, 'li', { dataset: { user: u.id } },
        dot, el(this.doc, 'span', {}, el(this.doc, 'bdi', { text: u.name }), u.id === me ? ' (you)' : '')));
    }
    // A large board names only some of its users: say how many more there are.
    if (Number.isInteger(count) && count > users.size) {
      this.usersEl.append(el(this.doc, 'li', { className: 'users-more', text: `and ${count - users.size} more` }));
    }
  }

  /** A brief, unobtrusive message. */
  toast(text, ms = 3500, action = null) {
    this.toastEl.replaceChildren(...isolatedNodes(this.doc, text));
    if (action) {
      const b = el(this.doc, 'button', { type: 'button', className: 'toast-action', text: action.label });
      b.addEventListener('click', () => { this.toastEl.classList.remove('is-shown'); action.run(); });
      this.toastEl.append(' ', b);
    }
    this.toastEl.classList.add('is-shown');
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => this.toastEl.classList.remove('is-shown'), ms);
  }

  /** Tells screen readers about this page's own actions (an assertive live region). */
  announce(text) {
    // Clearing first makes a repeated sentence be announced again.
    this.liveEl.textContent = '';
    this.liveEl.replaceChildren(...isolatedNodes(this.doc, text));
  }

  /** Tells screen readers about other people's changes (a polite live region; throttled by the caller). */
  announceOthers(text) {
    this.othersLiveEl.textContent = '';
    this.othersLiveEl.replaceChildren(...isolatedNodes(this.doc, text));
  }
}
