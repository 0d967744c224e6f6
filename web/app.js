// Wiring: the socket and its reconnects, server messages into the state, gestures (pointer,
// keyboard, paint) into ops, undo/redo, and the view. The only module with side effects at load.

import * as P from './protocol.js';
import {
  applyOp, BoardState, canRevert, cloneBoard, inverseOp, itemById, locate, moveTarget, opMovesItem,
  previewRemoteMoves, UndoHistory,
} from './state.js';
import { nextKeyboardTarget, pickTarget, targetKey } from './geometry.js';
import { View } from './view.js';

const NAME_KEY = 'shuffleboard.name';
const MODE_KEY = 'shuffleboard.mode';
const MODES = ['swap', 'move', 'paint'];
/** Pointer travel (px) that turns a mouse press into a drag. */
const DRAG_THRESHOLD = 5;
/** How long a finger must rest before a touch press lifts a tile (ms). */
const TOUCH_DELAY = 250;
/**
 * After someone else's move-mode drop, how long their live reorder preview may stay on screen
 * waiting for the committed op (ms). The server sends the op right after the `drop`, so the
 * preview normally gives way to the op at once (no jump back in between); this only bounds the
 * wait when no op comes (the drop was refused, or only released the tile).
 */
const SETTLE_MS = 1000;

class App {
  constructor(root, win) {
    this.win = win;
    this.doc = win.document;
    this.view = new View(root);
    this.root = root;
    this.state = new BoardState();
    this.history = new UndoHistory();
    this.users = new Map();
    this.held = new Map(); // item → user id
    this.remoteOver = new Map(); // user id → {item, over, zone, mode}
    this.settling = new Map(); // item → {hover, timer}: a dropped move preview awaiting its op
    this.me = null;
    this.ws = null;
    this.connId = 0;
    this.open = false;
    this.attempt = 0;
    this.reconnectTimer = null;
    this.forceSnapshot = false;
    this.drag = null; // {item, source, target, connId, pointerId}
    this.press = null; // a pointer press that may become a drag
    this.paint = null; // a paint stroke
    this.lastPoint = null;
    this.scrollLoop = null;
    this.throttle = new P.HoverThrottle((t) => this.sendHover(t));
  }

  start() {
    const params = new URLSearchParams(this.win.location.search);
    this.name = (params.get('name') || this.storageGet(NAME_KEY) || `Guest ${Math.floor(100 + Math.random() * 900)}`).slice(0, 40);
    this.storageSet(NAME_KEY, this.name);
    const nameInput = this.root.querySelector('#name');
    nameInput.value = this.name;
    nameInput.addEventListener('change', () => this.rename(nameInput.value));
    const mode = params.get('mode') || this.storageGet(MODE_KEY);
    this.setMode(MODES.includes(mode) ? mode : 'swap');
    for (const b of this.root.querySelectorAll('[data-mode-button]')) {
      b.addEventListener('click', () => this.setMode(b.dataset.modeButton));
    }
    this.root.querySelector('#undo').addEventListener('click', () => this.undo());
    this.root.querySelector('#redo').addEventListener('click', () => this.redo());
    this.root.querySelector('#open-form').addEventListener('submit', (e) => this.openBoard(e));

    this.boardId = params.get('board');
    if (!this.boardId || !P.isValidId(this.boardId)) {
      if (this.boardId) this.view.toast('Board names use letters, digits, - and _ (up to 64).');
      this.view.showPage('home');
      this.view.setConnection('closed');
      this.loadBoardList();
      return;
    }
    this.view.showPage('board');
    this.listen();
    this.connect();
  }

  storageGet(k) {
    try { return this.win.localStorage.getItem(k); } catch { return null; }
  }

  storageSet(k, v) {
    try { this.win.localStorage.setItem(k, v); } catch { /* private mode: not remembered */ }
  }

  // ---- The index page.

