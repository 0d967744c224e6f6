// The DOM: renders boards, people and messages. Only this module touches elements; user text
// (labels, details, names, titles) goes in with textContent, never as HTML. Colors are set
// through the CSSOM (el.style.setProperty), which a strict CSP allows.

import { el } from './dom.js';
import { Hands } from './hands.js';
import { layoutKey } from './layout.js';
import { StartPage } from './startpage.js';
import { Toolbar } from './toolbar.js';
import { Editors } from './view-edit.js';
import { autoScroll } from './autoscroll.js';
import { Ghost } from './ghost.js';
import { Messages } from './messages.js';
import { VirtualZones } from './virtual.js';
import { buildZones } from './zone-build.js';
import { FLIP_MS, decorateTile, fadeCopy, flipTiles, iconButton, newTile, pulseTiles, tileKey } from './tile-view.js';

export { PALETTE } from './view-edit.js';

/** The page's view. `root` is the #app element. */
export class View {
  constructor(root) {
    this.root = root;
    this.doc = root.ownerDocument;
    this.boardEl = root.querySelector('#board');
    this.zonesEl = root.querySelector('#zones');
    this.titleEl = root.querySelector('#board-title');
    this.handsEl = root.querySelector('#hands');
    this.tiles = new Map();
    this.zoneEls = new Map();
    this.layouts = new Map(); // zone id → its layout (layout.js)
    this.zoneKey = '';
    this.hands = new Hands(this);
    this.startPage = new StartPage(root);
    this.toolbar = new Toolbar(root);
    this.editors = new Editors(this);
    this.ghostView = new Ghost(this);
    this.messages = new Messages(root);
    this.virtual = new VirtualZones(this);
    /** The last board rendered and its decorations (a column's scroll renders them again). */
    this.lastBoard = null;
    this.lastDeco = {};
    /** Items to keep rendered in windowed columns until the next render (reveal, focus). */
    this.pins = new Set();
    /**
     * True while renderBoard moves elements: a field that loses the focus because its tile or
     * zone was moved or rebuilt has not been left by the person typing in it, so its editor
     * stays open (and gets the focus back at the end of the render).
     */
    this.rendering = false;
    /** The hit-test rectangles of a drag, kept while nothing moved (layout()), and when tiles stop gliding. */
    this.rects = null;
    this.settled = 0;
    /** Where each item is in the last board's `items` (item()). */
    this.itemIndex = new Map();
    this.itemIndexOf = null;
  }

  /** The connection state, in the toolbar (toolbar.js). */
  setConnection(state) {
    this.toolbar.setConnection(state);
  }

  /** Marks the root with the last applied seq. */
  setSeq(seq) {
    this.root.dataset.seq = String(seq);
  }

  /** The current mode, pressed in the toolbar. */
  setMode(mode) {
    this.toolbar.setMode(mode);
  }

  /** Shows the board page, the start page ('home') or the "no such board" page ('missing'). */
  showPage(page) {
    this.root.querySelector('#home').hidden = page !== 'home';
    this.root.querySelector('#missing').hidden = page !== 'missing';
    this.boardEl.hidden = page !== 'board';
    this.titleEl.hidden = page !== 'board';
    this.toolbar.showPage(page);
  }

  /** Says a link was copied (the button reads "Copied" for a moment), or shows it to copy by hand. */
  copied(ok, link) {
    this.toolbar.copied(ok);
    this.toast(ok ? 'Copied the link to this board' : `Copy this link: ${link}`, ok ? 3500 : 8000);
  }

