// A card's tile in the view (view.js): its element, built once per item and decorated again on
// every render (label, detail, color, face, holder, drag states, its accessible name), its drag
// handle, and the tiles' animations (FLIP glides, pulses, the fading copy of a removed card).
// User text goes in with textContent, colors through the CSSOM.

import { el, reducedMotion } from './dom.js';
import { icon } from './icons.js';
import { cardFace } from './cardface.js';
import { dueState } from './cards.js';

/** A small icon button carrying `data-action` (and the other `data` members given), named `label`. */
export function iconButton(doc, name, label, data) {
  return el(doc, 'button', {
    type: 'button', className: `icon-button ${data.action}`, title: label, attrs: { 'aria-label': label },
    dataset: data,
  }, icon(doc, name));
}

/** A new tile element for the item `id` (its parts empty until decorated). */
export function newTile(doc, id) {
  const remove = iconButton(doc, 'close', 'Remove', { action: 'remove-card' }); // the card: its tile
  remove.tabIndex = -1; // Delete on the focused tile does it from the keyboard
  return el(doc, 'li', { className: 'tile', dataset: { item: id } },
    el(doc, 'span', { className: 'tile-text' },
      el(doc, 'span', { className: 'tile-label' }), el(doc, 'span', { className: 'tile-detail' }),
      el(doc, 'span', { className: 'tile-meta' })),
    el(doc, 'span', { className: 'tile-on', attrs: { 'aria-hidden': 'true' } }),
    el(doc, 'span', { className: 'tile-holder' }),
    remove);
}

/**
 * What a tile shows of `item` and the decorations, as one string: a tile whose key has not
 * changed since its last render is left alone (a drag renders the board on every new target,
 * and most tiles do not change).
 */
export function tileKey(item, { held, deco, lay, index, count }) {
  const holder = held.get(item.id);
  const remote = deco.remoteOver?.get(item.id);
  return JSON.stringify([
    item.label, item.detail, item.color, item.on, item.tags, item.assignees, item.due, item.description,
    item.checklist, item.comments, dueState(item.due, Date.now()), deco.tagsKey,
    !!deco.hiddenItems?.has(item.id), holder?.id, holder?.name, holder?.color, deco.me, remote?.color ?? null,
    deco.dragging === item.id, deco.lifted === item.id, deco.over === item.id,
    !!deco.keyboardTarget && deco.keyboardTarget.over === item.id,
    lay?.title, !!lay?.handle, index, count,
  ]);
}

/** Decorates the tile `tile` of `item` (see tileKey for what it shows). */
export function decorateTile(doc, tile, item, { held, deco, lay, index, count }) {
  const label = tile.querySelector('.tile-label');
  if (label.textContent !== item.label) label.textContent = item.label;
  const detail = tile.querySelector('.tile-detail');
  const detailText = typeof item.detail === 'string' ? item.detail : '';
  if (detail.textContent !== detailText) detail.textContent = detailText;
  tile.style.setProperty('--tile-color', item.color);
  cardFace(doc, tile.querySelector('.tile-meta'), item, deco.tags ?? []);
  tile.hidden = !!deco.hiddenItems?.has(item.id);
  if (item.on) tile.dataset.on = 'true';
  else delete tile.dataset.on;
  tile.querySelector('.tile-on').textContent = item.on ? 'ON' : '';
  const holder = held.get(item.id);
  const badge = tile.querySelector('.tile-holder');
  if (holder && holder.id !== deco.me) {
    tile.dataset.heldBy = holder.id;
    tile.style.setProperty('--holder-color', holder.color || '#333');
    badge.textContent = holder.name || holder.id;
  } else if (holder) {
    tile.dataset.heldBy = holder.id;
    badge.textContent = '';
  } else {
    delete tile.dataset.heldBy;
    badge.textContent = '';
  }
  const remote = deco.remoteOver?.get(item.id);
  if (remote) tile.style.setProperty('--remote-color', remote.color || '#333');
  tile.classList.toggle('is-remote-over', !!remote);
  tile.classList.toggle('is-placeholder', deco.dragging === item.id);
  tile.classList.toggle('is-lifted', deco.lifted === item.id);
  tile.classList.toggle('is-over', deco.over === item.id);
  tile.classList.toggle('is-kbd-target', !!deco.keyboardTarget && deco.keyboardTarget.over === item.id && deco.lifted !== item.id);
  const state = item.on ? ', on' : '';
  const who = holder && holder.id !== deco.me ? `, held by ${holder.name || holder.id}` : '';
  const place = `${lay?.title ?? ''} ${index + 1} of ${count}`.trim();
  const name = `${item.label}${detailText ? ` (${detailText})` : ''}${state}, ${place}${who}`;
  const remove = tile.querySelector(':scope > [data-action="remove-card"]');
  if (remove) {
    remove.setAttribute('aria-label', `Remove ${item.label}`);
    remove.disabled = !!(holder && holder.id !== deco.me); // someone is dragging it
  }
  // Handle-only zones: the row is plain text (it scrolls and selects); its handle is the
  // control that lifts it, the tab stop and what screen readers name.
  const handle = tileHandle(doc, tile, !!lay?.handle);
  if (handle) {
    for (const a of ['tabindex', 'role', 'aria-roledescription', 'aria-describedby', 'aria-label', 'aria-pressed']) tile.removeAttribute(a);
    handle.setAttribute('aria-label', `Move ${name}`);
  } else {
    if (tile.getAttribute('role') !== 'button') {
      tile.tabIndex = 0;
      tile.setAttribute('role', 'button');
      tile.setAttribute('aria-roledescription', 'draggable tile');
      tile.setAttribute('aria-describedby', 'kbd-help');
    }
    tile.setAttribute('aria-label', name);
    tile.setAttribute('aria-pressed', item.on ? 'true' : 'false');
  }
}