  async loadBoardList() {
    try {
      const res = await this.win.fetch('/api/boards', { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(String(res.status));
      const body = await res.json();
      this.view.renderBoardList(Array.isArray(body.boards) ? body.boards : []);
    } catch {
      this.view.renderBoardList(null);
    }
  }

  openBoard(e) {
    e.preventDefault();
    const input = this.root.querySelector('#board-name');
    const id = input.value.trim().replace(/\s+/g, '-');
    if (!P.isValidId(id)) {
      this.view.toast('Board names use letters, digits, - and _ (up to 64).');
      input.focus();
      return;
    }
    this.rename(this.root.querySelector('#name').value, false);
    this.win.location.search = `?board=${encodeURIComponent(id)}`;
  }

  rename(value, reconnect = true) {
    const name = value.trim().slice(0, 40);
    if (!name || name === this.name) return;
    this.name = name;
    this.storageSet(NAME_KEY, name);
    // The protocol has no rename: rejoin under the new name.
    if (reconnect && this.ws) this.ws.close(1000, 'rename');
  }

  setMode(mode) {
    if (this.drag) this.cancelDrag();
    this.mode = mode;
    this.storageSet(MODE_KEY, mode);
    this.view.setMode(mode);
  }

  // ---- Connection.

  connect() {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.view.setConnection('connecting');
    const ws = new this.win.WebSocket(P.socketURL(this.win.location), P.SUBPROTOCOL);
    this.ws = ws;
    this.connId += 1;
    ws.addEventListener('open', () => {
      const since = this.state.loaded && !this.forceSnapshot ? this.state.seq : undefined;
      this.forceSnapshot = false;
      ws.send(JSON.stringify(P.hello(this.boardId, this.name, since)));
    });
    ws.addEventListener('message', (e) => {
      if (ws !== this.ws) return;
      let messages;
      try {
        messages = P.parseFrame(e.data);
      } catch {
        console.warn('shuffleboard: a frame that is not JSON', e.data);
        return;
      }
      for (const m of messages) {
        if (ws !== this.ws) return; // a resync closed it mid-frame
        this.handle(m);
      }
    });
    ws.addEventListener('close', () => this.closed(ws));
  }

  closed(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.open = false;
    this.view.setConnection('closed');
    // A drag in progress goes on locally; its hold died with the connection, so its drop
    // will be sent as a plain op (or the hold is asked for again after the reconnect).
    if (this.drag) this.drag.connId = -1;
    this.held.clear();
    this.remoteOver.clear();
    this.clearSettling();
    this.view.handEnd(null);
    this.render();
    const delay = P.backoffDelay(this.attempt);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** Starts over from a fresh connection (a gap in seq, or an out-of-sync base). */
  resync(snapshot) {
    if (snapshot) this.forceSnapshot = true;
    this.attempt = 0;
    if (this.ws) this.ws.close(1000, 'resync');
  }

  send(m) {
    if (!this.open || !this.ws) return false;
    this.ws.send(JSON.stringify(m));
    return true;
  }

  // ---- Server messages.

  handle(m) {
    if (P.isCommitted(m)) return this.committed(m);
    switch (m.type) {
      case 'welcome': return this.welcome(m);
      case 'reject': return this.rejected(m);
      case 'ack': return this.acked(m);
      case 'dragStart': return this.remoteDragStart(m);
      case 'hover': return this.remoteHover(m);
      case 'drop': return this.remoteDrop(m);
      case 'join':
        if (m.user?.id) this.users.set(m.user.id, m.user);
        return this.view.renderPresence(this.users, this.me);
      case 'leave':
        if (m.user?.id) {
          this.users.delete(m.user.id);
          this.view.handEnd(m.user.id);
          this.remoteOver.delete(m.user.id);
        }
        this.view.renderPresence(this.users, this.me);
        return this.render();
      case 'error':
        console.warn('shuffleboard: server error', m.code, m.message);
        return this.view.toast(`Server: ${m.message || m.code}`);
      default:
        return undefined; // newer servers may add types
    }
  }

  welcome(m) {
    this.me = m.you;
    this.users = new Map((m.users ?? []).map((u) => [u.id, u]));
    this.held = new Map((m.drags ?? []).map((d) => [d.item, d.by]));
    this.remoteOver.clear();
    this.clearSettling();
    if (m.board) {
      this.state.reset(m.board, m.seq);
    } else if (Array.isArray(m.ops)) {
      for (const op of m.ops) {
        const r = this.state.applyCommitted(op);
        if (r.status === 'gap') return this.resync(true);
        if (r.status === 'applied' && r.own) this.history.committed(op.op, op.seq);
      }
      if (this.state.seq !== m.seq) return this.resync(true);
    } else {
      return this.resync(true);
    }
    this.open = true;
    this.attempt = 0;
    this.view.setConnection('open');
    this.view.renderPresence(this.users, this.me);
    for (const d of m.drags ?? []) if (d.by !== this.me) this.view.handStart(this.user(d.by), d.item);
    // Ops in flight when the connection dropped: resend with the same op id (the server
    // answers `ack` for any it had already committed, so none is applied twice).
    for (const p of this.state.pending) this.send(p);
    if (this.drag) {
      // A drag survived the reconnect: hold the tile again.
      this.drag.connId = this.connId;
      this.send(P.dragStart(this.drag.item));
    }
    this.render();
  }

  committed(m) {
    const r = this.state.applyCommitted(m);
    if (r.status === 'gap') return this.resync(false);
    if (r.status !== 'applied') return undefined;
    if (r.own) this.history.committed(m.op, m.seq);
    // A dropped preview gives way to the op that moved its tile: the confirmed board now shows it.
    for (const item of [...this.settling.keys()]) if (opMovesItem(m, item)) this.clearSettling(item);
    this.render();
    if (m.by !== this.me) {
      const u = this.user(m.by);
      this.view.pulse(P.involvedItems(m).filter((id) => id !== m.before), 'remote', u.color);
    }
    return undefined;
  }

  rejected(m) {
    const text = P.rejectText(m.reason, m.by, (id) => this.user(id).name);
    if (!m.op) {
      // A refused dragStart (held by someone else), or a hover/drop for a hold we lost.
      if (this.drag && (!m.item || m.item === this.drag.item)) {
        const item = this.drag.item;
        this.cancelDrag({ silent: true });
        this.view.pulse([item], 'reject');
        this.view.toast(text);
        this.view.announce(text);
      }
      return;
    }
    const p = this.state.reject(m.op);
    this.history.rejected(m.op);
    if (!p) return;
    this.render();
    this.view.pulse(P.involvedItems(p), 'reject');
    this.view.toast(text);
    this.view.announce(text);
    if (m.reason === 'bad_base') this.resync(true);
  }

  acked(m) {
    const p = this.state.ack(m.op, m.seq);
    if (p) this.history.committed(m.op, m.seq);
    this.render();
  }

  remoteDragStart(m) {
    this.held.set(m.item, m.by);
    this.clearSettling(m.item);
    if (m.by !== this.me) {
      this.view.handStart(this.user(m.by), m.item);
      if (this.press && this.press.item === m.item) this.clearPress();
    }
    this.render();
  }

  remoteHover(m) {
    if (m.by === this.me) return;
    const mode = m.mode === 'move' || m.mode === 'swap' ? m.mode : null;
    this.remoteOver.set(m.by, { item: m.item, over: m.over ?? null, zone: m.zone, mode });
    // Move mode: the held tile itself is shown at its new place (render), and the hand holds it
    // there. Otherwise the hand points at the target.
    this.view.handHover(m.by, mode === 'move' ? { over: m.item, zone: m.zone } : { over: m.over ?? null, zone: m.zone });
    this.render();
  }

  remoteDrop(m) {
    if (this.held.get(m.item) === m.by) this.held.delete(m.item);
    const last = this.remoteOver.get(m.by);
    this.remoteOver.delete(m.by);
    // A released move preview stays until the op it announces arrives (or SETTLE_MS pass), so
    // the tile does not jump back between the drop and the op. A hold that ended without a
    // drop (left, expired) commits nothing: its preview goes at once.
    if (m.by !== this.me && !m.reason && last && last.mode === 'move' && last.item === m.item) {
      this.clearSettling(m.item);
      const timer = setTimeout(() => {
        if (this.settling.get(m.item)?.timer !== timer) return;
        this.settling.delete(m.item);
        this.render();
      }, SETTLE_MS);
      this.settling.set(m.item, { hover: last, timer });
    }
    if (m.by !== this.me) this.view.handEnd(m.by);
    else if (m.reason === 'expired' && this.drag && this.drag.item === m.item) {
      this.cancelDrag({ silent: true });
      this.view.toast(P.dropReasonText('expired'));
    }
    this.render();
  }

  user(id) {
    return this.users.get(id) ?? { id, name: id, color: '#555' };
  }

  /** Forgets the dropped preview of `item` (of every item when omitted). */
  clearSettling(item) {
    for (const [id, s] of this.settling) {
      if (item === undefined || id === item) { clearTimeout(s.timer); this.settling.delete(id); }
    }
  }

  /**
   * Other people's move-mode drags as hovers to preview: dropped ones still waiting for their
   * op first, then the live ones. None while this page drags itself, so tiles never slide under
   * one's own pointer (their hands and target outlines still show).
   */
  remotePreviews() {
    if (this.drag) return [];
    const live = [...this.remoteOver.values()].filter((h) => h.mode === 'move' && !this.settling.has(h.item));
    return [...[...this.settling.values()].map((s) => s.hover), ...live];
  }

  // ---- Rendering.

  /** Shows the board: confirmed + pending, plus the live preview of a drag in progress. */
  render(extra = {}) {
    let board = this.state.view();
    if (!board) return;
    const previews = this.remotePreviews();
    board = previewRemoteMoves(board, previews);
    const d = this.drag;
    let over = null;
    let overZone = null;
    if (d && d.target) {
      if (d.target.over == null) overZone = d.target.zone;
      if (this.mode === 'move' || d.target.over == null) {
        const mt = moveTarget(board, d.item, d.target.over, d.target.zone);
        if (mt && this.mode === 'move') {
          board = cloneBoard(board);
          applyOp(board, { type: 'move', item: d.item, ...mt });
        }
      } else if (d.target.over !== d.item) {
        over = d.target.over;
      }
    }
    const held = new Map();
    for (const [item, by] of this.held) held.set(item, this.user(by));
    const remoteOver = new Map();
    for (const [by, h] of this.remoteOver) {
      // A previewed move shows the tile at its new place instead of outlining the target.
      if (h.over && !previews.includes(h)) remoteOver.set(h.over, this.user(by));
    }
    this.view.renderBoard(board, {
      held,
      me: this.me,
      dragging: d && d.source === 'pointer' ? d.item : null,
      lifted: d && d.source === 'keyboard' ? d.item : null,
      keyboardTarget: d && d.source === 'keyboard' ? d.target : null,
      over,
      overZone,
      remoteOver,
      firstRects: extra.firstRects,
    });
    this.view.setSeq(this.state.seq);
  }

  // ---- Making changes.

  /** A new op message from an op body, against the last applied seq. */
  makeOp(body) {
    const id = P.newOpId();
    const base = this.state.seq;
    switch (body.type) {
      case 'swap': return P.swap(id, base, body.a, body.b);
      case 'move': return P.move(id, base, body.item, body.zone, body.before);
      case 'toggle': return P.toggle(id, base, body.item, body.on);
      default: throw new Error(`unknown op ${body.type}`);
    }
  }

  /**
   * Applies an op optimistically and sends it (as a drop when it ends a drag held on this
   * connection). Returns the undo entry {op, inverse}.
   */
  submit(op, dropItem = null) {
    const entry = { op, inverse: inverseOp(op, this.state.view()) };
    this.state.addPending(op);
    if (dropItem && this.open) this.send(P.drop(dropItem, op));
    else this.send(op);
    return entry;
  }

  /**
   * Puts a change on the undo (or redo) stack. Ops of a paint stroke may already have been
   * answered while the stroke went on; their outcome is taken from the state.
   */
  recordChange(entries, kind = 'do') {
    this.history.record(entries, kind);
    for (const e of entries) {
      if (this.state.isPending(e.op.op)) continue;
      const done = this.state.log.find((l) => l.op === e.op.op);
      if (done) this.history.committed(e.op.op, done.seq);
      else this.history.rejected(e.op.op);
    }
  }

  /** The op a drop on target `t` makes, or null when it would change nothing. */
  opForTarget(item, t) {
    if (!t) return null;
    const board = this.state.view();
    if (t.over === item) return null;
    if (t.over != null && this.mode !== 'move') {
      if (!locate(board, t.over)) return null;
      return this.makeOp({ type: 'swap', a: item, b: t.over });
    }
    const mt = moveTarget(board, item, t.over, t.zone);
    return mt ? this.makeOp({ type: 'move', item, ...mt }) : null;
  }

  labelOf(id) {
    const b = this.state.view();
    return (b && itemById(b, id)?.label) || id;
  }

  describeTarget(t) {
    if (!t) return 'no target';
    if (t.over == null) return `the end of ${t.zone}`;
    const b = this.state.view();
    const at = locate(b, t.over);
    const where = at ? `, ${at.zone.id} position ${at.index + 1} of ${at.zone.items.length}` : '';
    return `${this.labelOf(t.over)}${where}`;
  }

  // ---- Pointer gestures.

  listen() {
    const zones = this.root.querySelector('#zones');
    zones.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.win.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.win.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.win.addEventListener('pointercancel', (e) => this.pointerCancel(e));
    zones.addEventListener('contextmenu', (e) => { if (e.target.closest('[data-item]')) e.preventDefault(); });
    // Once a touch drag or stroke is under way, the page must not scroll under the finger.
    this.doc.addEventListener('touchmove', (e) => {
      if ((this.drag && this.drag.source === 'pointer') || this.paint) e.preventDefault();
    }, { passive: false });
    this.doc.addEventListener('keydown', (e) => this.keyDown(e));
    this.win.addEventListener('blur', () => { if (this.drag?.source === 'pointer') this.cancelDrag(); });
  }

  pointerDown(e) {
    const tile = e.target.closest('[data-item]');
    if (!tile || !this.state.loaded) return;
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    if (this.drag || this.press || this.paint) return;
    const item = tile.dataset.item;
    const holder = this.held.get(item);
    if (holder && holder !== this.me) {
      const text = `${this.user(holder).name} is holding that tile`;
      this.view.toast(text);
      this.view.pulse([item], 'reject');
      return;
    }
    if (this.mode === 'paint') {
      e.preventDefault();
      this.paint = { pointerId: e.pointerId, seen: new Set(), entries: [] };
      this.paintAt(item);
      return;
    }
    this.press = { item, pointerId: e.pointerId, x: e.clientX, y: e.clientY, type: e.pointerType, timer: null };
    if (e.pointerType === 'touch') {
      this.press.timer = setTimeout(() => {
        const p = this.press;
        if (p) this.lift(p.item, { x: p.x, y: p.y }, p.pointerId);
      }, TOUCH_DELAY);
    }
  }

  pointerMove(e) {
    if (this.paint && e.pointerId === this.paint.pointerId) {
      const item = this.view.itemAt(e.clientX, e.clientY);
      if (item && !this.paint.seen.has(item)) this.paintAt(item);
      return;
    }
    const p = this.press;
    if (p && e.pointerId === p.pointerId) {
      const moved = Math.hypot(e.clientX - p.x, e.clientY - p.y) > DRAG_THRESHOLD;
      if (!moved) return;
      if (p.type === 'touch') {
        this.clearPress(); // a scroll, not a drag
        return;
      }
      this.lift(p.item, { x: p.x, y: p.y }, p.pointerId);
    }
    const d = this.drag;
    if (d && d.source === 'pointer' && e.pointerId === d.pointerId) {
      this.lastPoint = { x: e.clientX, y: e.clientY };
      this.view.moveGhost(e.clientX, e.clientY);
      this.retarget();
      this.startAutoScroll();
    }
  }

  pointerUp(e) {
    if (this.paint && e.pointerId === this.paint.pointerId) return this.endPaint();
    if (this.press && e.pointerId === this.press.pointerId) return this.clearPress();
    const d = this.drag;
    if (d && d.source === 'pointer' && e.pointerId === d.pointerId) {
      this.lastPoint = { x: e.clientX, y: e.clientY };
      this.retarget();
      this.finishDrag();
    }
    return undefined;
  }

  pointerCancel(e) {
    if (this.paint && e.pointerId === this.paint.pointerId) return this.endPaint();
    if (this.press && e.pointerId === this.press.pointerId) return this.clearPress();
    if (this.drag && this.drag.source === 'pointer' && e.pointerId === this.drag.pointerId) this.cancelDrag();
    return undefined;
  }

  clearPress() {
    if (this.press?.timer) clearTimeout(this.press.timer);
    this.press = null;
  }

  /** Lifts `item`: locally at once, and asks the server for the hold. */
  lift(item, point, pointerId, source = 'pointer') {
    this.clearPress();
    const at = locate(this.state.view(), item);
    if (!at) return;
    this.drag = {
      item,
      source,
      pointerId,
      connId: this.open ? this.connId : -1,
      target: source === 'keyboard' ? { over: item, zone: at.zone.id } : null,
    };
    this.throttle.reset();
    if (source === 'pointer') {
      this.view.showGhost(item, point.x, point.y);
      this.lastPoint = point;
    }
    this.send(P.dragStart(item));
    this.render();
    this.view.announce(source === 'keyboard'
      ? `Picked up ${this.labelOf(item)}. Arrow keys choose a target, Space or Enter drops, Escape cancels.`
      : `Picked up ${this.labelOf(item)}.`);
  }

  /** Re-evaluates the pointer target (after a move or a scroll). */
  retarget() {
    const d = this.drag;
    if (!d || !this.lastPoint) return;
    const t = pickTarget(this.lastPoint, this.view.layout(), d.item, d.target);
    if (targetKey(t) === targetKey(d.target)) return;
    d.target = t;
    this.render();
    this.offerHover();
  }

  offerHover() {
    const d = this.drag;
    if (!d || d.connId !== this.connId || !this.open) return;
    let t = d.target;
    if (!t) {
      // Outside every target: the hand goes back over the tile's own place.
      const at = locate(this.state.view(), d.item);
      t = at ? { over: d.item, zone: at.zone.id } : null;
    }
    if (t) this.throttle.offer({ item: d.item, over: t.over, zone: t.zone, mode: this.mode }, `${d.item}|${targetKey(t)}`);
  }

  sendHover(t) {
    if (this.drag && this.drag.item === t.item) this.send(P.hover(t.item, t.over, t.zone, t.mode));
  }

  startAutoScroll() {
    if (this.scrollLoop) return;
    const step = () => {
      this.scrollLoop = null;
      if (!this.drag || this.drag.source !== 'pointer' || !this.lastPoint) return;
      if (this.view.autoScroll(this.lastPoint.y)) {
        this.retarget();
        this.scrollLoop = requestAnimationFrame(step);
      }
    };
    this.scrollLoop = requestAnimationFrame(step);
  }

  /** Drops the lifted tile on its target (or puts it back when there is none). */
  finishDrag() {
    const d = this.drag;
    if (!d) return;
    const op = this.opForTarget(d.item, d.target);
    const ghost = this.view.hideGhost();
    this.throttle.flush();
    this.drag = null;
    const heldHere = d.connId === this.connId && this.open;
    if (op) {
      // Held on this connection: a drop carrying the op. Otherwise the hold died with an
      // earlier connection and the op goes (now or after the reconnect) as a plain op.
      const entry = this.submit(op, heldHere ? d.item : null);
      this.recordChange([entry]);
    } else if (heldHere) {
      this.send(P.drop(d.item));
    }
    this.render({ firstRects: ghost ? new Map([[d.item, ghost]]) : undefined });
    const el = this.view.tileEl(d.item);
    if (d.source === 'keyboard' && el) el.focus({ preventScroll: true });
    if (op) {
      this.view.announce(op.type === 'swap'
        ? `Swapped ${this.labelOf(d.item)} with ${this.labelOf(op.b)}.`
        : `Moved ${this.labelOf(d.item)} to ${this.describePlace(d.item)}.`);
    } else {
      this.view.announce(`Dropped ${this.labelOf(d.item)} in its place; nothing changed.`);
    }
  }

  describePlace(item) {
    const at = locate(this.state.view(), item);
    return at ? `${at.zone.id} position ${at.index + 1} of ${at.zone.items.length}` : 'its place';
  }

  /** Puts the lifted tile back; it glides home. `silent`: the server already released it. */
  cancelDrag({ silent = false } = {}) {
    const d = this.drag;
    if (!d) return;
    const ghost = this.view.hideGhost();
    this.throttle.reset();
    this.drag = null;
    if (!silent && d.connId === this.connId && this.open) {
      // Point the hover back at the tile's own place first, so other screens' previews of
      // this drag end at once instead of waiting for an op that will not come.
      const at = locate(this.state.view(), d.item);
      if (at) this.send(P.hover(d.item, d.item, at.zone.id, this.mode));
      this.send(P.drop(d.item));
    }
    this.render({ firstRects: ghost ? new Map([[d.item, ghost]]) : undefined });
    this.view.announce(`Cancelled. ${this.labelOf(d.item)} is back in its place.`);
  }

  // ---- Paint.

  paintAt(item) {
    const s = this.paint;
    s.seen.add(item);
    const holder = this.held.get(item);
    if (holder && holder !== this.me) return;
    const it = itemById(this.state.view(), item);
    if (!it) return;
    const op = this.makeOp({ type: 'toggle', item, on: !it.on });
    s.entries.push(this.submit(op));
    this.render();
  }

  endPaint() {
    const s = this.paint;
    this.paint = null;
    if (s && s.entries.length) {
      this.recordChange(s.entries);
      this.view.announce(`Painted ${s.entries.length} tile${s.entries.length === 1 ? '' : 's'}.`);
    }
  }

  // ---- Keyboard.

  keyDown(e) {
    const inField = e.target.closest?.('input, textarea, select, [contenteditable]');
    const mod = e.ctrlKey || e.metaKey;
    if (mod && !e.altKey && (e.key === 'z' || e.key === 'Z') && !inField) {
      e.preventDefault();
      if (e.shiftKey) this.redo(); else this.undo();
      return;
    }
    if (mod && (e.key === 'y' || e.key === 'Y') && !inField) {
      e.preventDefault();
      this.redo();
      return;
    }
    if (inField || e.altKey || mod) return;
    const d = this.drag;
    if (d && d.source === 'keyboard') {
      if (e.key.startsWith('Arrow')) {
        e.preventDefault();
        const zones = this.state.view().zones.map((z, i) => ({ id: z.id, items: z.items, columns: i === 0 ? this.state.view().columns : 1 }));
        d.target = nextKeyboardTarget(zones, d.target, e.key);
        this.render();
        this.offerHover();
        this.view.announce(d.target.over === d.item ? `Over its own place.` : `Over ${this.describeTarget(d.target)}.`);
      } else if (e.key === ' ' || e.key === 'Enter') {
        e.preventDefault();
        this.finishDrag();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        this.cancelDrag();
      } else if (e.key === 'Tab') {
        this.cancelDrag();
      }
      return;
    }
    if (d && e.key === 'Escape') {
      e.preventDefault();
      this.cancelDrag();
      return;
    }
    const tile = e.target.closest?.('[data-item]');
    if (tile && (e.key === ' ' || e.key === 'Enter') && !d) {
      e.preventDefault();
      const item = tile.dataset.item;
      const holder = this.held.get(item);
      if (holder && holder !== this.me) {
        const text = `${this.user(holder).name} is holding that tile`;
        this.view.toast(text);
        this.view.announce(text);
        return;
      }
      if (this.mode === 'paint') {
        this.paint = { pointerId: null, seen: new Set(), entries: [] };
        this.paintAt(item);
        this.endPaint();
        return;
      }
      this.lift(item, null, null, 'keyboard');
      return;
    }
    const modeKeys = { s: 'swap', m: 'move', p: 'paint' };
    if (modeKeys[e.key] && !d) {
      this.setMode(modeKeys[e.key]);
      this.view.announce(`${modeKeys[e.key]} mode`);
    }
  }

  // ---- Undo and redo.

  undo() { this.revert('undo'); }

  redo() { this.revert('redo'); }

  revert(kind) {
    const change = kind === 'undo' ? this.history.peekUndo() : this.history.peekRedo();
    if (!change) {
      this.view.toast(kind === 'undo' ? 'Nothing to undo' : 'Nothing to redo');
      return;
    }
    const check = canRevert(change, this.state, this.me);
    if (!check.ok) {
      if (check.why === 'pending') {
        this.view.toast('Still saving that change; try again in a moment');
        return;
      }
      // It can never be reverted now: drop it so the next one is reachable.
      if (kind === 'undo') this.history.popUndo(); else this.history.popRedo();
      const text = check.why === 'changed'
        ? `Can't ${kind}: ${this.user(check.by).name} changed those tiles since`
        : `Can't ${kind}: that change is too old`;
      this.view.toast(text);
      this.view.announce(text);
      return;
    }
    if (kind === 'undo') this.history.popUndo(); else this.history.popRedo();
    const entries = [];
    for (const e of [...change.ops].reverse()) {
      if (e.inverse) entries.push(this.submit(this.makeOp(e.inverse)));
    }
    if (entries.length) this.recordChange(entries, kind === 'undo' ? 'undo' : 'redo');
    this.render();
    this.view.announce(kind === 'undo' ? 'Undone.' : 'Redone.');
  }
}

const root = document.getElementById('app');
if (root) {
  const app = new App(root, window);
  app.start();
  // For debugging from the console; nothing depends on it.
  window.shuffleboard = app;
}
