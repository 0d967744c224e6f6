// Wiring: the SDK's client (sdk/shuffleboard.js: the socket, its reconnects and tokens), DOM
// events into gestures, their intents into the session, and the session's effects onto the
// client and the view. The logic lives in session.js and gestures.js; this is the only module
// with side effects at load.

import * as P from './protocol.js';
import { AnnounceThrottle } from './announce.js';
import { isolate } from './bidi.js';
import { lockAxis, pickTarget } from './geometry.js';
import { Gestures } from './gestures.js';
import { act, editLabel, listen } from './input.js';
import { HistoryPanel, historyPath, restoreNotice, whenText } from './history.js';
import { BAD_ID, startHome } from './home.js';
import { suggestedMode } from './layout.js';
import { MODES, Session } from './session.js';
import { Client } from './sdk/shuffleboard.js';
import { View } from './view.js';
import { CardPanel } from './panel.js';
import { FilterBar } from './filterbar.js';
import { askToCreate, boardExists } from './boardgate.js';
import { boardModes } from './layout.js';
import { PendingChanges } from './pending.js';
import { installShare, keepToken, signedInByProxy, takeToken } from './share.js';
import { installMultiCard } from './multicard.js';
import { installExportMenu, installTrelloImport } from './transfer.js';
import { installInbox } from './inbox.js';
import { SearchBox } from './search.js';

const NAME_KEY = 'shuffleboard.name';
/** The mode last picked on a board, per board: `shuffleboard.mode.<board id>`. */
const MODE_KEY = 'shuffleboard.mode';
/** The stable id of the person using this browser (issue 32): `hello.member`. */
const MEMBER_KEY = 'shuffleboard.member';


class App {
  constructor(root, win) {
    this.win = win;
    this.root = root;
    this.view = new View(root);
    // A windowed column scrolled past what it rendered: render again (virtual.js).
    this.view.virtual.changed = () => this.render();
    this.session = new Session();
    this.gestures = new Gestures({
      ready: () => this.session.state.loaded,
      dragging: () => this.session.drag,
      mode: () => this.session.mode,
      heldByOther: (item) => this.session.heldByOther(item),
      itemAt: (x, y) => this.view.itemAt(x, y),
      handleOnly: (item) => !!this.session.layoutOf(item)?.handle,
      modes: () => this.modes(),
    });
    this.client = null; // the SDK's client for the board (sdk/shuffleboard.js)
    this.stalled = false; // no welcome came in time on the last socket, and none since
    this.lastPoint = null; // the pointer of a drag (axis-locked), in viewport coordinates
    this.origin = null; // where the pointer lifted the tile
    this.axis = null; // the lifted tile's zone axis ('x', 'y' or null)
    this.modeChosen = false; // a mode came from the URL or from this person: no suggestion
    this.announcer = new AnnounceThrottle((text) => this.view.announceOthers(text));
    this.scrollLoop = null;
    this.throttle = new P.HoverThrottle((msg) => this.send(msg));
    this.members = []; // [{member, name}] from GET /api/boards/{id}/members
    this.panel = new CardPanel(root.ownerDocument, {
      act: (body, text) => this.run(this.session.cardOp(body, text)),
      rename: (item, label) => this.run(this.session.editCard(item, { label })),
      people: () => this.people(),
      me: () => ({ member: this.member, name: this.name }),
      confirmed: () => this.session.state.board,
      onClose: (item) => this.view.focusItem(item), // its handle in a handle-only zone
      fetchComments: (item, before) => this.win.fetch(
        `/api/boards/${encodeURIComponent(this.boardId)}/items/${encodeURIComponent(item)}/comments?limit=20`
          + (before ? `&before=${encodeURIComponent(before)}` : ''), { headers: P.apiHeaders(this.token) })
        .then((r) => (r.ok ? r.json() : null)),
      archive: (item) => this.run(this.session.bulk([{ type: 'archive', items: [item] }], 'Archived the card.')),
      remove: (item) => this.run(this.session.removeCard(item)),
    });
    this.press = null; // where a pointer went down on a tile: a click there that did not move opens the card
    this.openTimer = null;
    this.multiCard = installMultiCard(this); // multi-select, bulk actions, the archive (issue 36)
  }