/** Gives `tile` its drag handle (a button at the row's end) or takes it away; returns it. */
export function tileHandle(doc, tile, wanted) {
  let h = tile.querySelector(':scope > [data-handle]');
  if (wanted && !h) {
    h = el(doc, 'button', {
      type: 'button', className: 'tile-handle', dataset: { handle: '' },
      attrs: { 'aria-roledescription': 'drag handle', 'aria-describedby': 'kbd-help' },
    }, el(doc, 'span', { text: '⠿', attrs: { 'aria-hidden': 'true' } }));
    tile.append(h);
  } else if (!wanted && h) {
    h.remove();
    h = null;
  }
  return h;
}

/** How long a tile glides to its new place (ms). */
export const FLIP_MS = 220;

/**
 * FLIP: animates the tiles (a Map id → element) from their previous rectangles `first` to where
 * they are now; `skip` (the dragged tile) does not glide. True when one glides.
 */
export function flipTiles(tiles, first, skip) {
  if (reducedMotion() || first.size === 0) return false;
  let moved = false;
  for (const [id, e] of tiles) {
    const a = first.get(id);
    if (!a || id === skip) continue;
    const b = e.getBoundingClientRect();
    const dx = a.left - b.left;
    const dy = a.top - b.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    moved = true;
    e.animate?.(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'none' }],
      { duration: FLIP_MS, easing: 'cubic-bezier(.2,.8,.2,1)' },
    );
  }
  return moved;
}

/** Shakes (a rejected op) or flashes (someone else changed them) the tiles `els`. */
export function pulseTiles(els, kind, color) {
  for (const e of els) {
    if (color) e.style.setProperty('--pulse-color', color);
    e.classList.remove(`pulse-${kind}`);
    void e.offsetWidth;
    e.classList.add(`pulse-${kind}`);
    e.addEventListener('animationend', () => e.classList.remove(`pulse-${kind}`), { once: true });
  }
}

/** A copy of the tile `src` that fades out where it is, appended to `root` (a removed card). */
export function fadeCopy(doc, root, src) {
  if (reducedMotion()) return;
  const r = src.getBoundingClientRect();
  const g = el(doc, 'div', {
    className: 'tile fading', attrs: { 'aria-hidden': 'true' },
    style: {
      '--tile-color': src.style.getPropertyValue('--tile-color'),
      left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px`,
    },
  }, el(doc, 'span', { className: 'tile-label', text: src.querySelector('.tile-label')?.textContent ?? '' }));
  root.append(g);
  setTimeout(() => g.remove(), 600);
}
