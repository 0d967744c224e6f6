// Changes not yet saved (issue 35; docs/web-client.md, "Unsaved changes and working offline"):
// every op this page sent or queued and has not seen committed is kept in IndexedDB per board
// (sdk/queue.js, through the SDK client's `queue`), with the last confirmed board seen. A reload,
// or a browser closed and opened again, shows them again (pending, "saving…") and the client sends
// them with their op ids when the server is back; those refused then are listed in plain words.
// While any is unsaved, leaving the page asks first. The service worker (sw.js) keeps the page's
// files so that it opens while the server is down.
//
// The wording (`refusedSentence`) and what is pending (`pendingItems`) are pure; `PendingChanges`
// is the page's: DOM, IndexedDB, the service worker.

import { OPS, involvedItems } from './protocol.js';
import { isolate } from './bidi.js';
import { itemById, pendingId } from './state.js';
import { PendingStore } from './sdk/queue.js';
import { el } from './dom.js';

/** How long after a change the confirmed board is saved (ms): one write for a burst of ops. */
const SAVE_AFTER_MS = 300;
/**
 * While connected, how long an op may be on its way before its cards say "saving…" (ms): a round
 * trip is far shorter, and a note that came and went on every drag would only flicker. While
 * offline they say it at once.
 */
const SHOW_AFTER_MS = 1500;

/** The items that show "saving…" while `ops` are pending: those they change, and the cards they add. */
export function pendingItems(ops) {
  const items = new Set();
  for (const op of ops) {
    // An add changes no card but its own (the one it goes before stays as it was).
    if (op.type === 'add') items.add(pendingId(op.op));
    else for (const id of involvedItems(op)) items.add(id);
  }
  return items;
}

/**
 * A refused op in plain words: "Your move of Fix the login page conflicted with Bo's; it was not
 * applied." `board`: the board as this page showed it (for the card's label); `byName`: the name
 * of whoever changed it first, or null. User text is isolated (bidi.js).
 */
export function refusedSentence(op, board, reason, byName) {
  const noun = OPS[op.type]?.noun ?? 'change';
  const item = op.item && typeof op.item === 'string' ? op.item : op.a;
  const label = op.type === 'add' ? op.item?.label : (board && item ? itemById(board, item)?.label : null);
  const of = op.type === 'add' ? ' ' : ' of ';
  const what = label ? `Your ${noun}${of}${isolate(label)}` : `Your ${noun}`;
  switch (reason) {
    case 'conflict': return `${what} conflicted with ${byName ? `${isolate(byName)}'s` : 'a change made meanwhile'}; it was not applied.`;
    case 'unknown_item': case 'unknown_zone': case 'unknown_tag': case 'unknown_check':
      return `${what} was not applied: what it changed is gone.`;
    case 'stale': case 'bad_base': return `${what} was not applied: the board had changed too much meanwhile.`;
    case 'forbidden': return `${what} was not applied: this link only lets you watch.`;
    default: return `${what} was not applied (${String(reason)}).`;
  }
}

/**
 * The page's part: opens the board's queue, shows the saved board and its pending ops before the
 * server answers, marks pending cards, counts them, lists refusals, guards leaving, and keeps the
 * page's files with the service worker. `app`: the page (app.js) — its session, view and root.
 */
export class PendingChanges {
  constructor(app, store) {
    this.app = app;
    this.store = store; // null: IndexedDB is not available here (said once in the status)
    this.offline = new Set(); // op ids made while closed, or taken back from the queue
    this.watched = new Set(); // op ids whose answer is awaited here
    this.firstSeen = new Map(); // pending op id → when this page first showed it (ms)
    this.showTimer = null;
    this.savedSeq = null;
    this.saveTimer = null;
    const doc = app.root.ownerDocument;
    this.countEl = el(doc, 'span', { id: 'unsaved', className: 'unsaved', attrs: { role: 'status' } });
    app.root.querySelector('#conn')?.after(this.countEl);
    this.listEl = el(doc, 'section', { id: 'refused', className: 'refused', attrs: { 'aria-label': 'Changes not applied', role: 'alert' } });
    this.listEl.hidden = true;
    app.root.querySelector('#board')?.before(this.listEl);
    app.win.addEventListener('beforeunload', (e) => {
      if (this.count() === 0 && !this.typing()) return;
      e.preventDefault();
      e.returnValue = ''; // older Chromium asks only with a returnValue
    });
    // An editor someone typed into: leaving asks until it closes (committed or cancelled).
    app.root.addEventListener('input', (e) => {
      if (e.target?.matches?.('#zones .inline-edit')) e.target.dataset.typed = 'true';
    });
  }

  /** Opens the queue of `app.boardId` and shows what it kept; resolves when the client may connect. */
  static async start(app) {
    let store = null;
    try {
      store = await PendingStore.open(app.boardId, { indexedDB: app.win.indexedDB });
    } catch (error) {
      console.warn('shuffleboard: changes are not kept across reloads here', error);
    }
    const p = new PendingChanges(app, store);
    app.pending = p;
    if (store) {
      try {
        const saved = await store.loadBoard();
        const ops = saved ? await store.ops() : [];
        if (saved) {
          for (const op of ops) p.offline.add(op.op);
          app.run(app.session.loadSaved(saved.board, saved.seq, ops));
          p.savedSeq = saved.seq;
        }
      } catch (error) {
        console.warn('shuffleboard: the saved board could not be read', error);
      }
    }
    p.keepFiles();
    return p;
  }

  /** The client's options for this page: its queue, and where it resumes from. */
  clientOptions() {
    return { queue: this.store, since: this.app.session.state.loaded ? this.app.session.state.seq : null };
  }

