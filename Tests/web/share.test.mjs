// Unit tests of web/share.js's pure parts: run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expiresIn, keepToken, signedInByProxy, takeToken, tokenRole } from '../../web/share.js';
import { tokenMember } from '../../web/sdk/wire.js';

const tokenWith = (claims) => `v1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;

/** A window with a location, history.replaceState and a sessionStorage, recording what they did. */
function fakeWindow(href) {
  const url = new URL(href);
  const stored = new Map();
  const win = {
    location: { pathname: url.pathname, search: url.search, hash: url.hash, origin: url.origin },
    history: { state: null, replaced: [], replaceState(state, _title, to) { this.replaced.push(to); win.location.hash = ''; } },
    sessionStorage: { getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => stored.set(k, String(v)) },
    stored,
  };
  return win;
}

test('a token in the fragment moves into sessionStorage and off the address bar', () => {
  const link = fakeWindow('https://x.test/?board=club&join=1#token=v1.abc.def');
  assert.deepEqual(takeToken(link, 'club'), { token: 'v1.abc.def', fromLink: true }, 'through /b/ID');
  assert.deepEqual(link.history.replaced, ['/?board=club']);
  const win = fakeWindow('https://x.test/?board=club#token=v1.abc.def');
  assert.deepEqual(takeToken(win, 'club'), { token: 'v1.abc.def', fromLink: false });
  assert.deepEqual(win.history.replaced, ['/?board=club']);
  assert.equal(win.stored.get('shuffleboard.token.club'), 'v1.abc.def');
  // The reload finds it in the tab's storage; another board's is not this one's.
  assert.deepEqual(takeToken(win, 'club'), { token: 'v1.abc.def', fromLink: false });
  assert.deepEqual(takeToken(win, 'other'), { token: null, fromLink: false });
  keepToken(win, 'other', 'v1.x.y');
  assert.equal(takeToken(win, 'other').token, 'v1.x.y');
});

test('a fragment that is not a token is left alone and ignored', () => {
  for (const hash of ['#token=<script>', '#token=', '#other=1', '']) {
    const win = fakeWindow(`https://x.test/?board=club${hash}`);
    assert.deepEqual(takeToken(win, 'club'), { token: null, fromLink: false }, hash);
    assert.deepEqual(win.history.replaced, []);
  }
  const broken = fakeWindow('https://x.test/?board=club');
  broken.sessionStorage = { getItem() { throw new Error('off'); }, setItem() { throw new Error('off'); } };
  assert.deepEqual(takeToken(broken, 'club'), { token: null, fromLink: false });
});

test('a token names its role; anything else names none', () => {
  assert.equal(tokenRole(tokenWith({ b: 'club', r: 'admin', e: 5 })), 'admin');
  assert.equal(tokenRole(tokenWith({ b: 'club', r: 'view', e: 5 })), 'view');
  for (const bad of [null, '', 'v1.e30.x', tokenWith({ r: 'owner' }), tokenWith([1]), 'v2.e30.x']) {
    assert.equal(tokenRole(bad), null, String(bad));
  }
});

test('a token names its member (sub) for the inbox; one without, or anything else, names none', () => {
  assert.equal(tokenMember(tokenWith({ b: 'club', r: 'edit', e: 5, sub: 'ann' })), 'ann');
  for (const bad of [null, '', 'v1.e30.x', tokenWith({ r: 'edit' }), tokenWith({ sub: '' }), tokenWith({ sub: 7 }), 'v2.e30.x']) {
    assert.equal(tokenMember(bad), null, String(bad));
  }
});

test('expiries read as whole days, hours or minutes', () => {
  const now = 1_000_000_000_000;
  assert.equal(expiresIn(now / 1000 + 7 * 86400, now), 'in 7 days');
  assert.equal(expiresIn(now / 1000 + 86400, now), 'in 24 hours');
  assert.equal(expiresIn(now / 1000 + 3600, now), 'in 60 minutes');
  assert.equal(expiresIn(now / 1000 + 30, now), 'in 1 minute');
  assert.equal(expiresIn(now / 1000 - 30, now), 'in 1 minute');
});

test('a sign-in proxy names the person only when the server says so, and nothing odd gets through', async () => {
  const asked = [];
  const winAnswering = (status, body) => ({
    fetch: async (path, init) => {
      asked.push([path, init]);
      return { ok: status === 200, status, json: async () => body };
    },
  });
  const me = await signedInByProxy(winAnswering(200, { via: 'proxy', member: 'alice', name: 'Alice Å', role: 'admin' }), 'my board');
  assert.deepEqual(me, { member: 'alice', name: 'Alice Å', role: 'admin' });
  assert.equal(asked[0][0], '/api/me?board=my%20board');
  assert.equal(asked[0][1].headers.authorization, undefined, 'no token, no Authorization: the proxy names the person');
  assert.equal(await signedInByProxy(winAnswering(200, { via: 'token', member: 'alice', name: 'A', role: 'edit' }), 'b'), null);
  assert.equal(await signedInByProxy(winAnswering(200, { via: 'open', member: null, name: null, role: 'admin' }), 'b'), null);
  assert.equal(await signedInByProxy(winAnswering(401, { error: 'unauthorized' }), 'b'), null);
  assert.equal(await signedInByProxy(winAnswering(200, { via: 'proxy', member: '<img>', name: 'x', role: 'edit' }), 'b'), null);
  assert.equal((await signedInByProxy(winAnswering(200, { via: 'proxy', member: 'bo', name: 'Bo', role: 'owner' }), 'b')).role, 'view',
    'an unknown role is the least');
  assert.equal(await signedInByProxy({ fetch: async () => { throw new Error('offline'); } }, 'b'), null);
});
