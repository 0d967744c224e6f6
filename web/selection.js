// Several cards at once (issue 36): which cards are selected, and the bar that acts on them.
//
// `Selection` is pure (no DOM): Ctrl/Cmd-click toggles a card, Shift-click selects the range in
// a zone from the last card toggled, and from the keyboard `x` toggles the focused card, Shift+X
// selects the range up to it, Escape clears. Space still lifts: a lifted card that is selected
// lifts the whole selection (session.js), dropped as one `moveMany`.
//
// `SelectionBar` draws the count and the bulk actions (tag, assign to me, archive, delete,
// clear) and marks the selected tiles; each action is one undoable change of one or more ops
// sent together (session.js `bulk`).

import { MAX_BULK } from './bulk.js';

/** The cards selected on one board, in the order they were picked. */
export class Selection {
  constructor() {
    this.ids = [];
    this.anchor = null; // the last card toggled: where a range starts
  }

  get size() {
    return this.ids.length;
  }

  has(id) {
    return this.ids.includes(id);
  }

  /** Adds `id`, or takes it out when selected; returns true when it is selected now. */
  toggle(id) {
    const at = this.ids.indexOf(id);
    this.anchor = id;
    if (at >= 0) {
      this.ids.splice(at, 1);
      return false;
    }
    if (this.ids.length >= MAX_BULK) return false;
    this.ids.push(id);
    return true;
  }

  /**
   * Selects every card from the anchor to `id` when both are in the same zone of `board`
   * (otherwise just toggles `id`). Returns the cards added.
   */
  range(board, id) {
    const zone = board?.zones.find((z) => z.items.includes(id));
    const from = this.anchor != null ? zone?.items.indexOf(this.anchor) ?? -1 : -1;
    if (!zone || from < 0) return this.toggle(id) ? [id] : [];
    const to = zone.items.indexOf(id);
    const added = [];
    for (const card of zone.items.slice(Math.min(from, to), Math.max(from, to) + 1)) {
      if (!this.ids.includes(card) && this.ids.length < MAX_BULK) {
        this.ids.push(card);
        added.push(card);
      }
    }
    this.anchor = id;
    return added;
  }

  clear() {
    this.ids = [];
    this.anchor = null;
  }

  /** Forgets cards that are no longer in a zone of `board` (removed, archived). */
  prune(board) {
    if (!board || !this.ids.length) return;
    const placed = new Set(board.zones.flatMap((z) => z.items));
    this.ids = this.ids.filter((id) => placed.has(id));
    if (this.anchor != null && !placed.has(this.anchor)) this.anchor = null;
  }

  /** The selected cards in board order (zone by zone, top to bottom): the order a stack lands in. */
  ordered(board) {
    if (!board) return this.ids.slice();
    const chosen = new Set(this.ids);
    return board.zones.flatMap((z) => z.items.filter((id) => chosen.has(id)));
  }
}

/**
 * What a key does to the selection, or null when it is not a selection key: `x` toggles the
 * focused card, Shift+X selects the range to it, Escape clears a selection (not while dragging).
 */
export function selectionKey(k, { item, dragging, size }) {
  if (k.inField || k.alt || k.ctrl) return null;
  if ((k.key === 'x' || k.key === 'X') && item && !dragging) return k.shift ? { type: 'range', item } : { type: 'toggle', item };
  if (k.key === 'Escape' && !dragging && size > 0) return { type: 'clear' };
  return null;
}

/** The selection's bar and the marks on selected tiles. `actions` run the bulk ops. */
export class SelectionBar {
  /** `doc`: the document; `actions`: {tag(tagId), assignMe(), archive(), remove(), clear()}; `tags()`: the board's tags. */
  constructor(doc, actions, tags) {
    this.doc = doc;
    this.actions = actions;
    this.tags = tags;
    const bar = doc.createElement('div');
    bar.id = 'selection-bar';
    bar.className = 'selection-bar';
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', 'Selected cards');
    bar.hidden = true;
    this.count = doc.createElement('span');
    this.count.className = 'selection-count';
    this.count.setAttribute('aria-live', 'polite');
    this.tagPicker = doc.createElement('select');
    this.tagPicker.setAttribute('aria-label', 'Tag the selected cards');
    this.tagPicker.addEventListener('change', () => {
      const tag = this.tagPicker.value;
      this.tagPicker.value = '';
      if (tag) this.actions.tag(tag);
    });
    bar.append(this.count, this.tagPicker);
    for (const [name, text] of [['assignMe', 'Assign to me'], ['archive', 'Archive'], ['remove', 'Delete'], ['clear', 'Clear']]) {
      const b = doc.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.dataset.selectionAction = name;
      b.addEventListener('click', () => this.actions[name]());
      bar.append(b);
    }
    this.bar = bar;
    doc.body.append(bar);
  }

  /** Shows the count (or hides the bar) and marks the selected tiles among `root`'s. */
  render(root, selection) {
    const n = selection.size;
    this.bar.hidden = n === 0;
    this.count.textContent = `${n} selected`;
    const options = [['', 'Tag…'], ...(this.tags() ?? []).map((t) => [t.id, t.name])];
    if (this.tagPicker.options.length !== options.length || options.some(([v, t], i) => this.tagPicker.options[i].value !== v || this.tagPicker.options[i].textContent !== t)) {
      this.tagPicker.replaceChildren(...options.map(([value, text]) => {
        const o = this.doc.createElement('option');
        o.value = value;
        o.textContent = text;
        return o;
      }));
    }
    for (const tile of root.querySelectorAll('[data-item]')) {
      const on = selection.has(tile.dataset.item);
      tile.classList.toggle('selected', on);
      if (on) tile.setAttribute('aria-selected', 'true');
      else tile.removeAttribute('aria-selected');
    }
  }
}
