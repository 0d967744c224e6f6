// The index page: the server's board list, and the form that opens (or creates) a board by name.

import { isValidId } from './protocol.js';

/** What the page says about a board name that is not an id. */
export const BAD_ID = 'Board names use letters, digits, - and _ (up to 64).';

/**
 * Shows the index page. `rename(name)` keeps the name field's value for the board page before
 * the form leaves for `?board=<id>`.
 */
export function startHome(root, view, win, rename) {
  view.showPage('home');
  view.setConnection('closed');
  root.querySelector('#open-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = root.querySelector('#board-name');
    const id = input.value.trim().replace(/\s+/g, '-');
    if (!isValidId(id)) {
      view.toast(BAD_ID);
      input.focus();
      return;
    }
    rename(root.querySelector('#name').value);
    win.location.search = `?board=${encodeURIComponent(id)}`;
  });
  loadBoardList(view, win);
}

/** Fills the board list from `GET /api/boards` (a server without the list gets a note). */
async function loadBoardList(view, win) {
  try {
    const res = await win.fetch('/api/boards', { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(String(res.status));
    const body = await res.json();
    view.renderBoardList(Array.isArray(body.boards) ? body.boards : []);
  } catch {
    view.renderBoardList(null);
  }
}
