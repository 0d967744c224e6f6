// The start page: the server's boards (a page at a time), a form that makes a new board from a
// template and opens it, and one that opens (or creates) a board by name.

import { loadTemplates } from './boardgate.js';
import { ago, historyPath } from './history.js';
import { templateMode } from './layout.js';
import {
  apiHeaders, boardIdFromName, boardsPagePath, isValidId, newBoardRequest, newOpId, tokenFragment,
} from './protocol.js';

/** What the page says about a board name that is not an id. */
export const BAD_ID = 'Board names use letters, digits, - and _ (up to 64).';

/** Boards per page of the list. */
export const PAGE_SIZE = 20;

/**
 * Shows the start page. `rename(name)` keeps the name field's value for the board page before
 * the page leaves for `?board=<id>`.
 */
export function startHome(root, view, win, rename, token = null) {
  view.showPage('home');
  view.setConnection('closed');
  const go = (id, mode) => {
    rename(root.querySelector('#name').value);
    // The token (if any) stays in the fragment of the board's URL.
    win.location.assign(`?board=${encodeURIComponent(id)}${mode ? `&mode=${mode}` : ''}${tokenFragment(token)}`);
  };

  root.querySelector('#open-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = root.querySelector('#board-name');
    const id = input.value.trim().replace(/\s+/g, '-');
    if (!isValidId(id)) {
      view.toast(BAD_ID);
      input.focus();
      return;
    }
    go(id);
  });

  let busy = false;
  root.querySelector('#new-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const template = root.querySelector('#templates input:checked')?.value;
    if (!template || busy) return;
    busy = true;
    view.startPage.setCreating(true);
    try {
      const id = await createBoard(win, template, root.querySelector('#new-title').value, token);
      go(id, templateMode(template));
    } catch (err) {
      view.toast(`Could not make the board: ${err.message}`);
    } finally {
      busy = false;
      view.startPage.setCreating(false);
    }
  });

  let next = null;
  const more = root.querySelector('#more-boards');
  more.addEventListener('click', async () => {
    if (!next) return;
    more.disabled = true;
    next = await loadBoards(view, win, next, token, titles);
    more.disabled = false;
  });
  const titles = fillTemplates(view, win);
  loadBoards(view, win, null, token, titles).then((n) => { next = n; });
  root.querySelector('#board-list').addEventListener('click', (e) => {
    const b = e.target.closest?.('[data-board-action]');
    if (b) manageBoard(view, win, b.dataset.boardAction, b.dataset.id, token);
  });
}

/**
 * Renames (a `retitle` op through `POST /api/boards/{id}/ops`) or deletes (`DELETE
 * /api/boards/{id}`, after asking) the listed board `id`. On a server with access control only
 * an admin's token may; the server's refusal is shown as it says it.
 */
async function manageBoard(view, win, kind, id, token) {
  const item = win.document.querySelector(`#board-list [data-board="${CSS.escape(id)}"]`);
  if (!item) return;
  const name = item.querySelector('a')?.textContent ?? id;
  let res;
  try {
    if (kind === 'delete') {
      if (!win.confirm(`Delete the board ${name}? Everyone on it is disconnected, and it cannot be undone.`)) return;
      res = await win.fetch(`/api/boards/${encodeURIComponent(id)}`, { method: 'DELETE', headers: apiHeaders(token) });
    } else {
      const title = win.prompt(`A new name for ${name}:`, '')?.trim();
      if (!title) return;
      const op = { type: 'retitle', op: newOpId(), base: Number(item.dataset.seq) || 0, title: title.slice(0, 200) };
      res = await win.fetch(`/api/boards/${encodeURIComponent(id)}/ops`, {
        method: 'POST', headers: apiHeaders(token, { 'content-type': 'application/json' }), body: JSON.stringify(op),
      });
    }
  } catch {
    view.toast('The server could not be reached');
    return;
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    view.toast(`Could not ${kind} the board: ${body.message || `HTTP ${res.status}`}`);
    return;
  }
  if (kind === 'delete') {
    item.remove();
    view.toast(`Deleted ${id}`);
  } else {
    const link = item.querySelector('a');
    const title = body.op?.title ?? '';
    link.textContent = title && title !== id ? `${title} (${id})` : id;
    if (Number.isInteger(body.seq)) item.dataset.seq = String(body.seq);
    view.toast(`Renamed ${id}`);
  }
}

/**
 * Makes a board from `template` titled `title` (`POST /api/boards`); returns its id. The id comes
 * from the name when it is free (`team-retro`, else `team-retro-2`, `-3`); otherwise, or for a name
 * with nothing to make an id of, the server makes one.
 */
async function createBoard(win, template, title, token) {
  const base = boardIdFromName(title);
  const ids = base ? [base, `${base.slice(0, 62)}-2`, `${base.slice(0, 62)}-3`, null] : [null];
  for (const id of ids) {
    const res = await win.fetch('/api/boards', {
      method: 'POST',
      headers: apiHeaders(token, { 'content-type': 'application/json' }),
      body: JSON.stringify(newBoardRequest(template, title, id)),
    });
    if (res.status === 409 && id) continue;
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
    if (!isValidId(body.board?.id)) throw new Error('the server answered without a board');
    return body.board.id;
  }
  throw new Error('no free id'); // not reached: the last try has no id
}

/**
 * Fills the template choices from `GET /api/templates`, Kanban first (none: the form stays hidden).
 * Resolves to each template's title by its name, for the board list.
 */
async function fillTemplates(view, win) {
  const templates = await loadTemplates(win);
  view.startPage.renderTemplates(templates.length ? templates : null);
  return new Map(templates.map((t) => [t.name, t.title || t.name]));
}

/**
 * Says who made each listed board's last change, and when ("last change by Ann, 2 min ago"),
 * from `GET /api/boards/{id}/history?limit=1`: one board at a time, so the page never has more
 * than one history read waiting (the server limits them per address). Stops at the first failure.
 */
async function lastChanges(view, win, boards, token) {
  for (const b of boards) {
    if (!isValidId(b?.id) || !(b.seq > 0)) continue;
    let entry;
    try {
      const res = await win.fetch(historyPath(b.id, null, 1), { headers: apiHeaders(token) });
      if (!res.ok) return;
      entry = (await res.json()).history?.[0];
    } catch {
      return;
    }
    if (entry) view.startPage.showLastChange(b.id, entry.by?.name ?? null, ago(entry.time, Date.now()));
  }
}

/**
 * Shows a page of `GET /api/boards` (the first when `after` is null, else appended); returns the
 * `after` of the next page, or null. A server without the list gets a note. `titles` resolves to
 * the templates' titles by name (`fillTemplates`).
 */
async function loadBoards(view, win, after, token, titles) {
  try {
    const res = await win.fetch(boardsPagePath(after, PAGE_SIZE), { headers: apiHeaders(token) });
    if (!res.ok) throw new Error(String(res.status));
    const body = await res.json();
    const next = isValidId(body.next) ? body.next : null;
    const boards = Array.isArray(body.boards) ? body.boards : [];
    view.startPage.renderBoardList(boards, {
      append: !!after, more: !!next, fragment: tokenFragment(token), templates: await titles,
    });
    lastChanges(view, win, boards, token); // not awaited: the list is usable meanwhile
    return next;
  } catch {
    if (!after) view.startPage.renderBoardList(null);
    else view.toast('Could not load more boards');
    return after;
  }
}
