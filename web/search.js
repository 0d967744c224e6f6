// Search every board (issue 36): the search box in the toolbar — on the start page and on a
// board — asks `GET /api/search` as the person types, lists what it found (the board, the card's
// label, a snippet with the words found marked) and opens the result picked: its board, with
// the card's panel open (`?board=ID&card=ITEM`; on the board already shown, the panel opens at
// once). Everything the server sends goes into the page as text (textContent and <mark>
// elements made here), never as HTML.

import { apiHeaders, tokenFragment } from './protocol.js';

/** How long typing pauses before the search is asked (ms). */
export const SEARCH_PAUSE_MS = 200;
/** How many results one search shows. */
export const SEARCH_LIMIT = 20;
/** The most characters of a query the box sends (the server takes 64, at most 256 bytes). */
export const SEARCH_MAX_CHARS = 64;

const WORD = /[\p{L}\p{N}\p{Co}][\p{L}\p{M}\p{N}\p{Co}]*/gu;

/** The words of `text` as the server reads them: runs of letters and digits, lowercased. */
export function queryWords(text) {
  return (String(text ?? '').match(WORD) ?? []).map((w) => w.toLowerCase()).slice(0, 8);
}

/**
 * `snippet` as nodes of `doc`: text, with each word that begins with one of `words` in a <mark>.
 * Only text nodes and <mark> elements are made: nothing in the snippet is read as HTML.
 */
export function markSnippet(doc, snippet, words) {
  const out = doc.createDocumentFragment();
  const text = String(snippet ?? '');
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const word = m[0].toLowerCase();
    if (!words.some((w) => word.startsWith(w))) continue;
    if (m.index > last) out.append(doc.createTextNode(text.slice(last, m.index)));
    const mark = doc.createElement('mark');
    mark.textContent = m[0];
    out.append(mark);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.append(doc.createTextNode(text.slice(last)));
  return out;
}

/** The page of a result: its board, and its card's panel open. */
export function resultHref(hit, token) {
  const card = hit.item ? `&card=${encodeURIComponent(hit.item)}` : '';
  return `?board=${encodeURIComponent(hit.board)}${card}${tokenFragment(token)}`;
}

/**
 * The search box (`#search` in index.html). `options`: token() (the page's token, or null),
 * open(hit) (true when the page showed the result itself: a card of the board shown), and
 * setTimeout/clearTimeout (the page's, so tests may pass their own).
 */
export class SearchBox {
  constructor(doc, win, options) {
    this.doc = doc;
    this.win = win;
    this.options = options;
    this.form = doc.getElementById('search');
    this.input = doc.getElementById('search-text');
    this.panel = doc.getElementById('search-results');
    this.status = doc.getElementById('search-status');
    this.list = doc.getElementById('search-list');
    this.timer = null;
    this.asked = 0; // the number of the newest search asked: older answers are dropped
    this.input.maxLength = SEARCH_MAX_CHARS;
    this.input.addEventListener('input', () => this.typed());
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.ask();
    });
    this.form.addEventListener('keydown', (e) => this.key(e));
    doc.addEventListener('pointerdown', (e) => { if (!this.form.contains(e.target)) this.close(); });
  }

  typed() {
    this.win.clearTimeout(this.timer);
    this.timer = this.win.setTimeout(() => this.ask(), SEARCH_PAUSE_MS);
  }

  key(e) {
    if (e.key === 'Escape') {
      e.stopPropagation();
      this.close();
      this.input.focus();
      return;
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = [...this.list.querySelectorAll('a')];
    if (!links.length) return;
    e.preventDefault();
    const at = links.indexOf(this.doc.activeElement);
    const next = e.key === 'ArrowDown' ? Math.min(at + 1, links.length - 1) : at - 1;
    (next < 0 ? this.input : links[next]).focus();
  }

  close() {
    this.panel.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
  }

  async ask() {
    this.win.clearTimeout(this.timer);
    const text = this.input.value.trim();
    const words = queryWords(text);
    const n = ++this.asked;
    if (!words.length) {
      this.close();
      return;
    }
    this.show(words, null, 'Searching…');
    let answer = null;
    let problem = null;
    try {
      const res = await this.win.fetch(`/api/search?q=${encodeURIComponent(text)}&limit=${SEARCH_LIMIT}`, {
        headers: apiHeaders(this.options.token()),
      });
      const body = await res.json().catch(() => ({}));
      if (res.ok && Array.isArray(body.results)) answer = body;
      else problem = `Search failed: ${body.message || `HTTP ${res.status}`}`;
    } catch {
      problem = 'The server could not be reached';
    }
    if (n !== this.asked) return; // a newer search is on its way
    if (problem) this.show(words, null, problem);
    else this.show(words, answer);
  }

  /** Shows the results of `answer` (or only `note`). */
  show(words, answer, note = '') {
    const d = this.doc;
    this.list.replaceChildren();
    this.panel.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    if (!answer) {
      this.status.textContent = note;
      return;
    }
    const results = answer.results.filter((r) => r && typeof r.board === 'string');
    this.status.textContent = results.length === 0 ? 'Nothing found'
      : `${results.length}${answer.more ? '+' : ''} found`;
    for (const hit of results) {
      const a = d.createElement('a');
      a.className = 'search-hit';
      a.href = resultHref(hit, this.options.token());
      a.dataset.board = hit.board;
      if (hit.item) a.dataset.item = hit.item;
      const where = d.createElement('span');
      where.className = 'search-where';
      where.textContent = hit.boardTitle || hit.board;
      const label = d.createElement('span');
      label.className = 'search-label';
      label.append(markSnippet(d, hit.item ? hit.label : hit.boardTitle || hit.board, words));
      const line = d.createElement('span');
      line.className = 'search-line';
      line.append(label);
      if (hit.archived) {
        const badge = d.createElement('span');
        badge.className = 'search-badge';
        badge.textContent = 'Archived';
        line.append(badge);
      }
      if (hit.comment) {
        const badge = d.createElement('span');
        badge.className = 'search-badge';
        badge.textContent = 'Comment';
        line.append(badge);
      }
      a.append(where, line);
      // A card found by its label alone has its label for a snippet: not shown twice.
      if (hit.snippet && hit.item && hit.snippet !== hit.label) {
        const snippet = d.createElement('span');
        snippet.className = 'search-snippet';
        snippet.append(markSnippet(d, hit.snippet, words));
        a.append(snippet);
      }
      a.addEventListener('click', (e) => {
        if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
        if (this.options.open(hit)) {
          e.preventDefault();
          this.close();
        }
      });
      const li = d.createElement('li');
      li.append(a);
      this.list.append(li);
    }
  }
}
