// The DOM: renders boards, people and messages. Only this module touches elements; user text
// (labels, details, names, titles) goes in with textContent, never as HTML. Colors are set
// through the CSSOM (el.style.setProperty), which a strict CSP allows.

import { isolatedNodes } from './bidi.js';
import { el, reducedMotion } from './dom.js';
import { Hands } from './hands.js';
import { arrangeZones, layoutKey, zoneLayouts } from './layout.js';
import { StartPage } from './startpage.js';
import { checklistProgress, dueState, initials } from './cards.js';

/** The colors a card can be given from its editor's palette. */
export const PALETTE = ['#e53935', '#fb8c00', '#fdd835', '#43a047', '#00acc1', '#1e88e5', '#8e24aa', '#6d4c41'];


/** The page's view. `root` is the #app element. */
export class View {
  constructor(root) {
    this.root = root;
    this.doc = root.ownerDocument;
    this.boardEl = root.querySelector('#board');
    this.zonesEl = root.querySelector('#zones');
    this.usersEl = root.querySelector('#users');
    this.toastEl = root.querySelector('#toast');
    this.liveEl = root.querySelector('#live');
    this.othersLiveEl = root.querySelector('#live-others');
    this.connEl = root.querySelector('#conn');
    this.titleEl = root.querySelector('#board-title');
    this.handsEl = root.querySelector('#hands');
    this.tiles = new Map();
    this.zoneEls = new Map();
    this.layouts = new Map(); // zone id → its layout (layout.js)
    this.zoneKey = '';
    this.hands = new Hands(this);
    this.startPage = new StartPage(root);
    this.ghost = null;
    this.toastTimer = null;
    /**
     * True while renderBoard moves elements: a field that loses the focus because its tile or
     * zone was moved or rebuilt has not been left by the person typing in it, so its editor
     * stays open (and gets the focus back at the end of the render).
     */
    this.rendering = false;
  }

  /** Marks the root with the connection state (data-connected) and says it in the toolbar. */
  setConnection(state) {
    this.root.dataset.connected = state === 'open' ? 'true' : 'false';
    const words = {
      open: 'Connected', connecting: 'Connecting…', closed: 'Offline — reconnecting…',
      stalled: 'No answer from the board — still trying…',
      unauthorized: 'Not allowed: no valid access token',
      expired: 'Your access has expired',
      revoked: 'Your access has been revoked',
    };
    this.connEl.textContent = words[state] ?? state;
    this.connEl.dataset.state = state;
  }

  /** Marks the root with the last applied seq. */
  setSeq(seq) {
    this.root.dataset.seq = String(seq);
  }

  /** Highlights the toolbar button of the current mode. */
  setMode(mode) {
    this.root.dataset.mode = mode;
    for (const b of this.root.querySelectorAll('[data-mode-button]')) {
      b.setAttribute('aria-pressed', b.dataset.modeButton === mode ? 'true' : 'false');
    }
  }

  /** Shows the board page or the index page. */
  showPage(page) {
    this.root.querySelector('#home').hidden = page !== 'home';
    this.boardEl.hidden = page !== 'board';
    this.root.querySelector('#board-tools').hidden = page !== 'board';
    this.connEl.hidden = page !== 'board';
  }

  /** Says a link was copied: the button reads "Copied" for a moment. */
  copied(ok, link) {
    const button = this.root.querySelector('#copy-link');
    clearTimeout(this.copyTimer);
    if (ok) {
      button.textContent = 'Copied';
      button.dataset.copied = 'true';
      this.toast('Copied the link to this board');
      this.copyTimer = setTimeout(() => { button.textContent = 'Copy link'; delete button.dataset.copied; }, 2000);
    } else {
      this.toast(`Copy this link: ${link}`, 8000);
    }
  }

