// The page's SDK client (sdk/shuffleboard.js) for its board: made with what the page knows (the
// name, member, token, an embedding page's getToken, the kept changes' queue and seq), and its
// events onto the page — the session hears its messages and closes (it keeps the connection's
// phase, seq, users, holds and resyncs, which the session reads), and the page shows a stalled
// or refused connection and keeps a fresh token for its links. `app`: the page (app.js).

import * as P from './protocol.js';
import { Client } from './sdk/shuffleboard.js';
import { keepToken } from './share.js';

/** Makes the board's client, wires its events to the page and the session, and starts it. */
export function connect(app) {
  const c = new Client({
    url: P.socketURL(app.win.location, app.boardId),
    board: app.boardId,
    name: app.name,
    member: app.member,
    token: app.token,
    getToken: app.getToken,
    WebSocket: app.win.WebSocket,
    ...app.pending?.clientOptions(),
  });
  app.client = c;
  app.session.useClient(c); // one connection: its phase, seq, users and holds are the client's
  app.pending?.attach(c);
  // A socket that got no welcome in time (a server or a board's owner that never answers):
  // the page says so until a welcome comes, while the client keeps trying.
  c.on('connecting', () => app.view.setConnection(app.stalled ? 'stalled' : 'connecting'));
  c.on('stalled', (s) => {
    app.stalled = true;
    app.view.setConnection('stalled');
    app.view.toast(`The board has not answered for ${Math.round(s.after / 1000)} s; still trying…`);
  });
  c.on('welcome', () => {
    app.stalled = false;
    // Notices made while this page was not connected (the socket brings only new ones).
    if (app.welcomed) app.inbox?.refresh();
    app.welcomed = true;
    if (app.cardToOpen) {
      const item = app.cardToOpen;
      app.cardToOpen = null;
      // A task later, once the welcome's effects (the board shown) are carried out.
      app.win.setTimeout(() => app.openCard(item), 0);
      const url = new URL(app.win.location.href);
      url.searchParams.delete('card');
      app.win.history.replaceState(app.win.history.state, '', url);
    }
  });
  c.on('notice', (n) => app.inbox?.notice(n));
  // A new socket, with the token the client has now (a fresh one after a 4401), which links made
  // from now on carry. (The client's hello resumes from the seq the session has applied, or asks
  // for the board after a resync.)
  c.on('open', () => { app.token = c.token; });
  c.on('message', (m) => app.run(app.session.receive(m)));
  c.on('close', () => app.run(app.session.disconnected()));
  c.on('auth', (m) => {
    if (c.token) { app.token = c.token; keepToken(app.win, app.boardId, c.token); } // links made from now on carry the fresh token
    app.roleChanged(m?.role);
  });
  // The page has only the token it was opened with: no loop of refused connections.
  c.on('expired', () => {
    app.view.setConnection('expired');
    app.view.toast('Your access has expired: open the link again or ask for a new one.');
  });
  c.on('revoked', () => {
    app.view.setConnection('revoked');
    app.view.toast('Your access has been revoked.');
  });
  c.on('unauthorized', () => refused(app));
  c.on('warning', (w) => console.warn(`shuffleboard: ${w.message}`, w.error ?? ''));
  c.start();
}

/**
 * The server refused the token (or wanted one): no reconnect loop. Asks once for a token;
 * with one, it goes into the fragment and the page connects again; without, the page says why.
 */
export function refused(app) {
  app.view.setConnection('unauthorized');
  const asked = app.askedForToken ? null : app.win.prompt?.('This board needs an access token. Paste it here:');
  app.askedForToken = true;
  const token = typeof asked === 'string' ? asked.trim() : '';
  if (!/^[A-Za-z0-9._-]{1,2048}$/.test(token)) {
    app.view.toast('This board needs a valid access token: open the link you were given.');
    return;
  }
  app.token = token;
  app.client.setToken(token);
  keepToken(app.win, app.boardId, token);
  app.client.reconnect();
}

/** Ops (and drops that carry one) go through the client, which resends them after a reconnect. */
export function sendThroughClient(app, msg) {
  const c = app.client;
  if (!c) return;
  const open = c.state === 'open';
  if (!(P.OP_TYPES.has(msg.type) || (msg.type === 'drop' && msg.op))) {
    c.send(msg);
    return;
  }
  const answer = c.submit(msg);
  app.pending?.sending(msg, open, answer); // kept changes (pending.js) list a refusal of one made offline

}
