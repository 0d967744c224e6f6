// Boards in and out (issue 37): "Import from Trello" on the start page (a Trello "Export as
// JSON" file, `POST /api/boards/import/trello?id=`, then the report of what came over and what
// did not, and a link to the board) and the board's Export menu (`GET /api/boards/{id}/export`
// as JSON, `…/export.csv` as CSV), both with the page's token. User text goes in as textContent.

import { el } from './dom.js';
import { apiHeaders, boardIdFromName, isValidId, tokenFragment } from './protocol.js';

/** The largest export the server reads (32 MiB); a larger file is refused before sending. */
export const IMPORT_LIMIT = 32 * 1024 * 1024;

/** What people read for the report's counts. */
const NAMES = {
  zones: 'lists', items: 'cards', tags: 'labels', checks: 'checklist items', comments: 'comments',
  archived: 'archived cards', attachments: 'attachments', customFields: 'custom fields', stickers: 'stickers',
  votes: 'votes', plugins: 'power-up data', closedLists: 'closed lists (their cards are archived)',
  otherActions: 'activity entries other than comments', startDates: 'start dates',
  dueComplete: 'due dates marked complete', covers: 'card covers', locations: 'locations',
  boardDescription: 'board description', boardPreferences: 'board settings (background, permissions)',
  checkItemDue: 'checklist item due dates', checkItemMembers: 'checklist item members',
  commentsOnMissingCards: 'comments on deleted cards', checklistsOnMissingCards: 'checklists of deleted cards',
};

/**
 * The report's lines: `imported` and `dropped` as [text, count] pairs, dropped ones only when
 * there were some ("3 attachments"). Unknown keys are shown by their key.
 */
export function reportLines(report) {
  const lines = (part, all) => Object.entries(part && typeof part === 'object' ? part : {})
    .filter(([, n]) => Number.isInteger(n) && (all || n > 0))
    .map(([key, n]) => [NAMES[key] ?? key, n]);
  return { imported: lines(report?.imported, true), dropped: lines(report?.dropped, false) };
}

/** The id a Trello export's board name suggests, or '' (`name` of the export's JSON). */
export function suggestedId(text) {
  try {
    const name = JSON.parse(text)?.name;
    return typeof name === 'string' ? boardIdFromName(name) ?? '' : '';
  } catch {
    return '';
  }
}

/** Wires the start page's "Import from Trello" form. */
export function installTrelloImport(root, view, win, token) {
  const form = root.querySelector('#trello-form');
  if (!form) return;
  const file = form.querySelector('#trello-file');
  const id = form.querySelector('#trello-id');
  const button = form.querySelector('button[type=submit]');
  const out = root.querySelector('#trello-report');
  let text = null;
  file.addEventListener('change', async () => {
    text = null;
    const f = file.files?.[0];
    if (!f) return;
    if (f.size > IMPORT_LIMIT) {
      view.toast(`That file is ${Math.ceil(f.size / 1048576)} MiB; the server reads at most 32 MiB`);
      return;
    }
    text = await f.text();
    if (!id.value) id.value = suggestedId(text);
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!text) {
      view.toast('Pick a Trello export (the board menu, Print and export, Export as JSON)');
      return;
    }
    const board = id.value.trim();
    if (!isValidId(board)) {
      view.toast('Board names use letters, digits, - and _ (up to 64).');
      id.focus();
      return;
    }
    button.disabled = true;
    out.hidden = true;
    try {
      const res = await win.fetch(`/api/boards/import/trello?id=${encodeURIComponent(board)}`, {
        method: 'POST', headers: apiHeaders(token, { 'content-type': 'application/json' }), body: text,
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) {
        view.toast(`Could not import: ${body.message || `HTTP ${res.status}`}`);
        return;
      }
      showReport(win.document, out, board, body, token);
    } catch {
      view.toast('The server could not be reached');
    } finally {
      button.disabled = false;
    }
  });
}

/** The report of an import that made `board`, with a link that opens it. */
function showReport(doc, out, board, body, token) {
  const { imported, dropped } = reportLines(body.report);
  const item = ([text, n]) => el(doc, 'li', { text: `${n} ${text}` });
  out.replaceChildren(
    el(doc, 'h3', { text: `Imported “${body.board?.title ?? board}”` }),
    el(doc, 'p', { className: 'note', text: 'Brought over:' }),
    el(doc, 'ul', { className: 'report-imported' }, ...imported.map(item)),
    el(doc, 'p', { className: 'note', text: dropped.length ? 'Not brought over (shuffleboard has no place for them):' : 'Nothing was left out.' }),
    el(doc, 'ul', { className: 'report-dropped' }, ...dropped.map(item)),
    el(doc, 'a', { className: 'button primary', id: 'trello-open', href: `?board=${encodeURIComponent(board)}${tokenFragment(token)}`, text: 'Open the board' }),
  );
  out.hidden = false;
  out.querySelector('#trello-open').focus();
}

/**
 * Wires the board's Export menu: each entry fetches the export with the page's token (a link
 * could not send it) and saves it under the board's name.
 */
export function installExportMenu(app) {
  const doc = app.win.document;
  for (const [selector, path, type] of [['#export-json', 'export', 'json'], ['#export-csv', 'export.csv', 'csv']]) {
    doc.querySelector(selector)?.addEventListener('click', async () => {
      doc.getElementById('export-menu')?.removeAttribute('open');
      try {
        const res = await app.win.fetch(`/api/boards/${encodeURIComponent(app.boardId)}/${path}`, {
          headers: apiHeaders(app.token),
        });
        if (!res.ok) {
          const body = await res.json().catch(() => ({}));
          app.view.toast(`Could not export: ${body.message || `HTTP ${res.status}`}`);
          return;
        }
        const url = app.win.URL.createObjectURL(await res.blob());
        const a = el(doc, 'a', { href: url, download: `${app.boardId}.${type}`, hidden: true });
        doc.body.append(a);
        a.click();
        a.remove();
        app.win.setTimeout(() => app.win.URL.revokeObjectURL(url), 10_000);
      } catch {
        app.view.toast('The server could not be reached');
      }
    });
  }
}