  /**
   * Renders `board` with decorations:
   * {held: Map item→user, me, dragging, over (swap-mode hover target item), lifted (keyboard),
   *  keyboardTarget {over, zone}, remoteOver: Map item→user, firstRects: Map item→DOMRect}.
   * Reorders keep the tile elements (keyed by item id) and animate them (FLIP).
   */
  renderBoard(board, deco = {}) {
    this.lastBoard = board;
    this.lastDeco = deco;
    const held = deco.held ?? new Map();
    // While a drag is under way (scroll snapping waits: board.css).
    this.root.toggleAttribute('data-dragging', !!(deco.dragging || deco.lifted));
    this.titleEl.textContent = board.title;
    this.doc.title = `${board.title} — shuffleboard`;
    // Where the tiles are before the render, for FLIP: the hit-test rectangles of this drag when
    // nothing moved since they were read (no second read of every tile on each new target).
    const first = this.tileRects();
    if (deco.firstRects) for (const [id, r] of deco.firstRects) first.set(id, r);
    this.rects = null;
    const active = this.doc.activeElement;
    // A field being typed in (a card's editor, its palette, a column's new title, an "Add card"
    // field) keeps the focus and its caret through the render; otherwise a focused tile (or its
    // handle) does.
    const text = !!active?.matches?.('input');
    const field = (text || active?.closest?.('.card-editor')) && this.zonesEl.contains(active)
      ? { el: active, caret: text ? [active.selectionStart, active.selectionEnd, active.selectionDirection ?? 'none'] : null }
      : null;
    const focused = field ? null : active?.closest?.('[data-item]')?.dataset.item;
    const onHandle = !!active?.matches?.('[data-handle]');
    this.rendering = true;
    try {
      this.placeTiles(board, held, deco, focused);
    } finally {
      this.rendering = false;
      this.pins.clear();
    }
    // The glides first: their reads lay the page out once, which the focus calls below then find done.
    if (this.flip(first, deco.dragging)) this.settled = performance.now() + FLIP_MS + 20;
    if (field && field.el.isConnected && this.doc.activeElement !== field.el) {
      field.el.focus({ preventScroll: true });
      if (field.caret) {
        try { field.el.setSelectionRange(...field.caret); } catch { /* a field without a caret */ }
      }
    }
    if (focused && this.tiles.has(focused)) {
      const el = this.tiles.get(focused);
      const target = (onHandle && el.querySelector('[data-handle]')) || (el.tabIndex >= 0 ? el : el.querySelector('[data-handle]'));
      if (target && this.doc.activeElement !== target) target.focus({ preventScroll: true });
    }
    this.hands.run();
  }

  /** Builds the zones when their layout changed, and puts every tile in its place. */
  placeTiles(board, held, deco, focused) {
    const key = layoutKey(board);
    if (key !== this.zoneKey) this.buildZones(board, key);
    const seen = new Set();
    const decoration = { ...deco, tags: board.tags, tagsKey: JSON.stringify(board.tags ?? []), hiddenItems: deco.hiddenItems };
    // What a windowed zone keeps rendered wherever it is scrolled to (virtual.js).
    const pins = new Set(this.pins);
    for (const id of [deco.dragging, deco.lifted, deco.over, deco.keyboardTarget?.over, focused]) if (id) pins.add(id);
    for (const e of this.zonesEl.querySelectorAll('[data-item] .card-editor, [data-item] .inline-edit')) {
      const id = e.closest('[data-item]')?.dataset.item;
      if (id) pins.add(id);
    }
    // Every windowed zone's scroll and box, read before anything else is written (a zone windowed
    // just now gets its class first: it is what makes it scroll on its own).
    const windowed = board.zones.filter((zone) => this.virtual.windowed(this.layouts.get(zone.id), zone.items.length));
    for (const zone of windowed) this.zoneEls.get(zone.id).classList.add('is-windowed');
    const boxes = new Map(windowed.map((zone) => [zone.id, this.virtual.read(zone.id, this.zoneEls.get(zone.id), this.layouts.get(zone.id))]));
    for (const zone of board.zones) {
      const list = this.zoneEls.get(zone.id);
      const lay = this.layouts.get(zone.id);
      const place = (id, index, count) => {
        const item = this.item(board, id);
        if (!item) return null;
        seen.add(id);
        const tile = this.tile(item);
        this.decorate(tile, item, { held, deco: decoration, lay, index, count });
        return tile;
      };
      if (boxes.has(zone.id)) {
        this.placeWindow(zone, list, boxes.get(zone.id), place, pins, deco.hiddenItems);
      } else {
        if (list.classList.contains('is-windowed')) {
          for (const pad of list.querySelectorAll(':scope > .virtual-pad')) pad.remove();
          list.classList.remove('is-windowed');
        }
        let cursor = list.firstElementChild;
        zone.items.forEach((id, index) => {
          const tile = place(id, index, zone.items.length);
          if (!tile) return;
          if (tile !== cursor) list.insertBefore(tile, cursor);
          else cursor = cursor.nextElementSibling;
        });
      }
      const empty = zone.items.length === 0 ? 'true' : 'false';
      if (list.parentElement.dataset.empty !== empty) list.parentElement.dataset.empty = empty;
      const zoneTarget = deco.keyboardTarget && deco.keyboardTarget.over == null && deco.keyboardTarget.zone === zone.id;
      const pointerZone = deco.overZone === zone.id;
      list.classList.toggle('is-zone-target', !!(zoneTarget || pointerZone));
    }
    for (const [id, tile] of this.tiles) {
      if (!seen.has(id)) { tile.remove(); this.tiles.delete(id); }
    }
  }

