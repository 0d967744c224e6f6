// Share links made in the app (issue 34; docs/protocol.md, "Share links"): the token a page was
// opened with moves from the address bar into sessionStorage, an admin's Share dialog makes,
// copies, lists and revokes view and edit links, and someone who opened a link picks their name.
// Behind a company's sign-in proxy (docs/operations.md) a page has no token: the server names the
// person (`GET /api/me`), and an admin's dialog has a Members section that gives people a role on
// the board or takes it back (`PUT`/`DELETE /api/boards/{id}/members/{member}`).
// Everything the server sent is put in the DOM as text, never as markup.

import { el } from './dom.js';
import { tokenRole } from './sdk/wire.js';

export { tokenRole };

/** The page's token per board, for this tab only: `shuffleboard.token.<board id>`. */
const TOKEN_KEY = 'shuffleboard.token';
/** The expiries the dialog offers (the server takes any from 1m to 90d). */
export const EXPIRIES = [['1h', '1 hour'], ['24h', '1 day'], ['7d', '7 days'], ['30d', '30 days']];

const TOKEN_RE = /^[A-Za-z0-9._-]{1,2048}$/;

/** The `#token=…` of `location`, or null. */
function fragmentToken(location) {
  const token = new URLSearchParams((location.hash || '').replace(/^#/, '')).get('token');
  return token && TOKEN_RE.test(token) ? token : null;
}

/**
 * The page's token for `board`: one in the address's fragment is moved into sessionStorage and
 * off the address bar (a copied address, a bookmark or a screenshot does not carry it); without
 * one, the one this tab kept. `{token, fromLink}`: fromLink when the page came through a share
 * link's `/b/ID` (the server's redirect adds `join=1`, dropped from the address here too).
 */
export function takeToken(win, board) {
  const key = `${TOKEN_KEY}.${board ?? ''}`;
  const token = fragmentToken(win.location);
  const params = new URLSearchParams(win.location.search || '');
  const joining = params.get('join') === '1';
  params.delete('join');
  const search = params.toString();
  const url = `${win.location.pathname}${search ? `?${search}` : ''}`;
  if (token) {
    keepToken(win, board, token);
    win.history?.replaceState?.(win.history.state ?? null, '', url);
    return { token, fromLink: joining };
  }
  if (joining) win.history?.replaceState?.(win.history.state ?? null, '', url);
  let kept = null;
  try { kept = win.sessionStorage?.getItem(key) ?? null; } catch { /* storage off: no token kept */ }
  return { token: kept && TOKEN_RE.test(kept) ? kept : null, fromLink: false };
}

/** Keeps `token` as this tab's for `board` (a pasted one, a refreshed one). */
export function keepToken(win, board, token) {
  try { win.sessionStorage?.setItem(`${TOKEN_KEY}.${board ?? ''}`, token); } catch { /* storage off */ }
}

const MEMBER_RE = /^[A-Za-z0-9_-]{1,64}$/;
const ROLES = [['view', 'can view'], ['edit', 'can edit'], ['admin', 'can manage']];

/**
 * `{member, name, role}` when a sign-in proxy in front of the server names this page's person
 * (`GET /api/me` says `via: proxy`), else null (no proxy, or a token is needed).
 */
export async function signedInByProxy(win, board) {
  try {
    const answer = await win.fetch(`/api/me?board=${encodeURIComponent(board)}`, { headers: { accept: 'application/json' } });
    if (!answer.ok) return null;
    const me = await answer.json();
    if (me?.via !== 'proxy' || !MEMBER_RE.test(me.member ?? '') || typeof me.name !== 'string') return null;
    return { member: me.member, name: me.name.slice(0, 200), role: ROLES.some(([r]) => r === me.role) ? me.role : 'view' };
  } catch {
    return null;
  }
}

/** "in 3 days", "in 5 hours", "in 12 minutes" for an expiry `exp` (seconds) at `now` (ms). */
export function expiresIn(exp, now) {
  const s = Math.max(0, exp - Math.floor(now / 1000));
  const [n, unit] = s >= 2 * 86400 ? [Math.round(s / 86400), 'day'] : s >= 7200 ? [Math.round(s / 3600), 'hour']
    : [Math.max(1, Math.round(s / 60)), 'minute'];
  return `in ${n} ${unit}${n === 1 ? '' : 's'}`;
}

/**
 * The Share button and dialog for an admin of `board`. `token()`: the page's current token;
 * `fetch(path, init)`; `toast(text)`; `copy(text)`: resolves true when copied.
 */
export class ShareDialog {
  constructor(doc, { board, token, fetch, toast, copy, now = () => Date.now(), origin }) {
    this.doc = doc;
    this.board = board;
    this.token = token;
    this.fetch = fetch;
    this.toast = toast;
    this.copy = copy;
    this.now = now;
    this.origin = origin;
    this.button = el(doc, 'button', { type: 'button', id: 'share', text: 'Share', title: 'Make a link that lets someone else onto this board' });
    this.button.addEventListener('click', () => this.open());
    this.role = el(doc, 'select', { id: 'share-role' },
      el(doc, 'option', { value: 'edit', text: 'can edit' }), el(doc, 'option', { value: 'view', text: 'can view' }));
    this.ttl = el(doc, 'select', { id: 'share-ttl' }, ...EXPIRIES.map(([v, t]) => el(doc, 'option', { value: v, text: t })));
    this.ttl.value = '7d';
    this.make = el(doc, 'button', { type: 'submit', id: 'share-make', text: 'Make link' });
    this.made = el(doc, 'input', { id: 'share-url', readOnly: true, hidden: true, attrs: { 'aria-label': 'The new link' } });
    this.copyButton = el(doc, 'button', { type: 'button', id: 'share-copy', text: 'Copy', hidden: true });
    this.copyButton.addEventListener('click', () => this.#copyMade());
    this.list = el(doc, 'ul', { id: 'share-links', className: 'share-links' });
    const form = el(doc, 'form', { className: 'share-make' },
      el(doc, 'label', {}, 'Anyone with the link ', this.role), el(doc, 'label', {}, ' for ', this.ttl), this.make);
    form.addEventListener('submit', (e) => { e.preventDefault(); this.#makeLink(); });
    const close = el(doc, 'button', { type: 'button', id: 'share-close', text: 'Close' });
    close.addEventListener('click', () => this.close());
    this.members = this.#membersSection();
    this.dialog = el(doc, 'div', { id: 'share-dialog', className: 'share-dialog', hidden: true, attrs: { role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Share this board', tabindex: '-1' } },
      el(doc, 'h2', { text: 'Share this board' }), form, el(doc, 'div', { className: 'share-made' }, this.made, this.copyButton),
      el(doc, 'h3', { text: 'Links' }), this.list, this.members, close);
    this.dialog.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.close(); });
  }

  #headers(extra = {}) {
    // Signed in by a proxy, a page has no token: the proxy names the person on every request.
    const token = this.token();
    return { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
  }

  /** People's roles on the board (for those a sign-in proxy names); shown once the server says it has one. */
  #membersSection() {
    const doc = this.doc;
    this.memberList = el(doc, 'ul', { id: 'share-members', className: 'share-links' });
    this.memberId = el(doc, 'input', { id: 'share-member-id', maxLength: 64, attrs: { 'aria-label': 'Member id', placeholder: 'member id', autocomplete: 'off' } });
    this.memberRole = roleSelect(doc, 'edit', { id: 'share-member-role' });
    this.defaultNote = el(doc, 'p', { className: 'share-note' });
    const form = el(doc, 'form', { className: 'share-make' }, this.memberId, ' ', this.memberRole,
      el(doc, 'button', { type: 'submit', id: 'share-member-give', text: 'Give role' }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const member = this.memberId.value.trim();
      if (!MEMBER_RE.test(member)) return this.toast('A member id is 1 to 64 letters, digits, _ or -.');
      this.#grant(member, this.memberRole.value).then((ok) => { if (ok) this.memberId.value = ''; });
    });
    return el(doc, 'section', { id: 'share-members-section', hidden: true, attrs: { 'aria-label': 'Members' } },
      el(doc, 'h3', { text: 'Members' }), this.defaultNote, this.memberList, form);
  }

  #membersPath(member = null) {
    const base = `/api/boards/${encodeURIComponent(this.board)}`;
    return member === null ? `${base}/grants` : `${base}/members/${encodeURIComponent(member)}`;
  }

  /** Reads the grants again; the section shows only on a server with a sign-in proxy. */
  async refreshMembers() {
    let listed;
    try {
      const answer = await this.fetch(this.#membersPath(), { headers: this.#headers() });
      if (!answer.ok) return;
      listed = await answer.json();
    } catch {
      return;
    }
    if (!ROLES.some(([r]) => r === listed?.role)) return; // no sign-in proxy: nobody to give a role
    this.members.hidden = false;
    this.defaultNote.textContent = `People your company's sign-in lets in ${ROLES.find(([r]) => r === listed.role)[1]} this board unless given a role here.`;
    const grants = (Array.isArray(listed.grants) ? listed.grants : []).filter((g) => MEMBER_RE.test(g?.member ?? ''));
    this.memberList.replaceChildren(...grants.map((g) => this.#memberRow(g)));
    if (!grants.length) this.memberList.append(el(this.doc, 'li', { className: 'share-none', text: 'Nobody has a role of their own yet.' }));
  }

  #memberRow(grant) {
    const doc = this.doc;
    const role = roleSelect(doc, grant.role, { dataset: { memberRole: grant.member }, attrs: { 'aria-label': `Role of ${grant.member}` } });
    role.addEventListener('change', () => this.#grant(grant.member, role.value));
    const remove = el(doc, 'button', { type: 'button', text: 'Remove', dataset: { memberRemove: grant.member } });
    remove.addEventListener('click', () => this.#ungrant(grant.member));
    return el(doc, 'li', { dataset: { member: grant.member } }, el(doc, 'span', { text: grant.member }), ' ', role, ' ', remove);
  }

  async #grant(member, role) {
    try {
      const answer = await this.fetch(this.#membersPath(member), {
        method: 'PUT', headers: this.#headers({ 'content-type': 'application/json' }), body: JSON.stringify({ role }),
      });
      if (!answer.ok) { this.toast(await problem(answer, 'Cannot give the role')); return false; }
      this.toast(`${member} ${ROLES.find(([r]) => r === role)?.[1] ?? role} this board now.`);
    } catch {
      this.toast('Cannot give the role: no answer from the server.');
      return false;
    }
    await this.refreshMembers();
    return true;
  }

  async #ungrant(member) {
    try {
      const answer = await this.fetch(this.#membersPath(member), { method: 'DELETE', headers: this.#headers() });
      if (!answer.ok) return this.toast(await problem(answer, 'Cannot remove the role'));
      this.toast(`${member} has the sign-in's role again.`);
    } catch {
      return this.toast('Cannot remove the role: no answer from the server.');
    }
    await this.refreshMembers();
  }

  #path(rest = '') {
    return `/api/boards/${encodeURIComponent(this.board)}/links${rest}`;
  }

  async open() {
    this.dialog.hidden = false;
    this.made.hidden = true;
    this.copyButton.hidden = true;
    this.dialog.focus();
    await this.refresh();
  }

  close() {
    this.dialog.hidden = true;
    this.button.focus();
  }

  /** Reads the links (and the members' roles) again and shows them. */
  async refresh() {
    this.refreshMembers();
    let links = [];
    try {
      const answer = await this.fetch(this.#path(), { headers: this.#headers() });
      if (!answer.ok) return this.toast(await problem(answer, 'Cannot read the links'));
      links = (await answer.json()).links ?? [];
    } catch {
      return this.toast('Cannot read the links: no answer from the server.');
    }
    this.list.replaceChildren(...links.map((link) => this.#row(link)));
    if (!links.length) this.list.append(el(this.doc, 'li', { className: 'share-none', text: 'No links yet.' }));
  }

  #row(link) {
    const revoke = el(this.doc, 'button', { type: 'button', text: 'Revoke', dataset: { revoke: String(link.id) } });
    revoke.addEventListener('click', () => this.#revoke(link.id));
    return el(this.doc, 'li', { dataset: { link: String(link.id) } },
      el(this.doc, 'span', { text: `${link.role === 'view' ? 'Can view' : 'Can edit'}, ends ${expiresIn(link.exp, this.now())}` }), revoke);
  }

  async #makeLink() {
    this.make.disabled = true;
    try {
      const answer = await this.fetch(this.#path(), {
        method: 'POST', headers: this.#headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ role: this.role.value, ttl: this.ttl.value }),
      });
      if (answer.status !== 201) return this.toast(await problem(answer, 'Cannot make the link'));
      const made = await answer.json();
      this.made.value = `${this.origin}${made.url}`;
      this.made.hidden = false;
      this.copyButton.hidden = false;
      this.made.select?.();
      await this.refresh();
    } catch {
      this.toast('Cannot make the link: no answer from the server.');
    } finally {
      this.make.disabled = false;
    }
  }

  async #copyMade() {
    this.toast((await this.copy(this.made.value)) ? 'Link copied.' : 'Copy the link from the box.');
  }

  async #revoke(id) {
    try {
      const answer = await this.fetch(this.#path(`/${encodeURIComponent(id)}`), { method: 'DELETE', headers: this.#headers() });
      if (!answer.ok) return this.toast(await problem(answer, 'Cannot revoke the link'));
      this.toast('Link revoked: whoever used it is off the board.');
    } catch {
      return this.toast('Cannot revoke the link: no answer from the server.');
    }
    await this.refresh();
  }
}

/** A role picker. */
function roleSelect(doc, value, props = {}) {
  const select = el(doc, 'select', props, ...ROLES.map(([v, t]) => el(doc, 'option', { value: v, text: t })));
  select.value = value;
  return select;
}

/** The server's `message` for a refused request, or a plain sentence. */
async function problem(answer, what) {
  try {
    const body = await answer.json();
    if (typeof body?.message === 'string') return `${what}: ${body.message.slice(0, 200)}`;
  } catch { /* not JSON */ }
  return `${what} (HTTP ${answer.status}).`;
}

/**
 * For someone who opened a share link: a small dialog that asks their name (the one they go by
 * on the board) and says what the link lets them do. `rename(name)` applies it.
 */
export function askName(doc, { name, role, rename }) {
  const input = el(doc, 'input', { id: 'join-name', value: name, maxLength: 40, attrs: { autocomplete: 'nickname' } });
  const join = el(doc, 'button', { type: 'submit', id: 'join-go', text: 'Join' });
  const what = role === 'view' ? 'watch' : 'edit';
  const form = el(doc, 'form', { id: 'join-dialog', className: 'share-dialog join-dialog', attrs: { role: 'dialog', 'aria-label': 'Join this board' } },
    el(doc, 'p', { text: `You were invited to ${what} this board. Your name:` }), input, join);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const picked = input.value.trim();
    if (picked) rename(picked);
    form.remove();
  });
  doc.body.append(form);
  input.focus();
  input.select?.();
  return form;
}

/** Loads share.css once (the page's CSP allows this origin's style sheets). */
export function loadStyle(doc) {
  if (doc.querySelector('link[data-share-style]')) return;
  doc.head.append(el(doc, 'link', { rel: 'stylesheet', href: 'share.css', dataset: { shareStyle: '' } }));
}

/**
 * The hook app.js calls once the board page is up: the Share button (admins only, and only on a
 * server with access control) beside the toolbar's Copy link, and the name dialog for a link's guest.
 */
export function installShare(app, { fromLink }) {
  const doc = app.win.document;
  loadStyle(doc);
  const role = tokenRole(app.token) ?? app.signedIn?.role ?? null;
  if (role === 'admin') {
    const share = new ShareDialog(doc, {
      board: app.boardId, token: () => app.token, fetch: (p, i) => app.win.fetch(p, i),
      toast: (t) => app.view.toast(t), origin: app.win.location.origin,
      copy: async (text) => {
        try { await app.win.navigator.clipboard.writeText(text); return true; } catch { return false; }
      },
    });
    const anchor = app.root.querySelector('#copy-link');
    if (anchor) anchor.after(share.button);
    else app.root.querySelector('.toolbar')?.append(share.button);
    doc.body.append(share.dialog);
    app.share = share;
  }
  if (fromLink && role) askName(doc, { name: app.name, role, rename: (n) => {
    app.rename(n);
    const field = app.root.querySelector('#name');
    if (field) field.value = app.name;
  } });
}
