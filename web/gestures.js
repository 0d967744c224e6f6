// Input gestures into intents: a mouse press that travels past a threshold, a touch press held
// still for a moment, a paint stroke, and keys (Space/Enter, arrows, Escape, Tab, F2, Delete,
// undo/redo, mode letters). Pure: events are plain objects (the wiring reads them off the DOM events) and
// timers are asked for with a `wake` intent, so it runs under `node --test`.
//
// Events in:
//   pointer {pointerId, pointerType, button, x, y, item, handle}
//                                                          `item`: the tile pressed (down only);
//                                                          `handle`: the press is on its handle
//   key     {key, ctrl, shift, alt, inField, item}         `ctrl`: Ctrl or Cmd; `inField`: typing
//                                                          in a form field; `item`: focused tile
// Intents out, in order:
//   {type:'prevent'}                    call preventDefault() on the event
//   {type:'lift', item, source, x, y}   lift `item` ('pointer' at x, y; or 'keyboard')
//   {type:'aim', x, y}                  the lifted tile's pointer moved
//   {type:'aimKey', key}                an arrow key during a keyboard lift
//   {type:'drop'}  {type:'cancel'}
//   {type:'paint', item}  {type:'paintEnd'}   a stroke flips each tile it crosses once
//   {type:'refuse', item, source}       a press on a tile someone else holds
//   {type:'open', item}  {type:'edit', item}  {type:'remove', item}   Enter, F2, Delete on a tile
//   {type:'step', item, key}            arrows, Home/End on a tile: the focus moves along its zone
//   {type:'undo'}  {type:'redo'}  {type:'mode', mode}
//   {type:'wake', after, token}         call wake(token) after `after` ms

/** Pointer travel (px) that turns a mouse press into a drag (and a touch press into a scroll). */
export const DRAG_THRESHOLD = 5;
/** How long a finger must rest before a touch press lifts a tile (ms). */
export const TOUCH_DELAY = 250;

const MODE_KEYS = { s: 'swap', m: 'move', p: 'paint' };
const STEP_KEYS = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End'];

/**
 * `ctx` answers what the gestures need to know about the session and the page:
 * `ready()` (a board is shown), `dragging()` (the lift in progress: {item, source} or null),
 * `mode()`, `heldByOther(item)`, `itemAt(x, y)` (the tile under a viewport point, or null),
 * and optionally `handleOnly(item)` (its zone starts drags only from an item's handle) and
 * `modes()` (the modes the board offers; a letter for another does nothing; default: all).
 *
 * In a handle-only zone a press anywhere but the handle is left to the browser (it scrolls,
 * selects text, focuses), in every mode. A press on the handle is the drag's own (its default is
 * prevented): the handle does not scroll (its CSS says `touch-action: none`), so a finger on it
 * lifts the item once it moves past the threshold or rests for the touch delay.
 */
export class Gestures {
  constructor(ctx) {
    this.ctx = ctx;
    this.press = null; // {item, pointerId, x, y, type, token}: a press that may become a drag
    this.stroke = null; // {pointerId, seen: Set}: a paint stroke
    this.pointerId = null; // the pointer of the drag this module lifted
    this.tokens = 0;
  }

  pointerDown(p) {
    if (!p.item || !this.ctx.ready()) return [];
    if (p.pointerType === 'mouse' && p.button !== 0) return [];
    if (this.ctx.dragging() || this.press || this.stroke) return [];
    const handle = !!this.ctx.handleOnly?.(p.item);
    if (handle && !p.handle) return [];
    if (this.ctx.heldByOther(p.item)) return [{ type: 'refuse', item: p.item, source: 'pointer' }];
    if (this.ctx.mode() === 'paint') {
      this.stroke = { pointerId: p.pointerId, seen: new Set([p.item]) };
      return [{ type: 'prevent' }, { type: 'paint', item: p.item }];
    }
    this.tokens += 1;
    this.press = { item: p.item, pointerId: p.pointerId, x: p.x, y: p.y, type: p.pointerType, token: this.tokens, handle };
    // A press on a handle is the drag's alone: without preventDefault, a handle inside a text
    // selection (the rows around it are selectable) would start dragging the selected text.
    const fx = handle ? [{ type: 'prevent' }] : [];
    return p.pointerType === 'touch' ? [...fx, { type: 'wake', after: TOUCH_DELAY, token: this.tokens }] : fx;
  }

  pointerMove(p) {
    const s = this.stroke;
    if (s && p.pointerId === s.pointerId) {
      const item = this.ctx.itemAt(p.x, p.y);
      if (!item || s.seen.has(item)) return [];
      s.seen.add(item);
      return [{ type: 'paint', item }];
    }
    const pr = this.press;
    if (pr && p.pointerId === pr.pointerId) {
      if (Math.hypot(p.x - pr.x, p.y - pr.y) <= DRAG_THRESHOLD) return [];
      this.press = null;
      if (pr.type === 'touch' && !pr.handle) return []; // a scroll, not a drag
      return [this.liftFromPress(pr), { type: 'aim', x: p.x, y: p.y }];
    }
    return this.draggingHere(p) ? [{ type: 'aim', x: p.x, y: p.y }] : [];
  }

