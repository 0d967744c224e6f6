// The inbox (issue 34): a bell in the toolbar, on the board page and on the start page, with the
// member's unread count, and a list of their notices (mentions and assignments) newest first. A
// click opens the notice's board and card (the same board: the card at once); opening a notice
// marks it and the older ones read (the server's read marks go "up to an id"), and "Mark all
// read" marks them all. The list is read with `GET /api/inbox`; on a board page, `notice` messages
// add to it at once (from any board); the start page has no socket and reads it again every 30 s
// while visible. `InboxList` is the pure part (tested with node); `installInbox` the DOM.

import { el } from './dom.js';
import { icon } from './icons.js';
import { apiHeaders, isValidId } from './protocol.js';
import { tokenMember } from './sdk/wire.js';

/** The most notices the page keeps (the server keeps 500 per member). */
export const MAX_NOTICES = 500;
/** How many notices the page asks for. */
export const PAGE = 50;
/** How often the start page (which has no socket) reads the inbox again, in ms. */
export const POLL_MS = 30_000;

/** Whether `n` looks like a notice (what the page shows is checked, not trusted). */
export function isNotice(n) {
  return !!n && Number.isSafeInteger(n.id) && n.id > 0 && (n.kind === 'mention' || n.kind === 'assign')
    && isValidId(n.board) && isValidId(n.item) && typeof n.label === 'string'
    && typeof n.by?.name === 'string' && Number.isFinite(n.at);
}

/** The member's notices as the page knows them, by id, newest first, and the unread count. */
export class InboxList {
  constructor() {
    this.notices = []; // newest first
    this.unread = 0;
  }

  /** The server's page replaces what the page knew (its unread count counts all notices). */
  load(page) {
    if (!Array.isArray(page?.notices)) return false;
    this.notices = page.notices.filter(isNotice).sort((a, b) => b.id - a.id).slice(0, MAX_NOTICES);
    this.unread = Number.isSafeInteger(page.unread) && page.unread >= 0 ? page.unread : this.notices.filter((n) => !n.read).length;
    return true;
  }

  /** A live notice: added once (a notice the page has already is ignored). */
  add(notice) {
    if (!isNotice(notice) || this.notices.some((n) => n.id === notice.id)) return false;
    this.notices = [notice, ...this.notices].sort((a, b) => b.id - a.id).slice(0, MAX_NOTICES);
    if (!notice.read) this.unread += 1;
    return true;
  }

  /** Marks the notices up to `id` read here (the server says the true count after). */
  markRead(id) {
    for (const n of this.notices) {
      if (n.id <= id && !n.read) { n.read = true; this.unread = Math.max(0, this.unread - 1); }
    }
  }

  get newest() { return this.notices[0]?.id ?? 0; }
}

/** What a notice says: "Ann mentioned you on Fix the login" / "Ann assigned you to …". */
export function noticeText(n) {
  const card = n.label.trim() || n.item;
  return n.kind === 'mention' ? `${n.by.name} mentioned you on “${card}”` : `${n.by.name} assigned you to “${card}”`;
}

/** The board page's address for a notice's card. */
export function noticeLink(n) {
  return `/?board=${encodeURIComponent(n.board)}&card=${encodeURIComponent(n.item)}`;
}

/**
 * Puts the bell into the toolbar of `root` (#app) and keeps it current. `ctx`: { win, member:
 * () => id, token: () => token|null, boardId: () => id|null, openCard: (item) => void }.
 * Returns { notice(n), refresh() }.
 */
