// Other people's hands: each user dragging something is a hand on the board, eased toward what
// it points at every frame. DOM only; the board view (view.js) owns the tiles it aims at.

import { el, reducedMotion } from './dom.js';

/** The hands on the board of `view` (a View). */
export class Hands {
  constructor(view) {
    this.view = view;
    this.byUser = new Map();
    this.loop = null;
  }

  /** Shows (or updates) `user`'s hand holding `item`. */
  start(user, item) {
    let h = this.byUser.get(user.id);
    const it = this.view.tiles.get(item);
    if (!h) {
      const hand = el(this.view.doc, 'div', { className: 'hand', dataset: { handBy: user.id } },
        el(this.view.doc, 'div', { className: 'hand-tile' }),
        el(this.view.doc, 'div', { className: 'hand-name' }));
      this.view.handsEl.append(hand);
      h = { el: hand, x: null, y: null, target: null };
      this.byUser.set(user.id, h);
    }
    h.item = item;
    h.el.style.setProperty('--hand-color', user.color || '#333');
    h.el.querySelector('.hand-name').textContent = user.name || user.id;
    const tileBox = h.el.querySelector('.hand-tile');
    tileBox.textContent = it?.querySelector('.tile-label')?.textContent ?? item;
    if (it) tileBox.style.setProperty('--tile-color', it.style.getPropertyValue('--tile-color'));
    h.target = { over: item, zone: null };
    if (h.x === null) {
      const p = this.targetPoint(h.target);
      if (p) { h.x = p.x; h.y = p.y; }
    }
    this.run();
  }

  /** Points `userId`'s hand at a target {over, zone}. */
  hover(userId, target) {
    const h = this.byUser.get(userId);
    if (!h) return;
    h.target = target;
    this.run();
  }

  /** Removes `userId`'s hand (or every hand when null). */
  end(userId) {
    for (const [id, h] of this.byUser) {
      if (userId === null || id === userId) { h.el.remove(); this.byUser.delete(id); }
    }
  }

  /** The page point a hand aims at: a tile's centre, or the end of a zone. */
  targetPoint(t) {
    if (!t) return null;
    const sx = globalThis.scrollX ?? 0;
    const sy = globalThis.scrollY ?? 0;
    if (t.over) {
      const el = this.view.tiles.get(t.over);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { x: r.left + r.width / 2 + sx, y: r.top + r.height / 2 + sy };
    }
    const list = this.view.zoneEls.get(t.zone);
    if (!list) return null;
    const last = list.lastElementChild;
    const zr = list.getBoundingClientRect();
    if (this.view.layouts.get(t.zone)?.layout === 'list') {
      // A list's end is below its last row.
      const y = last ? last.getBoundingClientRect().bottom + 20 : zr.top + 30;
      return { x: zr.left + Math.min(zr.width / 2, 120) + sx, y: y + sy };
    }
    if (!last) return { x: zr.left + 48 + sx, y: zr.top + zr.height / 2 + sy };
    const r = last.getBoundingClientRect();
    const x = r.right + r.width / 2 + 8;
    if (x < zr.right) return { x: x + sx, y: r.top + r.height / 2 + sy };
    return { x: zr.left + r.width / 2 + sx, y: r.bottom + r.height / 2 + 8 + sy };
  }

  /** True while some tile runs an animation (a FLIP glide moves its box every frame). */
  tilesMoving() {
    return this.view.zonesEl.getAnimations?.({ subtree: true }).some((a) => a.playState === 'running') ?? false;
  }

  /**
   * Eases every hand toward its target each frame (exponential smoothing), so hovers never jump.
   * Runs until every hand has arrived and no tile is gliding any more; a render starts it again,
   * since the tile a hand is on may have moved.
   */
  run() {
    if (this.loop || this.byUser.size === 0) return;
    let last = performance.now();
    const step = (now) => {
      const dt = Math.min(100, now - last);
      last = now;
      const k = reducedMotion() ? 1 : 1 - Math.exp(-dt / 70);
      let moving = false;
      for (const h of this.byUser.values()) {
        const p = this.targetPoint(h.target);
        if (!p) continue;
        if (h.x === null) { h.x = p.x; h.y = p.y; }
        h.x += (p.x - h.x) * k;
        h.y += (p.y - h.y) * k;
        if (Math.abs(p.x - h.x) > 0.5 || Math.abs(p.y - h.y) > 0.5) moving = true;
        h.el.style.transform = `translate(${h.x}px, ${h.y}px)`;
      }
      // A tile still gliding (FLIP) is not where it will stay: keep following it.
      if (this.tilesMoving()) moving = true;
      this.loop = moving && this.byUser.size ? requestAnimationFrame(step) : null;
    };
    this.loop = requestAnimationFrame(step);
  }
}
