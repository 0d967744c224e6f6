// Before a board page connects (issue 35): does the board exist? A link to one that does not
// (a typo, an old link) asks "There is no board X. Create it?" with a choice of template, Kanban
// first, instead of the server making a default board behind the person's back. Nothing is made
// until they confirm; then `POST /api/boards {id, template, title: id}` makes it.
//
// A link that carries an access token is not asked about: whoever issued the token chose the
// board, and the server decides (a `view` token never creates one). Nor is a board whose
// existence the server would not say (no answer, 401, 5xx): the page connects as before.

import { apiHeaders, newBoardRequest } from './protocol.js';

/**
 * Whether the board `id` exists: true, false (404), or null when the server does not say (the
 * request failed, or any other status). `HEAD`, so no board is read out.
 */
export async function boardExists(win, id, token) {
  try {
    const res = await win.fetch(`/api/boards/${encodeURIComponent(id)}`, { method: 'HEAD', headers: apiHeaders(token) });
    if (res.status === 404) return false;
    return res.ok ? true : null;
  } catch {
    return null;
  }
}

/** Templates in the order the page offers them: Kanban first, then the server's order. */
export function offeredTemplates(templates) {
  const list = Array.isArray(templates) ? templates.filter((t) => typeof t?.name === 'string') : [];
  return [...list.filter((t) => t.name === 'kanban'), ...list.filter((t) => t.name !== 'kanban')];
}

/** The server's templates (`GET /api/templates`), Kanban first; [] when it has none. */
export async function loadTemplates(win) {
  try {
    const res = await win.fetch('/api/templates', { headers: { accept: 'application/json' } });
    if (!res.ok) return [];
    return offeredTemplates((await res.json()).templates);
  } catch {
    return [];
  }
}

/**
 * Shows the question for the missing board `id` and resolves once the board exists (made here
 * with the chosen template; the page then connects). `view` shows pages and toasts; the
 * question's form is #missing-form (index.html).
 */
export async function askToCreate(root, view, win, id, token) {
  view.showPage('missing');
  view.setConnection('closed');
  root.querySelector('#missing-id').textContent = id;
  win.document.title = `No board ${id} — shuffleboard`;
  const templates = await loadTemplates(win);
  view.startPage.renderTemplates(templates, '#missing-templates');
  root.querySelector('#missing-title').focus();
  const form = root.querySelector('#missing-form');
  const submit = form.querySelector('button[type=submit]');
  return new Promise((resolve) => {
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const template = form.querySelector('input[name=template]:checked')?.value ?? 'kanban';
      submit.disabled = true;
      try {
        const res = await win.fetch('/api/boards', {
          method: 'POST',
          headers: apiHeaders(token, { 'content-type': 'application/json' }),
          body: JSON.stringify(newBoardRequest(template, id, id)),
        });
        // 409: someone made it meanwhile; it exists now either way.
        if (!res.ok && res.status !== 409) {
          const body = await res.json().catch(() => ({}));
          throw new Error(body.message || `HTTP ${res.status}`);
        }
        resolve(template);
      } catch (err) {
        view.toast(`Could not make the board: ${err.message}`);
        submit.disabled = false;
      }
    });
  });
}