  /**
   * The item `id` of `board`, or null. Found through the index of each id in `board.items`, kept
   * from render to render and built again only when it no longer matches (cards added or
   * removed): a map of every card built on each render cost more than the render at 10,000 cards,
   * and a board copied for a preview keeps its cards in the same order.
   */
  item(board, id) {
    let item = board.items[this.itemIndex.get(id)];
    if (item?.id === id) return item;
    if (this.itemIndexOf === board.items) return null; // built from this very array: not there
    this.itemIndex.clear();
    board.items.forEach((it, i) => this.itemIndex.set(it.id, i));
    this.itemIndexOf = board.items;
    item = board.items[this.itemIndex.get(id)];
    return item?.id === id ? item : null;
  }

  /**
   * A windowed zone (virtual.js): tiles for the lines in its box and a screen around it, and for
   * the lines of the pinned items wherever they are; spacers for the rest. Filtered-out cards are
   * left out of the window (they would be hidden tiles of no size).
   */
  placeWindow(zone, list, box, place, pins, hidden) {
    const shown = hidden?.size ? zone.items.filter((id) => !hidden.has(id)) : zone.items;
    const position = hidden?.size ? new Map(zone.items.map((id, i) => [id, i])) : null;
    if (list.dataset.count !== String(shown.length)) list.dataset.count = String(shown.length);
    const pinned = [];
    for (const id of pins) {
      const i = shown.indexOf(id);
      if (i >= 0) pinned.push(i);
    }
    const gap = this.virtual.gap(zone.id, list);
    const pads = [...list.querySelectorAll(':scope > .virtual-pad')];
    let cursor = list.firstElementChild;
    for (const seg of this.virtual.plan(zone.id, box, shown.length, pinned)) {
      let node;
      if (seg.pad) {
        node = pads.shift() ?? el(this.doc, 'li', { className: 'virtual-pad', attrs: { 'aria-hidden': 'true' } });
        if (node.dataset.next !== shown[seg.from]) node.dataset.next = shown[seg.from];
        this.virtual.size(node, zone.id, seg.pad, gap);
      } else {
        const id = shown[seg.index];
        node = place(id, position ? position.get(id) : seg.index, zone.items.length);
        if (!node) continue;
      }
      if (node !== cursor) list.insertBefore(node, cursor);
      else cursor = cursor.nextElementSibling;
    }
    for (const pad of pads) pad.remove();
    // Measured now (once a zone): planned again with the real line size, from where it is now.
    if (this.virtual.measure(zone.id, list)) this.placeWindow(zone, list, this.virtual.box(zone.id, list), place, pins, hidden);
  }

  /** Builds the zones (zone-build.js). */
  buildZones(board, key) {
    buildZones(this, board, key);
  }

  /** A small icon button carrying `data-action` (and the other `data` members given), named `label`. */
  button(name, label, data) {
    return iconButton(this.doc, name, label, data);
  }

  /** Editing in place (view-edit.js): a text, a card, a column title, a new card, the board title. */
  editText(...args) { return this.editors.editText(...args); }
  editCard(...args) { return this.editors.editCard(...args); }
  editZoneTitle(...args) { return this.editors.editZoneTitle(...args); }
  newCardField(...args) { return this.editors.newCardField(...args); }
  editBoardTitle(...args) { return this.editors.editBoardTitle(...args); }