  /**
   * Renders `board` with decorations:
   * {held: Map item→user, me, dragging, over (swap-mode hover target item), lifted (keyboard),
   *  keyboardTarget {over, zone}, remoteOver: Map item→user, firstRects: Map item→DOMRect}.
   * Reorders keep the tile elements (keyed by item id) and animate them (FLIP).
   */
  renderBoard(board, deco = {}) {
    const held = deco.held ?? new Map();
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
      this.placeTiles(board, held, deco);
    } finally {
      this.rendering = false;
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
  placeTiles(board, held, deco) {
    const key = layoutKey(board);
    if (key !== this.zoneKey) this.buildZones(board, key);
    const items = new Map(board.items.map((i) => [i.id, i]));
    const seen = new Set();
    for (const zone of board.zones) {
      const list = this.zoneEls.get(zone.id);
      let cursor = list.firstElementChild;
      zone.items.forEach((id, index) => {
        const item = items.get(id);
        if (!item) return;
        seen.add(id);
        const el = this.tile(item);
        this.decorate(el, item, { held, deco: { ...deco, tags: board.tags, hiddenItems: deco.hiddenItems }, lay: this.layouts.get(zone.id), index, count: zone.items.length });
        if (el !== cursor) list.insertBefore(el, cursor);
        else cursor = cursor.nextElementSibling;
      });
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
        if (lay.layout === 'grid') h.append(this.button('+', `Add card to ${lay.title}`, { action: 'add-card', column: lay.id }));
        h.append(
          this.button('✎', `Rename ${lay.title}`, { action: 'rename-zone', column: lay.id }),
          this.button('×', `Remove ${lay.title}`, { action: 'remove-zone', column: lay.id }),
        );
        const list = el(this.doc, 'ol', {
          className: `zone zone-${lay.layout}${lay.dense ? ' is-dense' : ''}${lay.handle ? ' has-handles' : ''}`,
          dataset: { zone: lay.id, layout: lay.layout, ...(lay.axis ? { axis: lay.axis } : {}) },
          attrs: { 'aria-label': lay.title },
          style: lay.layout === 'grid' ? { '--columns': String(lay.columns) } : {},
        });
        const empty = el(this.doc, 'p', { className: 'zone-empty', text: 'Drop here' });
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

  /** A small button carrying `data-action` (and the other `data` members given). */
  button(text, label, data) {
    return el(this.doc, 'button', {
      type: 'button', className: `icon-button ${data.action}`, text, title: label, attrs: { 'aria-label': label },
      dataset: data,
    });
  }

  /**
   * Edits the text of `el` in place: an input over it, its text selected. Enter or leaving the
   * field commits (`done(value)`), Escape cancels (`done(null)`). Returns the input.
   */
  editText(target, value, done, { label = 'Edit', maxLength = 200, of = 'title' } = {}) {
    const input = el(this.doc, 'input', {
      className: 'inline-edit', value, maxLength, attrs: { 'aria-label': label }, dataset: { editOf: of },
    });
    let finished = false;
    let current = target;
    const finish = (result) => {
      if (finished) return;
      finished = true;
      input.remove();
      current.hidden = false;
      done(result);
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); finish(input.value); }
      else if (e.key === 'Escape') { e.preventDefault(); finish(null); }
      e.stopPropagation();
    });
    // Left for elsewhere: committed. Moved by a render (its zone rebuilt): still open.
    input.addEventListener('blur', () => { if (!this.rendering) finish(input.value); });
    /** The zones were built again: the field moves beside `t`, the new element it edits. */
    input.retarget = (t) => {
      current = t;
      t.hidden = true;
      t.after(input);
    };
    target.hidden = true;
    target.after(input);
    input.focus();
    input.select();
    return input;
  }

  /**
   * Edits the card of `id` in place: its label (and its detail when `withDetail`, in zones that
   * show details) in fields over it, and a palette of colors. Enter or leaving the editor commits
   * `done({label, detail})`, Escape cancels (`done(null)`); a color is picked at once
   * (`recolor(color)`).
   */
  editCard(id, { withDetail = false } = {}, done, recolor) {
    const card = this.tiles.get(id);
    const text = card?.querySelector('.tile-text');
    if (!text || card.querySelector('.card-editor')) return;
    const editor = el(this.doc, 'div', { className: 'card-editor' });
    const field = (value, label, placeholder, max) => el(this.doc, 'input', {
      className: 'inline-edit', value, maxLength: max, placeholder, attrs: { 'aria-label': label },
    });
    const label = field(card.querySelector('.tile-label').textContent, 'Card label', 'Label', 200);
    const detail = withDetail
      ? field(card.querySelector('.tile-detail').textContent, 'Card detail', 'Detail (optional)', 200)
      : null;
    const palette = el(this.doc, 'div', { className: 'palette', attrs: { role: 'group', 'aria-label': 'Card color' } });
    // The card's color is the pressed swatch (if it is one of them).
    const press = (current) => {
      for (const b of palette.children) b.setAttribute('aria-pressed', String(b.dataset.color === current));
    };
    for (const color of PALETTE) {
      const b = el(this.doc, 'button', {
        type: 'button', className: 'swatch', dataset: { color }, attrs: { 'aria-label': `Color ${color}` },
        style: { '--swatch': color },
      });
      // Keeps the focus in the field, so picking a color does not end the edit.
      b.addEventListener('pointerdown', (e) => e.preventDefault());
      b.addEventListener('click', () => { press(color); recolor(color); });
      palette.append(b);
    }
    press(card.style.getPropertyValue('--tile-color'));
    editor.append(label, ...(detail ? [detail] : []), palette);
    let finished = false;
    // `refocus`: ended from the keyboard (Enter, Escape), so the focus goes back to the tile
    // (its handle in a handle-only zone) and the keyboard can go on from it. Left by a click
    // elsewhere, the focus stays where the click put it.
    const finish = (result, refocus = false) => {
      if (finished) return;
      finished = true;
      editor.remove();
      text.hidden = false;
      done(result);
      if (refocus) this.focusItem(id);
    };
    const values = () => ({ label: label.value, ...(detail ? { detail: detail.value } : {}) });
    editor.addEventListener('keydown', (e) => {
      // Enter on a swatch picks its color (the button's click); elsewhere it commits.
      if (e.key === 'Enter' && e.target.closest?.('.swatch')) { e.stopPropagation(); return; }
      if (e.key === 'Enter') { e.preventDefault(); finish(values(), true); }
      else if (e.key === 'Escape') { e.preventDefault(); finish(null, true); }
      e.stopPropagation();
    });
    // Left for elsewhere: committed. Moved by a render (its tile moved, its zone rebuilt): open.
    editor.addEventListener('focusout', (e) => {
      if (!this.rendering && !editor.contains(e.relatedTarget)) finish(values());
    });
    text.hidden = true;
    text.after(editor);
    label.focus();
    label.select();
  }

