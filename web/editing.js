// The editing rules of the page (issue 19; a part of the session, session.js): what each editing
// intent sends, or why it is refused before anything is sent, and the words for places on the
// board. Pure: each rule takes the board as shown and returns a decision —
//   {body, text, undoToast?, reveal?}  one op (`body`), announced with `text`; `undoToast`: a
//                                      toast offering Undo of it; `reveal`: scroll the new card in
//   {refuse: text}                     refused, saying why
//   null                               nothing to do (nothing changed, or nothing to change)

import * as P from './protocol.js';
import { isolate } from './bidi.js';
import { isPendingId, itemById, locate } from './state.js';
import { zoneLayout } from './layout.js';

/** A card's label, or its id, isolated for a composed sentence (bidi.js). */
export function labelOf(board, id) {
  return isolate((board && itemById(board, id)?.label) || id);
}

/** A zone's title as shown (layout.js), isolated. */
export function zoneTitle(board, id) {
  const i = board ? board.zones.findIndex((z) => z.id === id) : -1;
  return isolate(i < 0 ? id : zoneLayout(board, board.zones[i], i).title);
}

/** Where `item` is, in words ("Doing position 2 of 5"). */
export function describePlace(board, item) {
  const at = board ? locate(board, item) : null;
  return at ? `${zoneTitle(board, at.zone.id)} position ${at.index + 1} of ${at.zone.items.length}` : 'its place';
}

/** A drag target {over, zone} in words. */
export function describeTarget(board, t) {
  if (!t) return 'no target';
  if (t.over == null) return `the end of ${zoneTitle(board, t.zone)}`;
  const at = board ? locate(board, t.over) : null;
  const where = at ? `, ${zoneTitle(board, at.zone.id)} position ${at.index + 1} of ${at.zone.items.length}` : '';
  return `${labelOf(board, t.over)}${where}`;
}

/** Adds a card labelled `label` at the end of `zone` (or before `before`). */
export function addCard(b, zone, label, { before = null, color, detail } = {}) {
  const text = String(label ?? '').trim();
  if (!b || !b.zones.some((z) => z.id === zone) || isPendingId(zone)) return null;
  if (!text) return { refuse: 'Type a label for the new card first' };
  const problem = P.textProblem(text, P.LIMITS.label);
  if (problem) return { refuse: `A card's label ${problem}` };
  if (b.items.length >= P.LIMITS.items) return { refuse: P.rejectText('board_full') };
  const item = { label: text };
  if (color) item.color = color;
  if (typeof detail === 'string' && detail) item.detail = detail;
  // Shown where it will stay, scrolled into sight (the end of a long strip is off to the side).
  return { body: { type: 'add', zone, before, item }, text: `Added ${text} to ${zoneTitle(b, zone)}.`, reveal: true };
}

/** Changes some of `item`'s label, color and detail; unchanged fields are left out. */
export function editCard(b, item, changes) {
  const it = b && !isPendingId(item) ? itemById(b, item) : null;
  if (!it) return null;
  const body = { type: 'edit', item };
  if (typeof changes.label === 'string') {
    const label = changes.label.trim();
    if (!label) return { refuse: 'A card needs a label; to delete it, press Delete' };
    const problem = P.textProblem(label, P.LIMITS.label);
    if (problem) return { refuse: `A card's label ${problem}` };
    if (label !== it.label) body.label = label;
  }
  if (typeof changes.color === 'string' && changes.color !== it.color) body.color = changes.color;
  if (changes.detail !== undefined) {
    const detail = typeof changes.detail === 'string' && changes.detail.trim() ? changes.detail.trim() : null;
    const problem = detail === null ? null : P.textProblem(detail, P.LIMITS.detail);
    if (problem) return { refuse: `A card's detail ${problem}` };
    if (detail !== (it.detail ?? null)) body.detail = detail;
  }
  if (Object.keys(body).length === 2) return null; // nothing changed
  return { body, text: `Changed ${it.label}${body.label ? ` to ${body.label}` : ''}.` };
}

/**
 * An op about a card's content (issue 32) from the card panel: `edit` of description or due,
 * `tag`, `assign`, `addTag`, `editTag`, `removeTag`, `addCheck`, `editCheck`, `removeCheck`.
 * Sent as it is (the panel checked its texts); `text` is what screen readers hear.
 */
export function cardOp(b, body, text) {
  if (!b || (body.item && (isPendingId(body.item) || !itemById(b, body.item)))) return null;
  return { body, text };
}

/** Removes `item` (the session refuses it first when someone else holds it). */
export function removeCard(b, item) {
  const it = b && !isPendingId(item) ? itemById(b, item) : null;
  if (!it) return null;
  return { body: { type: 'remove', item }, text: `Removed ${isolate(it.label)}.`, undoToast: `Removed “${isolate(it.label)}”` };
}

/** Adds a zone titled `title` (a list) before zone `before`, or last. */
export function addZone(b, title, { before = null, layout = 'list' } = {}) {
  const text = String(title ?? '').trim();
  if (!b) return null;
  const problem = P.textProblem(text, P.LIMITS.zoneTitle);
  if (problem) return { refuse: `A column's title ${problem}` };
  if (b.zones.length >= P.LIMITS.zones) return { refuse: P.rejectText('board_full') };
  return { body: { type: 'addZone', before, zone: { title: text, layout } }, text: `Added the column ${text}.` };
}

/** Renames zone `zone`. */
export function renameZone(b, zone, title) {
  const z = b && !isPendingId(zone) ? b.zones.find((x) => x.id === zone) : null;
  const text = String(title ?? '').trim();
  if (!z) return null;
  const problem = P.textProblem(text, P.LIMITS.zoneTitle);
  if (problem) return { refuse: `A column's title ${problem}` };
  if (text === z.title) return null;
  return { body: { type: 'editZone', zone, title: text }, text: `Renamed the column to ${text}.` };
}

/** Removes zone `zone`, which must be empty (refused, saying why, otherwise). */
export function removeZone(b, zone) {
  const z = b && !isPendingId(zone) ? b.zones.find((x) => x.id === zone) : null;
  if (!z) return null;
  if (z.items.length) return { refuse: P.rejectText('not_empty') };
  if (b.zones.length === 1) return { refuse: 'A board keeps at least one column' };
  const name = zoneTitle(b, zone);
  return { body: { type: 'removeZone', zone }, text: `Removed the column ${name}.`, undoToast: `Removed the column “${name}”` };
}

/** Renames the board. */
export function retitle(b, title) {
  const text = String(title ?? '').trim();
  if (!b) return null;
  const problem = P.textProblem(text, P.LIMITS.title);
  if (problem) return { refuse: `The board's name ${problem}` };
  if (text === b.title) return null;
  return { body: { type: 'retitle', title: text }, text: `Renamed the board to ${text}.` };
}

/** Puts the whole board back as it was right after op `to` (the History panel's "Restore"); `seq`: the last applied. */
export function restore(loaded, seq, to, when = null) {
  if (!loaded || !Number.isInteger(to) || to < 0 || to > seq) return null;
  return { body: { type: 'restore', to }, text: `Restoring the board as of change ${to}.`, undoToast: when ? `Restored the board to how it was on ${when} (change ${to})` : `Restored the board as of change ${to}` };
}