  /**
   * Someone else removed the tile of `id`: a copy fades out where it was (the tile itself goes
   * with the next render).
   */
  fade(id) {
    const src = this.tiles.get(id);
    if (src) fadeCopy(this.doc, this.root, src);
  }

  tile(item) {
    let tile = this.tiles.get(item.id);
    if (!tile) {
      tile = newTile(this.doc, item.id);
      this.tiles.set(item.id, tile);
    }
    return tile;
  }

  /** Decorates a tile (tile-view.js), unless what it shows is what it showed at the last render. */
  decorate(tile, item, opts) {
    const key = tileKey(item, opts);
    if (tile.shown === key) return;
    tile.shown = key;
    decorateTile(this.doc, tile, item, opts);
  }

  /** FLIP: animates tiles from their previous rectangles to where they are now; true when one glides. */
  flip(first, skip) {
    return flipTiles(this.tiles, first, skip);
  }

  /** Shakes tiles (a rejected op) and flashes tiles another person changed. */
  pulse(ids, kind, color) {
    pulseTiles(ids.map((id) => this.tiles.get(id)).filter(Boolean), kind, color);
  }

  /** The tile element for an item id. */
  tileEl(id) {
    return this.tiles.get(id) ?? null;
  }

  /** True while the card of `id` has its editor open. */
  isEditing(id) {
    return !!this.tiles.get(id)?.querySelector('.card-editor');
  }

  /** True while a field of the zone `id` is open or holds text: its new title, a new card. */
  isTypingInZone(id) {
    const wrap = this.zonesEl.querySelector(`[data-zone-wrap="${CSS.escape(id)}"]`);
    if (!wrap) return false;
    return !!wrap.querySelector('.zone-head > .inline-edit') || !!wrap.querySelector('[data-add-card] input')?.value;
  }

