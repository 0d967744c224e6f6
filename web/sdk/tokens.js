// Tokens that end (docs/sdk.md, "Tokens"): when a client with a `getToken()` hook fetches a
// fresh token, and what a close with 4401 means. Pure: no socket, timer or clock; each call takes
// the time and returns effects for the SDK's client (shuffleboard.js) to carry out, in order:
//   {type:'wake', token, after}  call wake(token, now) after `after` ms
//   {type:'fetch'}               call getToken(), then fetched(token, now) or fetchFailed(now)
//   {type:'send', msg}           send `msg` on the open socket
//   {type:'reconnect'}           connect again (the next hello carries `keeper.token`)
//   {type:'expired'}             say "Your access has expired"; do not reconnect
//   {type:'revoked'}             say "Your access has been revoked"; do not reconnect
//   {type:'refused'}             the token was refused for another reason; do not reconnect on its own

import { auth, isToken, tokenExpiry } from './wire.js';

/** A refresh is planned at 80% of the token's remaining life, less up to 10% of jitter. */
export const REFRESH_AT = 0.8;
export const JITTER = 0.1;
/** After a failed fetch or a refused refresh, the next try comes this much later (or sooner, before expiry). */
export const RETRY_MS = 5000;
/** The longest timer browsers keep (a longer one fires at once): a refresh is planned no later. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;
/** The server's message when a session's token has run out. */
export const EXPIRED_MESSAGE = 'token expired';
/** The server's message when a session's token has been revoked. */
export const REVOKED_MESSAGE = 'token revoked';

/** How long after `now` (ms) to refresh a token that expires at `exp` (seconds since 1970). */
export function refreshDelay(exp, now, random = Math.random) {
  const left = exp * 1000 - now;
  if (left <= 0) return 0;
  return Math.min(LONGEST_TIMER_MS, Math.round(left * (REFRESH_AT - JITTER * random())));
}

export class TokenKeeper {
  /**
   * `token`: the page's token (null: none). `canFetch`: the page has a `getToken()` hook; without
   * one nothing is ever fetched, and a 4401 ends the page's connecting.
   */
  constructor(token, { canFetch = false, random = Math.random } = {}) {
    this.token = token; // the token the server holds the session to (and the next hello sends)
    this.offered = null; // a fresh token sent in `auth`, not answered yet
    this.canFetch = canFetch;
    this.random = random;
    this.wakeToken = 0; // the wake that counts; older ones are ignored
    this.fetching = false;
    this.open = false; // a session is on the board (welcomed, not closed)
    this.expiredSaid = false; // the server said "token expired" on this connection (or the last one)
    this.revokedSaid = false; // the server said "token revoked" on this connection
    this.fetchedForClose = false; // a 4401 made the page fetch a token; a second one ends it
  }

  /** The server welcomed this page: plan the refresh. */
  welcomed(now) {
    this.open = true;
    this.expiredSaid = false;
    this.fetchedForClose = false;
    return this.#plan(tokenExpiry(this.token), now);
  }

  /** The server took a fresh token (`auth`): plan the next refresh from its `exp`. */
  answered(m, now) {
    if (this.offered) this.token = this.offered;
    this.offered = null;
    return this.#plan(Number.isSafeInteger(m?.exp) ? m.exp : null, now);
  }

  /** An `error` from the server: `unauthorized` is a refused refresh, or the expiry itself. */
  error(m, now) {
    if (m?.code !== 'unauthorized') return [];
    if (m.message === EXPIRED_MESSAGE) {
      this.expiredSaid = true;
      return [];
    }
    if (m.message === REVOKED_MESSAGE) {
      this.revokedSaid = true;
      return [];
    }
    if (!this.offered) return []; // a hello refused: the close that follows says what to do
    this.offered = null; // refused: the session keeps its token
    return this.open ? this.#retry(now) : [];
  }

  /** A timer asked for by a `wake` effect fired. */
  wake(token, now) {
    if (token !== this.wakeToken || this.fetching || !this.canFetch) return [];
    this.fetching = true;
    return [{ type: 'fetch' }];
  }

  /** `getToken()` gave `token`. */
  fetched(token, now) {
    this.fetching = false;
    if (!isToken(token)) return this.fetchFailed(now);
    if (this.open) {
      this.offered = token;
      return [{ type: 'send', msg: auth(token) }];
    }
    this.token = token;
    return this.fetchedForClose ? [{ type: 'reconnect' }] : [];
  }

  /** `getToken()` failed (or gave something that is not a token). */
  fetchFailed(now) {
    this.fetching = false;
    if (!this.open && this.fetchedForClose) {
      this.expiredSaid = true; // the token it closed with ran out, and none came
      return [this.#ended(now)];
    }
    return this.#retry(now);
  }

  /** The socket closed with `code`. Any close but 4401 is the app's to reconnect. */
  closed(code, now) {
    this.open = false;
    this.offered = null;
    this.wakeToken += 1;
    if (code !== 4401) {
      this.expiredSaid = false;
      this.revokedSaid = false;
      return [];
    }
    if (this.revokedSaid) return [{ type: 'revoked' }]; // another token from getToken() would be the same one
    if (this.canFetch && !this.fetchedForClose) {
      // Its token ran out (a laptop asleep past the refresh): one fresh token, one more try.
      this.fetchedForClose = true;
      this.expiredSaid = false; // what the next connection says counts now
      if (this.fetching) return [];
      this.fetching = true;
      return [{ type: 'fetch' }];
    }
    return [this.#ended(now)];
  }

  #ended(now) {
    const exp = tokenExpiry(this.token);
    const expired = this.expiredSaid || (exp !== null && exp * 1000 <= now);
    return { type: expired ? 'expired' : 'refused' };
  }

  #plan(exp, now) {
    if (!this.canFetch || exp === null) return [];
    this.wakeToken += 1;
    return [{ type: 'wake', token: this.wakeToken, after: refreshDelay(exp, now, this.random) }];
  }

  /** Another try soon, while the token still holds. */
  #retry(now) {
    const exp = tokenExpiry(this.token);
    if (!this.canFetch || exp === null || exp * 1000 <= now) return [];
    this.wakeToken += 1;
    return [{ type: 'wake', token: this.wakeToken, after: Math.max(0, Math.min(RETRY_MS, exp * 1000 - now - 1000)) }];
  }
}