  /** Who can be assigned: the people on the board now, then those from /members. */
  people() {
    const people = [];
    for (const u of this.session.roster.users.values()) {
      if (u.member && !people.some((p) => p.member === u.member)) people.push({ member: u.member, name: u.name });
    }
    for (const m of this.members) if (!people.some((p) => p.member === m.member)) people.push({ member: m.member, name: m.name ?? m.member });
    return people;
  }

  /** Opens the card panel for `item`, and asks the server who else can be assigned. */
  openCard(item) {
    const board = this.session.scene()?.board;
    if (!board || !item || this.session.drag) return;
    this.panel.open(item, board);
    const headers = P.apiHeaders(this.token);
    const path = `/api/boards/${encodeURIComponent(this.boardId)}`;
    this.win.fetch(`${path}/history?limit=500`, { headers })
      .then((r) => (r.ok ? r.json() : null))
      .then((page) => { if (Array.isArray(page?.history)) this.panel.showHistory(page.history, this.session.scene()?.board); })
      .catch(() => {});
    this.win.fetch(`${path}/members`, { headers })
      .then((r) => (r.ok ? r.json() : null))
      .then((answer) => {
        if (!Array.isArray(answer?.members)) return;
        // `api` is every REST op sent without a token (docs/protocol.md): a script, not someone
        // to give a card to.
        this.members = answer.members.filter((m) => P.isValidId(m?.member) && m.member !== 'api').slice(0, 200)
          .map((m) => ({ member: m.member, name: typeof m.name === 'string' ? m.name : m.member }));
        this.render();
      })
      .catch(() => {});
  }

  /** This page's user id on the board (tests read it). */
  get me() {
    return this.session.me;
  }

