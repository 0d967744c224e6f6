// The DOM: renders boards, people and messages. Only this module touches elements; user text
// (labels, details, names, titles) goes in with textContent, never as HTML. Colors are set
// through the CSSOM (el.style.setProperty), which a strict CSP allows.

import { el, reducedMotion } from './dom.js';
import { Hands } from './hands.js';
import { arrangeZones, layoutKey, zoneLayouts } from './layout.js';
import { StartPage } from './startpage.js';
import { Toolbar } from './toolbar.js';
import { Editors } from './view-edit.js';
import { icon } from './icons.js';
import { cardFace } from './cardface.js';
import { edgeSpeed } from './geometry.js';
import { Ghost } from './ghost.js';
import { Messages } from './messages.js';
import { VirtualZones } from './virtual.js';

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
    const first = new Map();
    for (const [id, el] of this.tiles) first.set(id, el.getBoundingClientRect());
    if (deco.firstRects) for (const [id, r] of deco.firstRects) first.set(id, r);
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
    this.flip(first, deco.dragging);
    this.hands.run();
  }

  /** Builds the zones when their layout changed, and puts every tile in its place. */
  placeTiles(board, held, deco, focused) {
    const key = layoutKey(board);
    if (key !== this.zoneKey) this.buildZones(board, key);
    const items = new Map(board.items.map((i) => [i.id, i]));
    const seen = new Set();
    const decoration = { ...deco, tags: board.tags, hiddenItems: deco.hiddenItems };
    // What a windowed column keeps rendered wherever it is scrolled to (virtual.js).
    const pins = new Set(this.pins);
    for (const id of [deco.dragging, deco.lifted, deco.over, deco.keyboardTarget?.over, focused]) if (id) pins.add(id);
    for (const [id, tile] of this.tiles) if (tile.querySelector('.card-editor, .inline-edit')) pins.add(id);
    for (const zone of board.zones) {
      const list = this.zoneEls.get(zone.id);
      const lay = this.layouts.get(zone.id);
      const place = (id, index, count) => {
        const item = items.get(id);
        if (!item) return null;
        seen.add(id);
        const el = this.tile(item);
        this.decorate(el, item, { held, deco: decoration, lay, index, count });
        return el;
      };
      if (this.virtual.windowed(lay, zone.items.length)) {
        this.placeWindow(zone, list, place, pins, deco.hiddenItems);
      } else {
        for (const pad of list.querySelectorAll(':scope > .virtual-pad')) pad.remove();
        list.classList.remove('is-windowed');
        let cursor = list.firstElementChild;
        zone.items.forEach((id, index) => {
          const el = place(id, index, zone.items.length);
          if (!el) return;
          if (el !== cursor) list.insertBefore(el, cursor);
          else cursor = cursor.nextElementSibling;
        });
      }
      list.parentElement.dataset.empty = zone.items.length === 0 ? 'true' : 'false';
      const zoneTarget = deco.keyboardTarget && deco.keyboardTarget.over == null && deco.keyboardTarget.zone === zone.id;
      const pointerZone = deco.overZone === zone.id;
      list.classList.toggle('is-zone-target', !!(zoneTarget || pointerZone));
    }
    for (const [id, el] of this.tiles) {
      if (!seen.has(id)) { el.remove(); this.tiles.delete(id); }
    }
  }

  /**
   * A windowed column (virtual.js): tiles for the rows in its box and a screen around it, and
   * for the pinned items wherever they are; spacers for the rest. Filtered-out cards are left out
   * of the window (they would be hidden tiles of no height).
   */
  placeWindow(zone, list, place, pins, hidden) {
    const shown = hidden?.size ? zone.items.filter((id) => !hidden.has(id)) : zone.items;
    const position = hidden?.size ? new Map(zone.items.map((id, i) => [id, i])) : null;
    list.classList.add('is-windowed');
    list.dataset.count = String(shown.length);
    const pinned = [];
    for (const id of pins) {
      const i = shown.indexOf(id);
      if (i >= 0) pinned.push(i);
    }
    const gap = parseFloat(this.doc.defaultView.getComputedStyle(list).rowGap) || 0;
    const pads = [...list.querySelectorAll(':scope > .virtual-pad')];
    let cursor = list.firstElementChild;
    for (const seg of this.virtual.plan(zone.id, list, shown.length, pinned)) {
      let node;
      if (seg.pad) {
        node = pads.shift() ?? el(this.doc, 'li', { className: 'virtual-pad', attrs: { 'aria-hidden': 'true' } });
        node.dataset.next = shown[seg.from];
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
    if (this.virtual.measure(zone.id, list)) this.placeWindow(zone, list, place, pins, hidden);
  }

  /**
   * Builds the zones: each a titled section holding an `<ol data-zone data-layout>` (a grid of
   * its columns, a row or a list); neighbouring lists stand side by side as lanes.
   */
  buildZones(board, key) {
    // What someone is typing in an "Add card" field survives a rebuild (another person renamed
    // or added a column meanwhile), focus and caret included.
    const typed = new Map();
    for (const form of this.zonesEl.querySelectorAll('[data-add-card]')) {
      const input = form.querySelector('input');
      if (input.value || this.doc.activeElement === input) {
        typed.set(form.dataset.addCard, { value: input.value, focused: this.doc.activeElement === input, at: input.selectionStart });
      }
    }
    // So does a column title being edited, or a grid's new card being typed (their fields are
    // moved into the new heading); one for a column that is gone goes with it, unsent.
    const heads = [...this.zonesEl.querySelectorAll('.zone-head > .inline-edit')]
      .map((input) => ({ input, zone: input.closest('[data-zone-wrap]')?.dataset.zoneWrap }));
    this.zonesEl.replaceChildren();
    this.zoneEls.clear();
    this.layouts.clear();
    this.virtual.reset();
    this.zoneKey = key;
    for (const band of arrangeZones(zoneLayouts(board))) {
      let parent = this.zonesEl;
      if (band.lanes.length > 1) {
        parent = el(this.doc, 'div', { className: 'lanes', style: { '--lanes': String(band.lanes.length) } });
        this.zonesEl.append(parent);
      }
      for (const lay of band.lanes) {
        const section = el(this.doc, 'section', {
          className: `zone-wrap zone-wrap-${lay.layout}`, dataset: { zoneWrap: lay.id },
        });
        // The heading, then the zone's editing buttons beside it (a grid adds cards from here:
        // a field under it would push the zones below it down).
        const h = el(this.doc, 'div', { className: 'zone-head' },
          el(this.doc, 'h2', { className: 'zone-title', text: lay.title }));
        if (lay.layout === 'grid') h.append(this.button('plus', `Add card to ${lay.title}`, { action: 'add-card', column: lay.id }));
        h.append(
          this.button('pencil', `Rename ${lay.title}`, { action: 'rename-zone', column: lay.id }),
          this.button('trash', `Remove ${lay.title}`, { action: 'remove-zone', column: lay.id }),
        );
        const list = el(this.doc, 'ol', {
          className: `zone zone-${lay.layout}${lay.dense ? ' is-dense' : ''}${lay.handle ? ' has-handles' : ''}`,
          dataset: { zone: lay.id, layout: lay.layout, ...(lay.axis ? { axis: lay.axis } : {}) },
          attrs: { 'aria-label': lay.title },
          style: lay.layout === 'grid' ? { '--columns': String(lay.columns) } : {},
        });
        const empty = el(this.doc, 'p', { className: 'zone-empty', text: lay.layout === 'list' ? 'No cards yet — add one' : 'Drop here' });
        // "Add card" at the end of every zone: Enter adds, the input stays for the next one.
        const input = el(this.doc, 'input', {
          name: 'label', autocomplete: 'off', maxLength: 200, placeholder: 'Add card',
          attrs: { 'aria-label': `New card in ${lay.title}` },
        });
        const form = el(this.doc, 'form', { className: 'add-card', dataset: { addCard: lay.id } },
          input, el(this.doc, 'button', { type: 'submit', text: 'Add', attrs: { 'aria-label': `Add card to ${lay.title}` } }));
        section.append(h, list, empty);
        if (lay.layout !== 'grid') section.append(form);
        parent.append(section);
        this.zoneEls.set(lay.id, list);
        this.layouts.set(lay.id, lay);
        for (const { input } of heads.filter((o) => o.zone === lay.id)) {
          const target = h.querySelector(input.dataset.editOf === 'add' ? '[data-action="add-card"]' : '.zone-title');
          if (target) input.retarget(target);
        }
        const kept = typed.get(lay.id);
        if (kept && lay.layout !== 'grid') {
          input.value = kept.value;
          if (kept.focused) {
            input.focus({ preventScroll: true });
            input.setSelectionRange(kept.at, kept.at);
          }
        }
      }
    }
  }

  /** A small icon button carrying `data-action` (and the other `data` members given), named `label`. */
  button(name, label, data) {
    return el(this.doc, 'button', {
      type: 'button', className: `icon-button ${data.action}`, title: label, attrs: { 'aria-label': label },
      dataset: data,
    }, icon(this.doc, name));
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
    if (!src || reducedMotion()) return;
    const r = src.getBoundingClientRect();
    const g = el(this.doc, 'div', {
      className: 'tile fading', attrs: { 'aria-hidden': 'true' },
      style: {
        '--tile-color': src.style.getPropertyValue('--tile-color'),
        left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px`,
      },
    }, el(this.doc, 'span', { className: 'tile-label', text: src.querySelector('.tile-label')?.textContent ?? '' }));
    this.root.append(g);
    setTimeout(() => g.remove(), 600);
  }

  tile(item) {
    let tile = this.tiles.get(item.id);
    if (!tile) {
      const remove = this.button('close', 'Remove', { action: 'remove-card' }); // the card: its tile
      remove.tabIndex = -1; // Delete on the focused tile does it from the keyboard
      tile = el(this.doc, 'li', { className: 'tile', dataset: { item: item.id } },
        el(this.doc, 'span', { className: 'tile-text' },
          el(this.doc, 'span', { className: 'tile-label' }), el(this.doc, 'span', { className: 'tile-detail' }),
          el(this.doc, 'span', { className: 'tile-meta' })),
        el(this.doc, 'span', { className: 'tile-on', attrs: { 'aria-hidden': 'true' } }),
        el(this.doc, 'span', { className: 'tile-holder' }),
        remove);
      this.tiles.set(item.id, tile);
    }
    return tile;
  }

  decorate(el, item, { held, deco, lay, index, count }) {
    const label = el.querySelector('.tile-label');
    if (label.textContent !== item.label) label.textContent = item.label;
    const detail = el.querySelector('.tile-detail');
    const detailText = typeof item.detail === 'string' ? item.detail : '';
    if (detail.textContent !== detailText) detail.textContent = detailText;
    el.style.setProperty('--tile-color', item.color);
    cardFace(this.doc, el.querySelector('.tile-meta'), item, deco.tags ?? []);
    el.hidden = !!deco.hiddenItems?.has(item.id);
    if (item.on) el.dataset.on = 'true';
    else delete el.dataset.on;
    el.querySelector('.tile-on').textContent = item.on ? 'ON' : '';
    const holder = held.get(item.id);
    const badge = el.querySelector('.tile-holder');
    if (holder && holder.id !== deco.me) {
      el.dataset.heldBy = holder.id;
      el.style.setProperty('--holder-color', holder.color || '#333');
      badge.textContent = holder.name || holder.id;
    } else if (holder) {
      el.dataset.heldBy = holder.id;
      badge.textContent = '';
    } else {
      delete el.dataset.heldBy;
      badge.textContent = '';
    }
    const remote = deco.remoteOver?.get(item.id);
    if (remote) el.style.setProperty('--remote-color', remote.color || '#333');
    el.classList.toggle('is-remote-over', !!remote);
    el.classList.toggle('is-placeholder', deco.dragging === item.id);
    el.classList.toggle('is-lifted', deco.lifted === item.id);
    el.classList.toggle('is-over', deco.over === item.id);
    el.classList.toggle('is-kbd-target', !!deco.keyboardTarget && deco.keyboardTarget.over === item.id && deco.lifted !== item.id);
    const state = item.on ? ', on' : '';
    const who = holder && holder.id !== deco.me ? `, held by ${holder.name || holder.id}` : '';
    const place = `${lay?.title ?? ''} ${index + 1} of ${count}`.trim();
    const name = `${item.label}${detailText ? ` (${detailText})` : ''}${state}, ${place}${who}`;
    const remove = el.querySelector(':scope > [data-action="remove-card"]');
    if (remove) {
      remove.setAttribute('aria-label', `Remove ${item.label}`);
      remove.disabled = !!(holder && holder.id !== deco.me); // someone is dragging it
    }
    // Handle-only zones: the row is plain text (it scrolls and selects); its handle is the
    // control that lifts it, the tab stop and what screen readers name.
    const handle = this.handle(el, !!lay?.handle);
    if (handle) {
      el.removeAttribute('tabindex');
      el.removeAttribute('role');
      el.removeAttribute('aria-roledescription');
      el.removeAttribute('aria-describedby');
      el.removeAttribute('aria-label');
      el.removeAttribute('aria-pressed');
      handle.setAttribute('aria-label', `Move ${name}`);
    } else if (el.getAttribute('role') !== 'button') {
      el.tabIndex = 0;
      el.setAttribute('role', 'button');
      el.setAttribute('aria-roledescription', 'draggable tile');
      el.setAttribute('aria-describedby', 'kbd-help');
    }
    if (!handle) {
      el.setAttribute('aria-label', name);
      el.setAttribute('aria-pressed', item.on ? 'true' : 'false');
    }
  }

  /** Gives `tile` its drag handle (a button at the row's end) or takes it away; returns it. */
  handle(tile, wanted) {
    let h = tile.querySelector(':scope > [data-handle]');
    if (wanted && !h) {
      h = el(this.doc, 'button', {
        type: 'button', className: 'tile-handle', dataset: { handle: '' },
        attrs: { 'aria-roledescription': 'drag handle', 'aria-describedby': 'kbd-help' },
      }, el(this.doc, 'span', { text: '⠿', attrs: { 'aria-hidden': 'true' } }));
      tile.append(h);
    } else if (!wanted && h) {
      h.remove();
      h = null;
    }
    return h;
  }

  /** FLIP: animates tiles from their previous rectangles to where they are now. */
  flip(first, skip) {
    if (reducedMotion()) return;
    for (const [id, el] of this.tiles) {
      const a = first.get(id);
      if (!a || id === skip) continue;
      const b = el.getBoundingClientRect();
      const dx = a.left - b.left;
      const dy = a.top - b.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      el.animate?.(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'none' }],
        { duration: 220, easing: 'cubic-bezier(.2,.8,.2,1)' },
      );
    }
  }

  /** Shakes tiles (a rejected op) and flashes tiles another person changed. */
  pulse(ids, kind, color) {
    for (const id of ids) {
      const el = this.tiles.get(id);
      if (!el) continue;
      if (color) el.style.setProperty('--pulse-color', color);
      el.classList.remove(`pulse-${kind}`);
      void el.offsetWidth;
      el.classList.add(`pulse-${kind}`);
      el.addEventListener('animationend', () => el.classList.remove(`pulse-${kind}`), { once: true });
    }
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
   * Moves the focus from the card `id` along its column (a list zone): `key` ArrowUp/ArrowDown
   * one card, Home/End to the first/last. True when it moved (elsewhere the key keeps its use).
   */
  step(id, key) {
    const zone = this.lastBoard?.zones.find((z) => z.items.includes(id));
    if (!zone || this.layouts.get(zone.id)?.layout !== 'list') return false;
    const hidden = this.lastDeco.hiddenItems;
    const shown = hidden?.size ? zone.items.filter((i) => !hidden.has(i)) : zone.items;
    const at = shown.indexOf(id);
    const to = { ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: shown.length - 1 }[key];
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

  /** Zones and tiles with their rectangles, in layout order, for hit testing. */
  layout() {
    const zones = [];
    for (const [id, list] of this.zoneEls) {
      // A windowed column's spacers stand for the cards they hide: one is the card after it
      // (a drop on it goes before that card, which the next render puts on screen).
      const tiles = [...list.children]
        .filter((el) => el.dataset.item || el.dataset.next)
        .map((el) => ({ id: el.dataset.item ?? el.dataset.next, rect: el.getBoundingClientRect() }));
      zones.push({ id, rect: list.getBoundingClientRect(), layout: this.layouts.get(id)?.layout, tiles });
    }
    return zones;
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

  /**
   * Keeps the pointer's neighbourhood visible during a drag (issue 35: both axes, every layout):
   * near an edge of a scrolling box under the pointer (a row, the kanban lanes on a phone) or of
   * the window, that scrolls, faster the nearer the pointer; the innermost box that can still move
   * along an axis takes it. Returns true while something scrolled.
   */
  autoScroll(x, y) {
    const win = this.doc.defaultView;
    const want = { x: 0, y: 0 };
    let moved = false;
    const scrolls = (e, axis) => {
      const overflow = win.getComputedStyle(e)[axis === 'x' ? 'overflowX' : 'overflowY'];
      return /auto|scroll/.test(overflow) && (axis === 'x' ? e.scrollWidth > e.clientWidth : e.scrollHeight > e.clientHeight);
    };
    const done = { x: false, y: false };
    for (let e = this.doc.elementFromPoint(x, y); e && e !== this.doc.body && e !== this.doc.documentElement; e = e.parentElement) {
      const r = e.getBoundingClientRect();
      for (const axis of ['x', 'y']) {
        if (done[axis] || !scrolls(e, axis)) continue;
        const v = axis === 'x' ? edgeSpeed(x, r.left, r.right) : edgeSpeed(y, r.top, r.bottom);
        if (!v) continue;
        const before = axis === 'x' ? e.scrollLeft : e.scrollTop;
        e.scrollBy(axis === 'x' ? v : 0, axis === 'y' ? v : 0);
        if ((axis === 'x' ? e.scrollLeft : e.scrollTop) !== before) { done[axis] = true; moved = true; }
      }
    }
    if (!done.x) want.x = edgeSpeed(x, 0, win.innerWidth);
    if (!done.y) want.y = edgeSpeed(y, 0, win.innerHeight);
    if (want.x || want.y) {
      const [sx, sy] = [win.scrollX, win.scrollY];
      win.scrollBy(want.x, want.y);
      if (win.scrollX !== sx || win.scrollY !== sy) moved = true;
    }
    return moved;
  }
}
