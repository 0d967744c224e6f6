// The History panel (issue 21): the board's committed changes, newest first ("Ann moved Fix the
// login page to Doing · 2 min ago"), a read-only preview of the board as of any of them (while
// the live board keeps updating underneath), and "Restore this version". The wording and paths
// are pure functions (Tests/web/history.test.mjs); the panel makes its DOM with dom.js's el(),
// so every text a client wrote goes in as text, never as markup.

import { el } from './dom.js';
import { zoneLayout } from './layout.js';
import { apiHeaders } from './protocol.js';
import { isolate } from './bidi.js';

/** Changes per page of the list. */
export const HISTORY_PAGE = 50;

/** The path of a page of the history of `board`: changes before `before` (null: the newest). */
export function historyPath(board, before = null, limit = HISTORY_PAGE) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (Number.isInteger(before)) query.set('before', String(before));
  return `/api/boards/${encodeURIComponent(board)}/history?${query}`;
}

/** The path of the board `board` as of seq `seq`. */
export function atPath(board, seq) {
  return `/api/boards/${encodeURIComponent(board)}?at=${encodeURIComponent(String(seq))}`;
}

/** How long ago `time` (ms since 1970) was at `now`, for people: "just now", "2 min ago", … */
export function ago(time, now) {
  if (!Number.isFinite(time)) return '';
  const s = Math.max(0, Math.round((now - time) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  return d === 1 ? 'yesterday' : `${d} days ago`;
}

/**
 * One history entry ({seq, by:{id, name}, time, op}) as a sentence in parts: strings, `{em: text}`
 * for what was changed (a card's label), so that the panel can set it apart, and `{bdi: text}` for
 * other text a client wrote (who, a column title), so that the panel can isolate it. Labels
 * and column titles are looked up on `board` (the live board), then on `older` (a board from
 * before the changes listed, which still has what was removed since); else the id is shown.
 * `prev`: what a rename replaced (`previousValue`), so that it reads "renamed *old* to *new*";
 * unknown (undefined), "renamed a card to *new*".
 */
export function describeChange(entry, board, older = null, prev = undefined) {
  const op = entry.op ?? {};
  const who = (typeof entry.by?.name === 'string' && entry.by.name) || entry.by?.id || 'Someone';
  const find = (b, id) => b?.items?.find((i) => i.id === id)?.label;
  const label = (id) => ({ em: find(board, id) || find(older, id) || String(id) });
  const title = (b, id) => {
    const i = b?.zones?.findIndex((z) => z.id === id) ?? -1;
    return i >= 0 ? zoneLayout(b, b.zones[i], i).title : null;
  };
  const column = (id) => title(board, id) ?? title(older, id) ?? String(id);
  const by = { bdi: who };
  const col = (id) => ({ bdi: column(id) });
  switch (op.type) {
    case 'swap': return [by, ' swapped ', label(op.a), ' and ', label(op.b)];
    case 'move': return op.before == null
      ? [by, ' moved ', label(op.item), ' to ', col(op.zone)]
      : [by, ' moved ', label(op.item), ' to ', col(op.zone), ', before ', label(op.before)];
    case 'toggle': return [by, ' turned ', label(op.item), op.on ? ' on' : ' off'];
    case 'add': return [by, ' added ', { em: String(op.item?.label ?? '') }, ' to ', col(op.zone)];
    case 'edit': if (typeof op.label === 'string') {
        return typeof prev === 'string' ? [by, ' renamed ', { em: prev }, ' to ', { em: op.label }]
          : [by, ' renamed a card to ', { em: op.label }];
      }
      if (op.detail !== undefined) return [by, op.detail === null ? ' cleared the detail of ' : ' changed the detail of ', label(op.item)];
      if (typeof op.color === 'string') return [by, ' recolored ', label(op.item)];
      if (op.description !== undefined) {
        return [by, op.description === null ? ' cleared the description of ' : ' wrote the description of ', label(op.item)];
      }
      if (op.due !== undefined) {
        return op.due === null ? [by, ' cleared the due date of ', label(op.item)]
          : [by, ' set ', label(op.item), ` due ${String(op.due).slice(0, 10)}`];
      }
      return [by, ' changed ', label(op.item)];
    case 'tag': {
      const tagName = (id) => ({ em: board?.tags?.find((t) => t.id === id)?.name ?? older?.tags?.find((t) => t.id === id)?.name ?? String(id) });
      if (op.add?.length) return [by, ' tagged ', label(op.item), ' with ', ...joinParts(op.add.map(tagName))];
      return [by, ' took ', ...joinParts((op.remove ?? []).map(tagName)), ' off ', label(op.item)];
    }
    case 'assign': {
      const person = (p) => ({ em: String(p?.name ?? p) });
      if (op.add?.length) return [by, ' assigned ', ...joinParts(op.add.map(person)), ' to ', label(op.item)];
      return [by, ' unassigned someone from ', label(op.item)];
    }
    case 'addTag': {
      const n = Array.isArray(op.items) ? op.items.length : 0;
      const on = n ? ` on ${n === 1 ? 'a card' : `${n} cards`}` : '';
      return [by, ' made the tag ', { em: String(op.tag?.name ?? '') }, ...(on ? [on] : [])];
    }
    case 'editTag': {
      const name = board?.tags?.find((t) => t.id === op.tag)?.name ?? older?.tags?.find((t) => t.id === op.tag)?.name;
      if (typeof op.name !== 'string') return name ? [by, ' recolored the tag ', { em: name }] : [by, ' recolored a tag'];
      return typeof prev === 'string' ? [by, ' renamed the tag ', { em: prev }, ' to ', { em: op.name }] : [by, ' renamed a tag to ', { em: op.name }];
    }
    case 'removeTag': {
      const name = older?.tags?.find((t) => t.id === op.tag)?.name ?? board?.tags?.find((t) => t.id === op.tag)?.name;
      return name ? [by, ' deleted the tag ', { em: name }] : [by, ' deleted a tag'];
    }
    case 'addCheck': return [by, ' added ', { em: String(op.check?.text ?? op.text ?? '') }, ' to the checklist of ', label(op.item)];
    case 'editCheck': return op.done === undefined ? [by, ' reworded a checklist item of ', label(op.item)]
      : [by, op.done ? ' ticked' : ' unticked', ' a checklist item of ', label(op.item)];
    case 'removeCheck': return [by, ' removed a checklist item from ', label(op.item)];
    case 'comment': return [by, ' commented on ', label(op.item)];
    case 'editComment': return [by, ' edited a comment on ', label(op.item)];
    case 'removeComment': return [by, ' deleted a comment on ', label(op.item)];
    case 'remove': return [by, ' removed ', label(op.item)];
    case 'addZone': return [by, ' added the column ', { em: String(op.zone?.title ?? '') }];
    case 'editZone': if (typeof op.title !== 'string') return [by, ' changed the column ', col(op.zone)];
      return typeof prev === 'string' ? [by, ' renamed the column ', { bdi: prev }, ' to ', { em: op.title }]
        : [by, ' renamed a column to ', { em: op.title }];
    case 'removeZone': return [by, ' removed the column ', col(op.zone)];
    case 'retitle': return typeof prev === 'string'
      ? [by, ' renamed the board from ', { em: prev }, ' to ', { em: String(op.title ?? '') }]
      : [by, ' renamed the board to ', { em: String(op.title ?? '') }];
    case 'restore': return [by, ` restored the board as of change ${op.to}`];
    case 'moveMany': case 'archive': case 'unarchive': {
      const n = Array.isArray(op.items) ? op.items.length : 0;
      const what = n === 1 ? [label(op.items[0])] : [`${n} cards`];
      if (op.type === 'archive') return [by, ' archived ', ...what];
      return [by, op.type === 'moveMany' ? ' moved ' : ' brought back ', ...what, ' to ', col(op.zone)];
    }
    default: return [by, ' made a change'];
  }
}

/**
 * What the rename `entries[index]` replaced (entries newest first, as the history lists them): the
 * label, column title, board title or tag name an older listed change set last, else the one on
 * `older` (the board before the oldest listed change). Undefined when it is not a rename, or not
 * known (a restore lies in between, or `older` is not here yet).
 */
export function previousValue(entries, index, older = null) {
  const op = entries[index]?.op ?? {};
  let kind;
  if (op.type === 'edit' && typeof op.label === 'string') kind = 'label';
  else if (op.type === 'editZone' && typeof op.title === 'string') kind = 'zone';
  else if (op.type === 'retitle') kind = 'board';
  else if (op.type === 'editTag' && typeof op.name === 'string') kind = 'tag';
  else return undefined;
  for (let j = index + 1; j < entries.length; j++) {
    const o = entries[j]?.op ?? {};
    if (o.type === 'restore') return undefined;
    if (kind === 'label' && o.type === 'edit' && o.item === op.item && typeof o.label === 'string') return o.label;
    if (kind === 'label' && o.type === 'add' && o.item?.id === op.item) return o.item.label;
    if (kind === 'zone' && o.type === 'editZone' && o.zone === op.zone && typeof o.title === 'string') return o.title;
    if (kind === 'zone' && o.type === 'addZone' && o.zone?.id === op.zone) return o.zone.title;
    if (kind === 'board' && o.type === 'retitle') return o.title;
    if (kind === 'tag' && o.type === 'editTag' && o.tag === op.tag && typeof o.name === 'string') return o.name;
    if (kind === 'tag' && o.type === 'addTag' && o.tag?.id === op.tag) return o.tag.name;
  }
  if (!older) return undefined;
  switch (kind) {
    case 'label': return older.items?.find((i) => i.id === op.item)?.label;
    case 'zone': {
      const i = older.zones?.findIndex((z) => z.id === op.zone) ?? -1;
      return i >= 0 ? zoneLayout(older, older.zones[i], i).title : undefined;
    }
    case 'board': return older.title;
    default: return older.tags?.find((t) => t.id === op.tag)?.name;
  }
}

/** A time (ms since 1970) in words for a notice ("5 Dec 2026, 10:42"), or null. */
export function whenText(time) {
  return Number.isFinite(time) ? new Date(time).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : null;
}

/**
 * What everyone else on a board is told of a restore (issue 35): who restored it, and to when
 * (`time`, ms since 1970, of change `to`; null: only its number is said).
 */
export function restoreNotice(name, to, time = null) {
  const who = typeof name === 'string' && name ? isolate(name) : 'Someone';
  const when = whenText(time);
  return when ? `${who} restored the board to how it was on ${when} (change ${to})` : `${who} restored the board as of change ${to}`;
}

/** `parts` joined with commas and a final "and". */
function joinParts(parts) {
  return parts.flatMap((p, i) => (i === 0 ? [p] : [i === parts.length - 1 ? ' and ' : ', ', p]));
}

/** The plain text of `describeChange`'s parts. */
export function changeText(parts) {
  return parts.map((p) => (typeof p === 'string' ? p : p.em ?? p.bdi)).join('');
}

/**
 * `describeChange`'s parts as nodes of `doc`: every text a client wrote (a name, a label, a
 * column title) in a <bdi> (an <em> around the changed label's), so that a label holding U+202E
 * cannot reverse the words after it.
 */
export function changeNodes(doc, parts) {
  return parts.map((p) => {
    if (typeof p === 'string') return p;
    if (p.em !== undefined) return el(doc, 'em', {}, el(doc, 'bdi', { text: p.em }));
    return el(doc, 'bdi', { text: p.bdi });
  });
}

/**
 * The panel. `ctx`: {boardId, token() (the bearer token, or null), fetch(path, init) (the
 * window's), liveBoard() (the board shown now), restore(seq, time) (sends the restore; `time`:
 * when change `seq` was made, or null), confirm(text),
 * now()}. It finds its elements in `doc` by id (index.html).
 */
export class HistoryPanel {
  constructor(doc, ctx) {
    this.doc = doc;
    this.ctx = ctx;
    this.root = doc.getElementById('history');
    this.toggleButton = doc.getElementById('history-toggle');
    this.list = doc.getElementById('history-list');
    this.more = doc.getElementById('history-more');
    this.status = doc.getElementById('history-status');
    this.previewBox = doc.getElementById('history-preview');
    this.banner = doc.getElementById('history-banner');
    this.previewBoard = doc.getElementById('history-board');
    this.restoreButton = doc.getElementById('history-restore');
    this.entries = [];
    this.next = null;
    this.older = null;
    this.olderSeq = null;
    this.previewing = null;
    this.previewTime = null; // when the previewed change was made (ms), for the restore notice
    this.seenSeq = null;
    this.refreshTimer = null;
    this.toggleButton.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    doc.getElementById('history-close').addEventListener('click', () => this.close());
    doc.getElementById('history-back').addEventListener('click', () => this.endPreview());
    this.more.addEventListener('click', () => this.load(this.next));
    this.restoreButton.addEventListener('click', () => this.confirmRestore());
    this.root.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      if (this.previewing !== null) this.endPreview();
      else this.close();
    });
  }

  get isOpen() {
    return !this.root.hidden;
  }

  open() {
    this.root.hidden = false;
    this.toggleButton.setAttribute('aria-expanded', 'true');
    this.load(null);
    this.doc.getElementById('history-title').focus();
  }

  close() {
    this.endPreview();
    this.root.hidden = true;
    this.toggleButton.setAttribute('aria-expanded', 'false');
    this.toggleButton.focus();
  }

  /** The live board reached `seq`: an open list shows the new changes (at most once a second). */
  boardChanged(seq) {
    if (!this.isOpen || seq === this.seenSeq || this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      if (this.isOpen) this.load(null);
    }, 1000);
  }

  async getJSON(path) {
    const res = await this.ctx.fetch(path, { headers: apiHeaders(this.ctx.token()) });
    let body = null;
    try { body = await res.json(); } catch { body = null; }
    return { status: res.status, body };
  }

  /** Loads the newest page (`before` null, replacing the list) or the page before `before`. */
  async load(before) {
    this.status.textContent = 'Loading…';
    let answer;
    try {
      answer = await this.getJSON(historyPath(this.ctx.boardId, before));
    } catch {
      this.status.textContent = 'Could not load the history; try again.';
      return;
    }
    if (answer.status !== 200 || !Array.isArray(answer.body?.history)) {
      this.status.textContent = `Could not load the history (${answer.status}).`;
      return;
    }
    const page = answer.body;
    if (before === null) {
      this.entries = [];
      this.seenSeq = page.seq;
    }
    this.entries.push(...page.history);
    this.next = page.more ? page.next : null;
    this.status.textContent = this.entries.length ? '' : 'No changes yet.';
    this.renderList();
    // What was removed since is named by the board from before the oldest change listed.
    const oldest = this.entries[this.entries.length - 1]?.seq;
    if (Number.isInteger(oldest) && oldest - 1 >= page.oldest && oldest - 1 !== this.olderSeq) {
      try {
        const at = await this.getJSON(atPath(this.ctx.boardId, oldest - 1));
        if (at.status === 200 && at.body?.board) {
          this.older = at.body.board;
          this.olderSeq = oldest - 1;
          this.renderList();
        }
      } catch { /* the ids are shown instead */ }
    }
  }

  renderList() {
    const board = this.ctx.liveBoard();
    const now = this.ctx.now();
    const items = this.entries.map((entry, index) => {
      const prev = previousValue(this.entries, index, this.older);
      const parts = changeNodes(this.doc, describeChange(entry, board, this.older, prev));
      const when = ago(entry.time, now);
      const button = el(this.doc, 'button', {
        type: 'button',
        className: 'history-entry',
        dataset: { seq: String(entry.seq) },
        attrs: { 'aria-pressed': String(this.previewing === entry.seq) },
      }, ...parts, el(this.doc, 'span', { className: 'history-when', text: when ? ` · ${when}` : '' }));
      button.addEventListener('click', () => this.preview(entry.seq));
      return el(this.doc, 'li', {}, button);
    });
    this.list.replaceChildren(...items);
    this.more.hidden = this.next === null;
  }

  /** Shows the board as of `seq`, read-only, above the list; the live board is left as it is. */
  async preview(seq) {
    this.previewing = seq;
    this.renderList();
    this.previewBox.hidden = false;
    this.banner.textContent = `Loading the board as of change ${seq}…`;
    this.previewBoard.replaceChildren();
    this.restoreButton.disabled = true;
    let answer;
    try {
      answer = await this.getJSON(atPath(this.ctx.boardId, seq));
    } catch {
      answer = { status: 0, body: null };
    }
    if (this.previewing !== seq) return; // another preview was asked for meanwhile
    if (answer.status === 410) {
      this.banner.textContent = `The board as of change ${seq} is no longer kept (the oldest is change ${answer.body?.oldest}).`;
      return;
    }
    if (answer.status !== 200 || !answer.body?.board) {
      this.banner.textContent = `Could not load the board as of change ${seq} (${answer.status}).`;
      return;
    }
    const when = ago(answer.body.time, this.ctx.now());
    this.banner.textContent = `Preview (read-only): the board as of change ${seq}${when ? `, ${when}` : ''}. The live board keeps updating.`;
    this.previewBoard.replaceChildren(...this.renderBoard(answer.body.board));
    this.previewTime = answer.body.time ?? null;
    this.restoreButton.disabled = false;
    this.restoreButton.focus();
  }

  /** The board as read-only columns of labels. */
  renderBoard(board) {
    const byId = new Map((board.items ?? []).map((it) => [it.id, it]));
    return (board.zones ?? []).map((zone, i) => el(this.doc, 'section', { className: 'history-zone' },
      el(this.doc, 'h4', {}, el(this.doc, 'bdi', { text: zoneLayout(board, zone, i).title })),
      el(this.doc, 'ul', {}, ...(zone.items ?? []).map((id) => {
        const it = byId.get(id);
        return el(this.doc, 'li', { className: 'history-item' },
          el(this.doc, 'span', { className: 'history-swatch', style: { background: it?.color ?? 'transparent' }, attrs: { 'aria-hidden': 'true' } }),
          el(this.doc, 'bdi', { text: it?.label || id }));
      }))));
  }

  endPreview() {
    if (this.previewing === null) return;
    this.previewing = null;
    this.previewBox.hidden = true;
    this.previewBoard.replaceChildren();
    this.renderList();
  }

  confirmRestore() {
    const seq = this.previewing;
    if (seq === null) return;
    const ok = this.ctx.confirm(`Restore the board as it was after change ${seq}? Everyone on it sees the change; Undo puts it back.`);
    if (!ok) return;
    this.ctx.restore(seq, this.previewTime ?? null);
    this.endPreview();
  }
}