  /** Edits the title of the zone `id` in place. */
  editZoneTitle(id, done) {
    const name = this.root.querySelector(`[data-zone-wrap="${CSS.escape(id)}"] .zone-title`);
    if (name) this.editText(name, name.textContent, done, { label: 'Column title', maxLength: 100 });
  }

  /** A new card's label, typed in place of a grid's add button (Escape: none). */
  newCardField(id, done) {
    const button = this.root.querySelector(`[data-zone-wrap="${CSS.escape(id)}"] [data-action="add-card"]`);
    if (button) this.editText(button, '', done, { label: `New card in ${this.layouts.get(id)?.title ?? id}`, of: 'add' });
  }

  /** Edits the board title in place. */
  editBoardTitle(done) {
    this.editText(this.titleEl, this.titleEl.textContent, done, { label: 'Board name' });
  }

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
      const remove = this.button('×', 'Remove', { action: 'remove-card' }); // the card: its tile
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

  /**
   * A card face's content (issue 32): tag chips, a description mark, the due badge (overdue and
   * due soon look different), checklist progress and the assignees' initials, all as text. Built
   * again only when what it shows changed.
   */
  decorateContent(meta, item, tags) {
    const due = dueState(item.due, Date.now());
    const key = JSON.stringify([item.tags, item.assignees, item.due, due, checklistProgress(item), !!item.description,
      (item.tags ?? []).map((t) => tags.find((x) => x.id === t))]);
    if (meta.dataset.key === key) return;
    meta.dataset.key = key;
    const parts = [];
    for (const id of item.tags ?? []) {
      const tag = tags.find((t) => t.id === id);
      if (tag) parts.push(el(this.doc, 'span', { className: 'chip', text: tag.name, style: { '--chip-color': tag.color } }));
    }
    if (item.description) parts.push(el(this.doc, 'span', { className: 'has-description', text: '¶', attrs: { title: 'Has a description', 'aria-label': 'Has a description' } }));
    if (item.due) {
      const text = item.due.slice(0, 10);
      parts.push(el(this.doc, 'span', {
        className: `due${due ? ` due-${due}` : ''}`, text: due === 'overdue' ? `Overdue ${text}` : `Due ${text}`,
        dataset: { due: due ?? 'later' },
      }));
    }
    const progress = checklistProgress(item);
    if (progress) parts.push(el(this.doc, 'span', { className: 'progress', text: `☑ ${progress}`, attrs: { 'aria-label': `Checklist ${progress}` } }));
    // The assignees' initials stay together, at the end of the line.
    const faces = (item.assignees ?? []).map((p) => el(this.doc, 'span', {
      className: 'initials', text: initials(p.name), attrs: { title: p.name, 'aria-label': `Assigned to ${p.name}` },
    }));
    if (faces.length) parts.push(el(this.doc, 'span', { className: 'assignees' }, ...faces));
    meta.replaceChildren(...parts);
    meta.hidden = parts.length === 0;
  }

