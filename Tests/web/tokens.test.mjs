// Unit tests of web/tokens.js (and the token helpers in protocol.js): run with `node --test Tests/web/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as P from '../../web/protocol.js';
import { LONGEST_TIMER_MS, RETRY_MS, TokenKeeper, refreshDelay } from '../../web/tokens.js';

/** An unsigned token in the server's format whose payload says `claims` (the page never verifies). */
const tokenWith = (claims) => `v1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;
const NOW = 1_764_000_000_000;
const token = (life, extra = {}) => tokenWith({ b: 'demo', r: 'edit', e: NOW / 1000 + life, ...extra });

test('a token says its expiry; anything else says none', () => {
  assert.equal(P.tokenExpiry(token(60)), NOW / 1000 + 60);
  assert.equal(P.tokenExpiry(tokenWith({ b: 'demo', r: 'edit', n: 'Zoë 😀', e: 5 })), 5);
  for (const bad of [null, '', 'v1.nope', 'v2.e30.x', 'v1.e30.x', 'v1.!!!.x', tokenWith({ e: 1.5 }), tokenWith([1])]) {
    assert.equal(P.tokenExpiry(bad), null, String(bad));
  }
  assert.deepEqual(P.auth('t'), { type: 'auth', token: 't' });
});

test('a refresh comes at 80% of the remaining life, less up to 10% of jitter', () => {
  assert.equal(refreshDelay(NOW / 1000 + 100, NOW, () => 0), 80_000);
  assert.equal(refreshDelay(NOW / 1000 + 100, NOW, () => 1), 70_000);
  assert.equal(refreshDelay(NOW / 1000 + 100, NOW, () => 0.5), 75_000);
  assert.equal(refreshDelay(NOW / 1000 - 1, NOW, () => 0), 0, 'already expired: at once');
  assert.equal(refreshDelay(NOW / 1000 + 3650 * 86_400, NOW, () => 0), LONGEST_TIMER_MS, 'never past what a timer holds');
});

test('with getToken, the keeper refreshes before expiry and plans the next refresh from the answer', () => {
  const k = new TokenKeeper(token(100), { canFetch: true, random: () => 0 });
  const [wake] = k.welcomed(NOW);
  assert.deepEqual(wake, { type: 'wake', token: wake.token, after: 80_000 });
  assert.deepEqual(k.wake(wake.token, NOW + 80_000), [{ type: 'fetch' }]);
  assert.deepEqual(k.wake(wake.token, NOW + 80_001), [], 'one fetch at a time');
  const fresh = token(1000);
  assert.deepEqual(k.fetched(fresh, NOW + 80_100), [{ type: 'send', msg: { type: 'auth', token: fresh } }]);
  assert.notEqual(k.token, fresh, 'not the session\'s token until the server takes it');
  const [next] = k.answered({ type: 'auth', role: 'edit', exp: NOW / 1000 + 1000 }, NOW + 80_200);
  assert.equal(k.token, fresh);
  assert.equal(next.type, 'wake');
  assert.equal(next.after, Math.round((1000_000 - 80_200) * 0.8));
  assert.deepEqual(k.wake(wake.token, NOW + 900_000), [], 'an old wake is ignored');
});

test('a refused refresh or a failed getToken keeps the old token and tries again before expiry', () => {
  const old = token(60);
  const k = new TokenKeeper(old, { canFetch: true, random: () => 0 });
  const [wake] = k.welcomed(NOW);
  assert.deepEqual(k.wake(wake.token, NOW + 48_000), [{ type: 'fetch' }]);
  k.fetched(token(1000, { b: 'other' }), NOW + 48_000);
  const refused = { type: 'error', code: 'unauthorized', message: 'the token is not valid for board demo' };
  const [retry] = k.error(refused, NOW + 48_100);
  assert.equal(k.token, old);
  assert.deepEqual(retry, { type: 'wake', token: retry.token, after: RETRY_MS });
  assert.deepEqual(k.wake(retry.token, NOW + 53_100), [{ type: 'fetch' }]);
  const [again] = k.fetchFailed(NOW + 57_500);
  assert.deepEqual(again, { type: 'wake', token: again.token, after: 1_500 }, 'the last try a second before expiry');
  k.wake(again.token, NOW + 59_000);
  assert.deepEqual(k.fetched('not a token!', NOW + 60_500), [], 'too late for another try');
  assert.deepEqual(k.error({ type: 'error', code: 'rate_limited', message: 'x' }, NOW), []);
});

test('the bundled page (no getToken) fetches nothing and stops at a 4401, saying its access expired', () => {
  const k = new TokenKeeper(token(5));
  assert.deepEqual(k.welcomed(NOW), [], 'no refresh to plan');
  assert.deepEqual(k.error({ type: 'error', code: 'unauthorized', message: 'token expired' }, NOW + 5000), []);
  assert.deepEqual(k.closed(4401, NOW + 5000), [{ type: 'expired' }]);
  // Reopened later with the same link: the hello is refused, and the token says why.
  const reopened = new TokenKeeper(token(5));
  assert.deepEqual(reopened.error({ type: 'error', code: 'unauthorized', message: 'a valid token for board demo is needed' }, NOW + 9000), []);
  assert.deepEqual(reopened.closed(4401, NOW + 9000), [{ type: 'expired' }]);
  // A token refused for another reason (forged, another board's) is not "expired".
  assert.deepEqual(new TokenKeeper(token(500)).closed(4401, NOW), [{ type: 'refused' }]);
  assert.deepEqual(new TokenKeeper(null).closed(4401, NOW), [{ type: 'refused' }]);
  assert.deepEqual(new TokenKeeper(token(5)).closed(1006, NOW + 9000), [], 'other closes are the app\'s to retry');
});

test('a revoked token ends the page at once, with or without getToken', () => {
  for (const canFetch of [false, true]) {
    const k = new TokenKeeper(token(600), { canFetch, random: () => 0 });
    k.welcomed(NOW);
    k.error({ type: 'error', code: 'unauthorized', message: 'token revoked' }, NOW + 1000);
    assert.deepEqual(k.closed(4401, NOW + 1000), [{ type: 'revoked' }], `canFetch: ${canFetch}`);
  }
});

test('with getToken, a 4401 fetches one fresh token and connects again; a second 4401 ends it', () => {
  const k = new TokenKeeper(token(5), { canFetch: true, random: () => 0 });
  k.welcomed(NOW);
  k.error({ type: 'error', code: 'unauthorized', message: 'token expired' }, NOW + 5000);
  assert.deepEqual(k.closed(4401, NOW + 5000), [{ type: 'fetch' }]);
  const fresh = token(600);
  assert.deepEqual(k.fetched(fresh, NOW + 5100), [{ type: 'reconnect' }]);
  assert.equal(k.token, fresh, 'the next hello carries it');
  assert.deepEqual(k.closed(4401, NOW + 5200), [{ type: 'refused' }], 'refused again: no loop');
  // A failed fetch after the close ends it at once.
  const k2 = new TokenKeeper(token(5), { canFetch: true });
  k2.closed(4401, NOW + 6000);
  assert.deepEqual(k2.fetchFailed(NOW + 6100), [{ type: 'expired' }]);
  // Once welcomed again, a later 4401 gets its one fetch again.
  const k3 = new TokenKeeper(token(5), { canFetch: true, random: () => 0 });
  k3.closed(4401, NOW + 6000);
  k3.fetched(token(600), NOW + 6100);
  k3.welcomed(NOW + 6200);
  assert.deepEqual(k3.closed(4401, NOW + 600_000), [{ type: 'fetch' }]);
});