  /** Scrolls the tile of `id` into sight (its zone and the page), as little as needed. */
  reveal(id) {
    this.bringIn(id);
    this.tiles.get(id)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  /**
   * Makes sure the tile of `id` is rendered: in a windowed column, scrolls the column to its row
   * and renders again (with it pinned, in case the measure is off). False when it is not on the board.
   */
  bringIn(id) {
    if (this.tiles.has(id)) return true;
    const board = this.lastBoard;
    const zone = board?.zones.find((z) => z.items.includes(id));
    if (!zone) return false;
    const list = this.zoneEls.get(zone.id);
    if (list && this.virtual.windowed(this.layouts.get(zone.id), zone.items.length)) {
      const hidden = this.lastDeco.hiddenItems;
      const shown = hidden?.size ? zone.items.filter((i) => !hidden.has(i)) : zone.items;
      this.virtual.bringIntoBox(zone.id, list, Math.max(0, shown.indexOf(id)));
    }
    this.pins.add(id);
    if (this.virtual.changed) this.virtual.changed();
    else this.renderBoard(board, { ...this.lastDeco, firstRects: undefined });
    return this.tiles.has(id);
  }

  /**
   * Moves the focus from the card `id` along its zone: in a list, ArrowUp/ArrowDown one card; in
   * a grid, ArrowLeft/ArrowRight one card and ArrowUp/ArrowDown one row of its columns; in a row,
   * ArrowLeft/ArrowRight; Home/End to the zone's first/last card. A card not rendered (a windowed
   * zone) is brought in first. True when it moved (elsewhere the key keeps its use).
   */
  step(id, key) {
    const zone = this.lastBoard?.zones.find((z) => z.items.includes(id));
    const lay = zone && this.layouts.get(zone.id);
    if (!lay) return false;
    const hidden = this.lastDeco.hiddenItems;
    const shown = hidden?.size ? zone.items.filter((i) => !hidden.has(i)) : zone.items;
    const at = shown.indexOf(id);
    const across = lay.layout === 'grid' ? lay.columns : null; // Up/Down in a grid
    const moves = { Home: -at, End: shown.length - 1 - at };
    if (lay.layout === 'list') Object.assign(moves, { ArrowUp: -1, ArrowDown: 1 });
    else Object.assign(moves, { ArrowLeft: -1, ArrowRight: 1 }, across ? { ArrowUp: -across, ArrowDown: across } : {});
    const to = moves[key] == null ? null : at + moves[key];
    if (to == null || to < 0 || to >= shown.length || to === at) return false;
    this.reveal(shown[to]);
    this.focusItem(shown[to]);
    return true;
  }

  /** Focuses the control of an item: its handle in a handle-only zone, else the tile. */
  focusItem(id) {
    this.bringIn(id);
    const el = this.tiles.get(id);
    if (!el) return;
    (el.querySelector(':scope > [data-handle]') ?? el).focus({ preventScroll: true });
  }

  /**
   * Zones and tiles with their rectangles, in layout order, for hit testing. During a pointer
   * drag they are read once and kept until the next render or until something scrolled (every
   * pointer move asks; reading every tile's rectangle each time is what made a drag's frames long).
   */
  layout() {
    const stamp = this.scrollStamp();
    if (this.rects && this.rects.stamp === stamp) return this.rects.zones;
    const zones = [];
    for (const [id, list] of this.zoneEls) {
      // A windowed zone's spacers stand for the cards they hide: one is the card after it
      // (a drop on it goes before that card, which the next render puts on screen).
      const tiles = [];
      for (const e of list.children) {
        if (e.dataset.item) tiles.push({ id: e.dataset.item, rect: e.getBoundingClientRect() });
        else if (e.dataset.next) tiles.push({ id: e.dataset.next, rect: e.getBoundingClientRect(), pad: true });
      }
      zones.push({ id, rect: list.getBoundingClientRect(), layout: this.layouts.get(id)?.layout, tiles });
    }
    // Not while tiles still glide (FLIP): their rectangles are moving.
    this.rects = this.lastDeco.dragging && performance.now() >= this.settled ? { stamp, zones } : null;
    return zones;
  }

  /** Where the window and every zone (and the lanes holding them) are scrolled to, as a string. */
  scrollStamp() {
    const win = this.doc.defaultView;
    const parts = [win.scrollX, win.scrollY, win.innerWidth, win.innerHeight];
    for (const list of this.zoneEls.values()) {
      parts.push(list.scrollTop, list.scrollLeft);
      if (list.parentElement?.parentElement?.classList.contains('lanes')) parts.push(list.parentElement.parentElement.scrollLeft);
    }
    return parts.join(',');
  }

  /** Every rendered tile's rectangle (id → DOMRect): from the drag's hit-test rectangles when still current. */
  tileRects() {
    const first = new Map();
    if (this.rects && this.rects.stamp === this.scrollStamp()) {
      for (const z of this.rects.zones) for (const t of z.tiles) if (!t.pad) first.set(t.id, t.rect);
      return first;
    }
    for (const [id, tile] of this.tiles) first.set(id, tile.getBoundingClientRect());
    return first;
  }

  /** The item id under the viewport point, or null. */
  itemAt(x, y) {
    const el = this.doc.elementFromPoint(x, y)?.closest?.('[data-item]');
    return el && this.tiles.has(el.dataset.item) ? el.dataset.item : null;
  }

  // ---- The local ghost (ghost.js): the lifted tile following the pointer.

  showGhost(id, x, y) { this.ghostView.show(id, x, y); }
  refreshGhost() { this.ghostView.refresh(); }
  moveGhost(x, y) { this.ghostView.move(x, y); }
  hideGhost() { return this.ghostView.hide(); }
  get ghost() { return this.ghostView.ghost; }

  // ---- People and messages (messages.js).

  renderPresence(users, me, count = null) { this.messages.renderPresence(users, me, count); }
  toast(text, ms = 3500, action = null) { this.messages.toast(text, ms, action); }
  announce(text) { this.messages.announce(text); }
  announceOthers(text) { this.messages.announceOthers(text); }

  /** Keeps the pointer's neighbourhood visible during a drag (autoscroll.js); true while something scrolled. */
  autoScroll(x, y) {
    return autoScroll(this.doc, x, y);
  }
}