  start() {
    const params = new URLSearchParams(this.win.location.search);
    this.filterBar = new FilterBar(this.win, () => this.render());
    if (this.filterBar.active) this.view.toolbar.showFilter(true, false);
    this.name = (params.get('name') || this.storageGet(NAME_KEY) || `Guest ${Math.floor(100 + Math.random() * 900)}`).slice(0, 40);
    this.storageSet(NAME_KEY, this.name);
    // One member id per browser, kept: assignees and history name this person by it.
    this.member = this.storageGet(MEMBER_KEY);
    if (!P.isValidId(this.member)) {
      this.member = `m-${P.newOpId().replace(/[^A-Za-z0-9_-]/g, '').slice(0, 24)}`;
      this.storageSet(MEMBER_KEY, this.member);
    }
    const nameInput = this.root.querySelector('#name');
    nameInput.value = this.name;
    nameInput.addEventListener('change', () => this.rename(nameInput.value));
    this.boardId = params.get('board');
    // A `#token=` moves into sessionStorage and off the address bar (share.js).
    const taken = takeToken(this.win, this.boardId);
    this.token = taken.token;
    // A search result's link (`&card=ITEM`) opens that card once the board is here (search.js).
    this.pendingCard = P.isValidId(params.get('card')) ? params.get('card') : null;
    this.search = new SearchBox(this.win.document, this.win, {
      token: () => this.token,
      open: (hit) => {
        if (hit.board !== this.boardId || !this.session.scene()) return false;
        if (hit.item) this.openCard(hit.item);
        return true;
      },
    });
    // An embedding page may hand out fresh tokens: `window.shuffleboardConfig = { getToken }`,
    // set before this module runs (docs/web-client.md, "Access tokens").
    const getToken = this.win.shuffleboardConfig?.getToken;
    this.getToken = typeof getToken === 'function' ? getToken : null;
    // The mode: the URL's (any mode: a link may ask for one the board does not offer), else
    // (once the board is here) the one last picked on this board if the board offers it, else
    // the one it suggests.
    this.urlMode = MODES.includes(params.get('mode')) ? params.get('mode') : null;
    this.modeChosen = !!this.urlMode;
    this.run(this.session.setMode(this.urlMode ?? 'swap'));
    for (const b of this.root.querySelectorAll('[data-mode-button]')) {
      b.addEventListener('click', () => this.chooseMode(b.dataset.modeButton));
    }
    this.root.querySelector('#undo').addEventListener('click', () => this.run(this.session.undo()));
    this.root.querySelector('#redo').addEventListener('click', () => this.run(this.session.redo()));
    this.root.querySelector('#copy-link').addEventListener('click', () => this.copyLink());
    this.root.querySelector('#add-zone').addEventListener('click', () => this.run(this.session.addZone('New column')));
    const title = this.root.querySelector('#board-title');
    const editTitle = () => {
      if (this.session.state.loaded) this.view.editBoardTitle((v) => { if (v !== null) this.run(this.session.retitle(v)); });
    };
    title.addEventListener('click', editTitle);
    title.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); editTitle(); } });

    // The bell (issue 34), on the start page and the board page; `?card=` opens that card once
    // the board is here (a notice's link).
    const card = params.get('card');
    this.cardToOpen = P.isValidId(card) ? card : null;
    this.inbox = installInbox(this.root, {
      win: this.win,
      member: () => this.member,
      token: () => this.token,
      boardId: () => (P.isValidId(this.boardId) ? this.boardId : null),
      openCard: (item) => this.openCard(item),
    });
    if (!this.boardId || !P.isValidId(this.boardId)) {
      if (this.boardId) this.view.toast(BAD_ID);
      startHome(this.root, this.view, this.win, (name) => this.rename(name, false), this.token);
      installTrelloImport(this.root, this.view, this.win, this.token);
      return;
    }
    this.openBoard(taken);
  }

  /**
   * Opens the board page: when the board does not exist (and the link has no token), asks
   * whether to make it first (boardgate.js); nothing is made until the person says so.
   * `taken`: the link's token as share.js took it off the address bar.
   */
  async openBoard(taken) {
    // Behind a company's sign-in proxy the server knows this person without a token (share.js).
    this.signedIn = this.token ? null : await signedInByProxy(this.win, this.boardId);
    if (this.signedIn) this.useSignIn(this.signedIn);
    if (!this.token && await boardExists(this.win, this.boardId, null) === false) {
      const template = await askToCreate(this.root, this.view, this.win, this.boardId, null);
    }
    this.view.showPage('board');
    this.history = new HistoryPanel(this.win.document, {
      boardId: this.boardId,
      token: () => this.token,
      fetch: (path, init) => this.win.fetch(path, init),
      liveBoard: () => this.session.state.view(),
      restore: (seq, time) => this.run(this.session.restore(seq, whenText(time))),
      confirm: (text) => this.win.confirm(text),
      now: () => Date.now(),
    });
    this.listen();
    // Changes kept from before (and the board they were made on) first, then the server.
    PendingChanges.start(this).then(() => this.connect());
    installShare(this, taken);
    installExportMenu(this);
  }

  storageGet(k) {
    try { return this.win.localStorage.getItem(k); } catch { return null; }
  }

  storageSet(k, v) {
    try { this.win.localStorage.setItem(k, v); } catch { /* private mode: not remembered */ }
  }

  /** This person picked `mode`: it is remembered for this board. */
  chooseMode(mode) {
    if (!MODES.includes(mode) || !this.modes().includes(mode)) return;
    this.modeChosen = true;
    this.storageSet(`${MODE_KEY}.${this.boardId}`, mode);
    this.run(this.session.setMode(mode));
  }

  /**
   * Copies the board's link (the clipboard API, else a selected field and copy) and says so. The
   * link carries this page's mode when it is not the one the board suggests anyway (a paint
   * board shared in paint mode opens in paint mode).
   */
  async copyLink() {
    const board = this.session.state.view();
    const mode = board && this.session.mode !== suggestedMode(board) ? this.session.mode : null;
    const link = P.boardLink(this.win.location, this.boardId, mode, this.token);
    let ok = false;
    try {
      await this.win.navigator.clipboard.writeText(link);
      ok = true;
    } catch {
      // No clipboard API (an insecure origin) or no permission: the old way.
      const doc = this.win.document;
      const field = doc.createElement('textarea');
      field.value = link;
      field.setAttribute('readonly', '');
      field.className = 'visually-hidden';
      doc.body.append(field);
      field.select();
      try { ok = doc.execCommand('copy'); } catch { ok = false; }
      field.remove();
      doc.getElementById('copy-link')?.focus();
    }
    this.view.copied(ok, link);
  }

  /** The sign-in proxy names this person: its name and member, which the server imposes anyway. */
  useSignIn(me) {
    this.name = me.name;
    this.member = me.member;
    this.role = me.role;
    const field = this.root.querySelector('#name');
    if (field) {
      field.value = me.name;
      field.readOnly = true;
      field.title = 'The name your company\'s sign-in gives you';
    }
  }

  /** The server says this session's role changed (a grant, a fresh token): say so once. */
  roleChanged(role) {
    if (!['view', 'edit', 'admin'].includes(role) || role === this.role) return;
    const before = this.role;
    this.role = role;
    if (before) this.view.toast(role === 'view' ? 'You can now only watch this board.' : `You can now ${role === 'admin' ? 'manage' : 'edit'} this board.`);
  }

  rename(value, reconnect = true) {
    const name = value.trim().slice(0, 40);
    if (!name || name === this.name) return;
    this.name = name;
    this.storageSet(NAME_KEY, name);
    // The protocol has no rename: the client rejoins under the new name.
    if (reconnect) this.client?.rename(name);
  }

  // ---- The client (the socket, its reconnects and tokens: sdk/shuffleboard.js).

  connect() {
    const c = new Client({
      url: P.socketURL(this.win.location, this.boardId),
      board: this.boardId,
      name: this.name,
      member: this.member,
      token: this.token,
      getToken: this.getToken,
      WebSocket: this.win.WebSocket,
      ...this.pending?.clientOptions(),
    });
    this.client = c;
    this.session.useRoster(c.roster); // one list of who is here: the client's
    this.pending?.attach(c);
    // A socket that got no welcome in time (a server or a board's owner that never answers):
    // the page says so until a welcome comes, while the client keeps trying.
    c.on('connecting', () => this.view.setConnection(this.stalled ? 'stalled' : 'connecting'));
    c.on('stalled', (s) => {
      this.stalled = true;
      this.view.setConnection('stalled');
      this.view.toast(`The board has not answered for ${Math.round(s.after / 1000)} s; still trying…`);
    });
    c.on('welcome', () => {
      this.stalled = false;
      // Notices made while this page was not connected (the socket brings only new ones).
      if (this.welcomed) this.inbox?.refresh();
      this.welcomed = true;
      if (this.cardToOpen) {
        const item = this.cardToOpen;
        this.cardToOpen = null;
        // After the session has the board (its 'message' listener runs after this one).
        this.win.setTimeout(() => this.openCard(item), 0);
        const url = new URL(this.win.location.href);
        url.searchParams.delete('card');
        this.win.history.replaceState(this.win.history.state, '', url);
      }
    });
    c.on('notice', (n) => this.inbox?.notice(n));
    // A new socket: the session starts its connection over (the client's hello resumes from the
    // same seq the session has applied, or asks for the board after a resync), with the token
    // the client has now (a fresh one after a 4401), which links made from now on carry.
    c.on('open', () => {
      this.token = c.token;
      this.session.hello(this.boardId, c.name, c.token, this.member);
    });
    c.on('message', (m) => this.run(this.session.receive(m)));
    c.on('close', () => this.run(this.session.disconnected()));
    c.on('auth', (m) => {
      if (c.token) { this.token = c.token; keepToken(this.win, this.boardId, c.token); } // links made from now on carry the fresh token
      this.roleChanged(m?.role);
    });
    // The page has only the token it was opened with: no loop of refused connections.
    c.on('expired', () => {
      this.view.setConnection('expired');
      this.view.toast('Your access has expired: open the link again or ask for a new one.');
    });
    c.on('revoked', () => {
      this.view.setConnection('revoked');
      this.view.toast('Your access has been revoked.');
    });
    c.on('unauthorized', () => this.refused());
    c.on('warning', (w) => console.warn(`shuffleboard: ${w.message}`, w.error ?? ''));
    c.start();
  }

  /**
   * The server refused the token (or wanted one): no reconnect loop. Asks once for a token;
   * with one, it goes into the fragment and the page connects again; without, the page says why.
   */
  refused() {
    this.view.setConnection('unauthorized');
    const asked = this.askedForToken ? null : this.win.prompt?.('This board needs an access token. Paste it here:');
    this.askedForToken = true;
    const token = typeof asked === 'string' ? asked.trim() : '';
    if (!/^[A-Za-z0-9._-]{1,2048}$/.test(token)) {
      this.view.toast('This board needs a valid access token: open the link you were given.');
      return;
    }
    this.token = token;
    this.client.setToken(token);
    keepToken(this.win, this.boardId, token);
    this.client.reconnect();
  }

  /** Ops (and drops that carry one) go through the client, which resends them after a reconnect. */
  send(msg) {
    if (!this.client) return;
    const open = this.client.state === 'open';
    if (P.OP_TYPES.has(msg.type) || (msg.type === 'drop' && msg.op)) this.pending?.sending(msg, open, this.client.submit(msg));
    else this.client.send(msg);
  }

  // ---- Effects of the session (see session.js).

  run(effects) {
    for (const e of effects) {
      switch (e.type) {
        case 'send': case 'queue': this.send(e.msg); break;
        case 'resync':
          // A gap in seq, or an out-of-sync base: reconnect at once (the client, which checks the
          // same, has usually started already).
          this.client?.resync({ snapshot: e.snapshot });
          break;
        case 'connection': this.view.setConnection(e.state); break;
        case 'render':
          this.suggestMode();
          this.render(e.glide);
          this.history?.boardChanged(this.session.state.seq);
          break;
        case 'ghost': if (this.lastPoint) this.view.showGhost(e.item, this.lastPoint.x, this.lastPoint.y); break;
        case 'focus': this.view.focusItem(e.item); break;
        case 'reveal': this.view.reveal(e.item); break;
        case 'presence': this.view.renderPresence(e.users, e.me, e.count); break;
        case 'mode': this.view.setMode(e.mode); break;
        case 'toast':
          // The toast's Undo reverts the change it is about, not whatever was done last.
          if (e.action === 'undo') this.view.toast(e.text, 6000, { label: 'Undo', run: () => this.run(this.session.undoChange(e.change)) });
          else this.view.toast(e.text);
          break;
        case 'fade':
          // What this page was typing into that card goes with it: say why.
          if (this.view.isEditing(e.item)) this.view.toast(`${e.by?.name != null ? isolate(e.by.name) : 'Someone'} removed the card you were editing`);
          this.view.fade(e.item);
          break;
        case 'zoneGone':
          if (this.view.isTypingInZone(e.zone)) this.view.toast(`${e.by?.name != null ? isolate(e.by.name) : 'Someone'} removed the column you were typing in`);
          break;
        case 'announce': this.view.announce(e.text); break;
        case 'remoteChange':
          this.announcer.offer(e.change);
          if (e.change.kind === 'restore') this.restored(e.change);
          break;
        case 'pulse': this.view.pulse(e.items, e.kind, e.color); break;
        case 'handStart': this.view.hands.start(e.user, e.item); break;
        case 'handHover': this.view.hands.hover(e.by, e.target); break;
        case 'handEnd': this.view.hands.end(e.by); break;
        case 'hover': this.throttle.offer(e.msg, e.key); break;
        case 'hoverFlush': this.throttle.flush(); break;
        case 'hoverReset': this.throttle.reset(); break;
        case 'wake': setTimeout(() => this.run(this.session.wake(e.token)), e.after); break;
        case 'taken': this.gestures.taken(e.item); break;
        case 'warn': console.warn(`shuffleboard: ${e.text}`); break;
        default: break;
      }
    }
  }

  /**
   * Someone else restored the board (issue 35): everyone on it is told who, and to when (the
   * time of that change, from the history; just its number when that cannot be read).
   */
  async restored(change) {
    let time = null;
    if (Number.isInteger(change.to)) {
      try {
        const res = await this.win.fetch(historyPath(this.boardId, change.to + 1, 1), { headers: P.apiHeaders(this.token) });
        const entry = res.ok ? (await res.json()).history?.[0] : null;
        if (entry?.seq === change.to) time = entry.time;
      } catch { /* said without the time */ }
    }
    this.view.toast(restoreNotice(change.name, change.to, time), 12000);
  }

  /** The modes the board offers in its toolbar and to mode letters (layout.js boardModes). */
  modes() {
    return boardModes(this.session.state.view(), this.urlMode);
  }

  /**
   * The first board shown, when the link named no mode: the one last picked on this board (if
   * the board offers it), else the one it suggests. The toolbar shows the board's modes.
   */
  suggestMode() {
    if (!this.session.state.loaded) return;
    this.view.toolbar.setModes(this.modes());
    if (this.modeChosen) return;
    this.modeChosen = true;
    const board = this.session.state.view();
    const kept = this.storageGet(`${MODE_KEY}.${this.boardId}`);
    const mode = this.modes().includes(kept) ? kept : suggestedMode(board);
    if (mode !== this.session.mode) this.run(this.session.setMode(mode));
  }

  /** Shows the session's scene; `glide`: the item that glides from the ghost's last place. */
  render(glide) {
    const from = glide ? this.view.hideGhost() : null;
    const s = this.session.scene();
    if (!s) return;
    const hiddenItems = this.filterBar.hidden(s.board, !!this.session.drag);
    this.view.renderBoard(s.board, { ...s.deco, hiddenItems, firstRects: from ? new Map([[glide, from]]) : undefined });
    if (this.panel.isOpen) this.panel.update(s.board);
    if (this.pendingCard && this.session.state.loaded) {
      const card = this.pendingCard;
      this.pendingCard = null;
      if (s.board.items.some((i) => i.id === card)) this.openCard(card);
      else this.view.toast('That card is no longer on this board');
    }
    this.pending?.rendered();
    this.multiCard?.render();
    this.view.refreshGhost();
    this.view.setSeq(s.seq);
  }

  // ---- Input (input.js): pointer, keyboard and editing clicks into gestures and the session.

  listen() { listen(this); }
  editLabel(item) { editLabel(this, item); }
  act(intents, event) { act(this, intents, event); }

  /**
   * The lifted tile's pointer is at (x, y): the ghost follows (only along the zone's axis, when
   * it has one), the target is picked again — unless the pointer has not moved. The preview may
   * have moved the tiles under a still pointer since it was last picked (a tile leaving the tray
   * shortens it, and the grid under it moves up); picking again at the release would then drop
   * somewhere else than the preview the user let go at. What is shown is what is dropped.
   */
  aim(x, y) {
    const p = lockAxis({ x, y }, this.origin, this.axis);
    const still = this.lastPoint && this.lastPoint.x === p.x && this.lastPoint.y === p.y;
    this.lastPoint = p;
    this.view.moveGhost(p.x, p.y);
    if (!still || !this.session.drag?.target) this.retarget();
    this.startAutoScroll();
  }

  /** Re-evaluates the pointer target (after a move or a scroll). */
  retarget() {
    const d = this.session.drag;
    if (!d || !this.lastPoint) return;
    this.run(this.session.aim(pickTarget(this.lastPoint, this.view.layout(), d.item, d.target)));
  }

  startAutoScroll() {
    if (this.scrollLoop) return;
    const step = () => {
      this.scrollLoop = null;
      if (this.session.drag?.source !== 'pointer' || !this.lastPoint) return;
      if (this.view.autoScroll(this.lastPoint.x, this.lastPoint.y)) {
        this.retarget();
        this.scrollLoop = requestAnimationFrame(step);
      }
    };
    this.scrollLoop = requestAnimationFrame(step);
  }
}

const root = document.getElementById('app');
if (root) {
  const app = new App(root, window);
  app.start();
  // For debugging from the console; the browser tests read `me` from it.
  window.shuffleboard = app;
}