  pointerUp(p) {
    if (this.stroke && p.pointerId === this.stroke.pointerId) return this.endStroke();
    if (this.press && p.pointerId === this.press.pointerId) {
      this.press = null;
      return [];
    }
    return this.draggingHere(p) ? [{ type: 'aim', x: p.x, y: p.y }, { type: 'drop' }] : [];
  }

  pointerCancel(p) {
    if (this.stroke && p.pointerId === this.stroke.pointerId) return this.endStroke();
    if (this.press && p.pointerId === this.press.pointerId) {
      this.press = null;
      return [];
    }
    return this.draggingHere(p) ? [{ type: 'cancel' }] : [];
  }

  /** A timer asked for with a `wake` intent ran out: a touch press held still lifts. */
  wake(token) {
    const pr = this.press;
    if (!pr || pr.token !== token) return [];
    this.press = null;
    return [this.liftFromPress(pr)];
  }

  /** Someone else lifted `item`: a press on it no longer becomes a drag. */
  taken(item) {
    if (this.press && this.press.item === item) this.press = null;
  }

  /** The window lost focus: a pointer drag cannot see its release, so it is cancelled. */
  blur() {
    return this.ctx.dragging()?.source === 'pointer' ? [{ type: 'cancel' }] : [];
  }

  /** True while a touch must not scroll the page (a pointer drag or a stroke is under way). */
  capturesTouch() {
    return this.ctx.dragging()?.source === 'pointer' || !!this.stroke;
  }

  keyDown(k) {
    if (k.ctrl && !k.alt && (k.key === 'z' || k.key === 'Z') && !k.inField) {
      return [{ type: 'prevent' }, { type: k.shift ? 'redo' : 'undo' }];
    }
    if (k.ctrl && (k.key === 'y' || k.key === 'Y') && !k.inField) return [{ type: 'prevent' }, { type: 'redo' }];
    if (k.inField || k.alt || k.ctrl) return [];
    const d = this.ctx.dragging();
    const activate = k.key === ' ' || k.key === 'Enter';
    if (d && d.source === 'keyboard') {
      if (k.key.startsWith('Arrow')) return [{ type: 'prevent' }, { type: 'aimKey', key: k.key }];
      if (activate) return [{ type: 'prevent' }, { type: 'drop' }];
      if (k.key === 'Escape') return [{ type: 'prevent' }, { type: 'cancel' }];
      if (k.key === 'Tab') return [{ type: 'cancel' }]; // focus moves on; the lift ends
      return [];
    }
    if (d && k.key === 'Escape') return [{ type: 'prevent' }, { type: 'cancel' }];
    // The focused tile: Enter opens its card panel, F2 edits its label in place, Delete or
    // Backspace removes it.
    if (k.item && !d && k.key === 'Enter') return [{ type: 'prevent' }, { type: 'open', item: k.item }];
    if (k.item && !d && k.key === 'F2') return [{ type: 'prevent' }, { type: 'edit', item: k.item }];
    // Arrows, Home/End on a focused card move the focus along its zone (view.js step: a long one
    // renders only the cards on screen, so Tab alone would skip the others: virtual.js).
    if (k.item && !d && !k.shift && STEP_KEYS.includes(k.key)) return [{ type: 'step', item: k.item, key: k.key }];
    if (k.item && !d && (k.key === 'Delete' || k.key === 'Backspace')) {
      return [{ type: 'prevent' }, { type: 'remove', item: k.item }];
    }
    if (k.item && activate && !d) {
      if (this.ctx.heldByOther(k.item)) return [{ type: 'prevent' }, { type: 'refuse', item: k.item, source: 'keyboard' }];
      if (this.ctx.mode() === 'paint') return [{ type: 'prevent' }, { type: 'paint', item: k.item }, { type: 'paintEnd' }];
      this.press = null;
      return [{ type: 'prevent' }, { type: 'lift', item: k.item, source: 'keyboard', x: null, y: null }];
    }
    // Mode letters act only from the board itself: never on a focused card (where `p` would
    // switch a kanban board to painting), and only for a mode the board offers.
    const mode = MODE_KEYS[k.key];
    if (mode && !d && !k.item && (this.ctx.modes?.() ?? Object.values(MODE_KEYS)).includes(mode)) return [{ type: 'mode', mode }];
    return [];
  }

  liftFromPress(pr) {
    this.pointerId = pr.pointerId;
    return { type: 'lift', item: pr.item, source: 'pointer', x: pr.x, y: pr.y };
  }

  draggingHere(p) {
    return this.ctx.dragging()?.source === 'pointer' && p.pointerId === this.pointerId;
  }

  endStroke() {
    this.stroke = null;
    return [{ type: 'paintEnd' }];
  }
}