  decorate(el, item, { held, deco, lay, index, count }) {
    const label = el.querySelector('.tile-label');
    if (label.textContent !== item.label) label.textContent = item.label;
    const detail = el.querySelector('.tile-detail');
    const detailText = typeof item.detail === 'string' ? item.detail : '';
    if (detail.textContent !== detailText) detail.textContent = detailText;
    el.style.setProperty('--tile-color', item.color);
    this.decorateContent(el.querySelector('.tile-meta'), item, deco.tags ?? []);
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
    this.tiles.get(id)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  /** Focuses the control of an item: its handle in a handle-only zone, else the tile. */
  focusItem(id) {
    const el = this.tiles.get(id);
    if (!el) return;
    (el.querySelector(':scope > [data-handle]') ?? el).focus({ preventScroll: true });
  }

  /** Zones and tiles with their rectangles, in layout order, for hit testing. */
  layout() {
    const zones = [];
    for (const [id, list] of this.zoneEls) {
      const tiles = [...list.children].map((el) => ({ id: el.dataset.item, rect: el.getBoundingClientRect() }));
      zones.push({ id, rect: list.getBoundingClientRect(), layout: this.layouts.get(id)?.layout, tiles });
    }
    return zones;
  }

  /** The item id under the viewport point, or null. */
  itemAt(x, y) {
    const el = this.doc.elementFromPoint(x, y)?.closest?.('[data-item]');
    return el && this.tiles.has(el.dataset.item) ? el.dataset.item : null;
  }

  // ---- The local ghost: the lifted tile following the pointer.

  /** Lifts a copy of the tile at its current place; `grab` is the pointer offset inside it. */
  showGhost(id, x, y) {
    this.hideGhost();
    const src = this.tiles.get(id);
    if (!src) return;
    const r = src.getBoundingClientRect();
    // Built afresh rather than cloned, so no style attribute is copied (strict CSP).
    const lay = this.layouts.get(src.closest('[data-zone]')?.dataset.zone);
    const g = el(this.doc, 'div', {
      className: `tile ghost is-${lay?.layout ?? 'grid'}${lay?.dense ? ' is-dense' : ''}`,
      attrs: { 'aria-hidden': 'true' }, style: { '--tile-color': src.style.getPropertyValue('--tile-color') },
      dataset: src.dataset.on ? { on: 'true' } : {},
    }, el(this.doc, 'span', { className: 'tile-text' },
      el(this.doc, 'span', { className: 'tile-label', text: src.querySelector('.tile-label').textContent }),
      el(this.doc, 'span', { className: 'tile-detail', text: src.querySelector('.tile-detail').textContent })));
    if (lay?.handle) g.append(el(this.doc, 'span', { className: 'tile-handle', text: '⠿' }));
    g.style.width = `${r.width}px`;
    g.style.height = `${r.height}px`;
    this.doc.body.append(g);
    this.ghost = { el: g, dx: x - r.left, dy: y - r.top, id };
    this.moveGhost(x, y);
  }

  /**
   * Someone edited the lifted card (an edit of a held card commits): the ghost under this
   * page's pointer shows its new label, detail and color, as its tile does.
   */
  refreshGhost() {
    const g = this.ghost;
    const src = g && this.tiles.get(g.id);
    if (!src) return;
    for (const part of ['.tile-label', '.tile-detail']) {
      const text = src.querySelector(part).textContent;
      const mine = g.el.querySelector(part);
      if (mine.textContent !== text) mine.textContent = text;
    }
    g.el.style.setProperty('--tile-color', src.style.getPropertyValue('--tile-color'));
  }

  /** Moves the ghost with the pointer. */
  moveGhost(x, y) {
    if (!this.ghost) return;
    const { el, dx, dy } = this.ghost;
    el.style.left = `${x - dx}px`;
    el.style.top = `${y - dy}px`;
  }

  /** Removes the ghost; returns its last rectangle (so the tile can glide from there). */
  hideGhost() {
    if (!this.ghost) return null;
    const r = this.ghost.el.getBoundingClientRect();
    this.ghost.el.remove();
    this.ghost = null;
    return r;
  }

  // ---- People and messages.

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

  /** Keeps the pointer's neighbourhood visible: scrolls when it is near the viewport edges. */
  autoScroll(y) {
    const edge = 48;
    const h = globalThis.innerHeight;
    let v = 0;
    if (y < edge) v = -Math.ceil((edge - y) / 3);
    else if (y > h - edge) v = Math.ceil((y - (h - edge)) / 3);
    if (v) globalThis.scrollBy(0, v);
    return v !== 0;
  }
}