  /**
   * The client is made: it takes back the kept ops (each one's refusal is listed, like one made
   * offline here: `submit` of an op id it tracks hands out that op's answer), and says when the
   * queue fails.
   */
  attach(client) {
    client.on('queueError', ({ error }) => {
      this.app.view.toast(`This change could not be kept on this device (${error?.message ?? error}); stay on the page until it is saved.`);
    });
    client.restore()
      .then((kept) => { for (const msg of kept) this.sending(msg, false, client.submit(msg)); })
      .catch((error) => console.warn('shuffleboard: kept changes could not be read', error));
  }

  /**
   * An op goes to the client (`answer`: its promise). One made while closed, or taken back from
   * the queue, has its refusal listed; its card's label is taken now, while the page shows it.
   */
  sending(msg, open, answer) {
    const id = msg.op; // a drop carrying an op names it too
    if (typeof id !== 'string' || (open && !this.offline.has(id)) || this.watched.has(id)) return;
    this.offline.add(id);
    this.watched.add(id);
    const body = this.app.session.state.pending.find((p) => p.op === id) ?? msg;
    const board = this.app.session.state.view();
    answer?.then(() => { this.watched.delete(id); this.offline.delete(id); }, (error) => {
      this.watched.delete(id);
      this.offline.delete(id);
      if (error?.kind === 'closed') return;
      this.refused(body, board, error?.reason, error?.by ?? null);
    });
  }

  /**
   * True while text typed on the board is not sent yet: an "Add card" field with text in it, or
   * an open editor (a card's label or detail, a column's title) that was typed into.
   */
  typing() {
    const zones = this.app.root.querySelector('#zones');
    if (!zones) return false;
    for (const f of zones.querySelectorAll('[data-add-card] input')) if (f.value.trim()) return true;
    return !!zones.querySelector('.inline-edit[data-typed]:not([data-add-card] *)');
  }

  /** How many changes are not saved yet. */
  count() {
    return this.app.session.state.pending.length;
  }

  /**
   * After every render: the cards of pending ops marked "saving…" (at once while offline, after
   * SHOW_AFTER_MS while connected), the count said, the board saved (soon).
   */
  rendered() {
    const s = this.app.session;
    const now = Date.now();
    const since = new Map(s.state.pending.map((p) => [p.op, this.firstSeen.get(p.op) ?? now]));
    this.firstSeen = since;
    const late = s.state.pending.filter((p) => !s.open || now - since.get(p.op) >= SHOW_AFTER_MS);
    if (late.length < s.state.pending.length && !this.showTimer) {
      // Look again once the youngest could be late.
      this.showTimer = this.app.win.setTimeout(() => { this.showTimer = null; this.rendered(); }, SHOW_AFTER_MS);
    }
    const items = pendingItems(late);
    for (const tile of this.app.root.querySelectorAll('#zones [data-item]')) {
      const pending = items.has(tile.dataset.item);
      const badge = tile.querySelector(':scope > .tile-pending');
      if (pending && !badge) {
        tile.dataset.pending = 'true';
        tile.append(el(tile.ownerDocument, 'span', { className: 'tile-pending', textContent: 'saving…' }));
      } else if (!pending && tile.dataset.pending) {
        delete tile.dataset.pending;
        badge?.remove();
      }
    }
    const n = late.length;
    const text = n === 0 ? '' : `${n} unsaved change${n === 1 ? '' : 's'}`;
    if (this.countEl.textContent !== text) this.countEl.textContent = text;
    this.app.root.dataset.unsaved = String(this.count());
    this.boardChanged();
  }

  /** Saves the confirmed board once it changed (after SAVE_AFTER_MS, one write for a burst). */
  boardChanged() {
    const st = this.app.session.state;
    if (!this.store || !st.loaded || st.seq === this.savedSeq || this.saveTimer) return;
    this.saveTimer = this.app.win.setTimeout(() => {
      this.saveTimer = null;
      const seq = st.seq;
      this.store.saveBoard(st.board, seq).then(() => { this.savedSeq = seq; }, (error) => console.warn('shuffleboard: the board could not be kept', error));
    }, SAVE_AFTER_MS);
  }

  /** A change made offline was refused when it went out: listed in plain words. */
  refused(op, board, reason, by) {
    const name = by ? this.app.session.user(by).name : null;
    const text = refusedSentence(op, board, reason, by && name !== by ? name : null);
    const doc = this.listEl.ownerDocument;
    if (this.listEl.hidden) {
      const close = el(doc, 'button', { type: 'button', textContent: 'Dismiss' });
      close.addEventListener('click', () => { this.listEl.hidden = true; this.listEl.replaceChildren(); });
      this.listEl.replaceChildren(el(doc, 'h2', { textContent: 'Not applied while you were offline' }), el(doc, 'ul'), close);
      this.listEl.hidden = false;
    }
    this.listEl.querySelector('ul').append(el(doc, 'li', { textContent: text }));
  }

  /** Registers the service worker and has it keep every file this page loaded. */
  keepFiles() {
    const sw = this.app.win.navigator.serviceWorker;
    if (!sw) return;
    const root = this.app.root;
    sw.addEventListener('message', (e) => { if (e.data?.cached) root.dataset.offlineReady = 'true'; });
    sw.register(new URL('sw.js', import.meta.url), { scope: new URL('./', import.meta.url).pathname })
      .then(() => sw.ready)
      .then((reg) => {
        const here = this.app.win.location;
        const files = this.app.win.performance.getEntriesByType('resource').map((e) => e.name)
          .filter((u) => u.startsWith(here.origin) && !u.includes('/api/'));
        reg.active?.postMessage({ cache: [new URL('./', import.meta.url).href, ...files] });
      })
      .catch((error) => console.warn('shuffleboard: no service worker: the page will not open offline', error));
  }
}