export function installInbox(root, ctx) {
  const doc = root.ownerDocument;
  const list = new InboxList();
  const count = el(doc, 'span', { className: 'inbox-count', attrs: { 'aria-hidden': 'true' }, hidden: true });
  const bell = el(doc, 'button', {
    type: 'button', id: 'inbox-toggle', className: 'inbox-toggle icon-only',
    attrs: { 'aria-label': 'Notifications', 'aria-expanded': 'false', 'aria-controls': 'inbox-panel' },
    title: 'Mentions and cards assigned to you',
  }, icon(doc, 'bell'), count);
  const items = el(doc, 'ol', { className: 'inbox-list', attrs: { 'aria-label': 'Notifications, newest first' } });
  const empty = el(doc, 'p', { className: 'inbox-empty', text: 'Nothing yet: when someone mentions you or assigns you a card, it shows here.' });
  const markAll = el(doc, 'button', { type: 'button', className: 'inbox-mark-all', text: 'Mark all read' });
  const panel = el(doc, 'section', { id: 'inbox-panel', className: 'inbox-panel', hidden: true, attrs: { 'aria-label': 'Notifications' } },
    el(doc, 'div', { className: 'inbox-head' }, el(doc, 'h2', { text: 'Notifications' }), markAll), items, empty);
  const slot = el(doc, 'span', { className: 'inbox-slot' }, bell, panel);
  const header = root.querySelector('.toolbar');
  header.append(slot); // last: beside the name field (on a phone, beside the menu button)

  const api = (path, init = {}) => {
    const member = ctx.member();
    const sep = path.includes('?') ? '&' : '?';
    return ctx.win.fetch(`${path}${member ? `${sep}member=${encodeURIComponent(member)}` : ''}`, {
      ...init, headers: apiHeaders(ctx.token(), init.body ? { 'content-type': 'application/json' } : {}),
    });
  };

  const draw = () => {
    count.hidden = list.unread === 0;
    count.textContent = list.unread > 99 ? '99+' : String(list.unread);
    bell.setAttribute('aria-label', list.unread ? `Notifications: ${list.unread} unread` : 'Notifications');
    bell.dataset.unread = String(list.unread);
    empty.hidden = list.notices.length > 0;
    markAll.disabled = list.unread === 0;
    items.replaceChildren(...list.notices.slice(0, PAGE).map((n) => el(doc, 'li', {},
      el(doc, 'a', {
        className: `inbox-item${n.read ? '' : ' is-unread'}`, href: noticeLink(n), dataset: { notice: String(n.id) },
      },
      el(doc, 'span', { className: 'inbox-kind', text: n.kind === 'mention' ? '@' : '✓', attrs: { 'aria-hidden': 'true' } }),
      el(doc, 'span', { className: 'inbox-text', text: noticeText(n) }),
      el(doc, 'span', { className: 'inbox-where', text: `${n.board} · ${new Date(n.at).toLocaleString()}` })))));
  };

  // An inbox is the token's member (`sub`): a token that names none has no inbox to show (the
  // server would answer 403), so the bell stays away and nothing is asked.
  const hasInbox = () => !ctx.token() || tokenMember(ctx.token()) !== null;
  const refresh = () => (!hasInbox() ? Promise.resolve((slot.hidden = true)) : api(`/api/inbox?limit=${PAGE}`))
    .then((r) => (r.ok ? r.json() : null))
    .then((page) => { if (list.load(page)) draw(); })
    .catch(() => {});

  const markRead = (upTo) => {
    list.markRead(upTo);
    draw();
    return api('/api/inbox/read', { method: 'POST', body: JSON.stringify({ upTo }) })
      .then((r) => (r.ok ? r.json() : null))
      .then((answer) => {
        if (Number.isSafeInteger(answer?.unread)) { list.unread = answer.unread; draw(); }
      })
      .catch(() => {});
  };

  const open = (show) => {
    panel.hidden = !show;
    bell.setAttribute('aria-expanded', String(show));
    if (show) refresh();
  };
  bell.addEventListener('click', () => open(panel.hidden));
  markAll.addEventListener('click', () => markRead(list.newest));
  doc.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !panel.hidden) { open(false); bell.focus(); } });
  doc.addEventListener('pointerdown', (e) => { if (!panel.hidden && !e.target.closest?.('.inbox-slot')) open(false); });
  items.addEventListener('click', (e) => {
    const a = e.target.closest?.('a[data-notice]');
    if (!a) return;
    const n = list.notices.find((x) => String(x.id) === a.dataset.notice);
    if (!n) return;
    const done = markRead(n.id);
    if (n.board === ctx.boardId()) {
      e.preventDefault();
      open(false);
      ctx.openCard(n.item);
    } else {
      // Another board: go once the read mark is sent (the page that loads shows it).
      e.preventDefault();
      done.finally(() => ctx.win.location.assign(noticeLink(n)));
    }
  });

  draw();
  refresh();
  if (!ctx.boardId()) {
    ctx.win.setInterval(() => { if (doc.visibilityState !== 'hidden') refresh(); }, POLL_MS);
  }
  return {
    notice: (n) => { if (list.add(n)) draw(); },
    refresh,
    list,
  };
}
