// The roomlease HTTP API as the client calls it: bearer tokens from Firebase
// Auth, JSON bodies, errors as RoomleaseError, and a deadline on every call.
// fetch, the clock and the timers are injected, so tests (and platforms
// without a global fetch) choose them.
import { plainTimers } from './timers.js';

/** An error answered by the API, or a network failure (status 0). */
export class RoomleaseError extends Error {
  /**
   * @param {number} status HTTP status, 0 when the request never got an answer
   * @param {string} code the API's snake_case code, "network" or "timeout"
   * @param {string} message
   */
  constructor(status, code, message, retryAfterSeconds = null) {
    super(message || code);
    this.name = 'RoomleaseError';
    this.status = status;
    this.code = code;
    /** The answer's Retry-After in seconds (always on a 429), or null. */
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Reads a Retry-After header: seconds, or an HTTP date relative to nowMs.
 * @returns {number | null}
 */
export function parseRetryAfter(value, nowMs) {
  if (value === null || value === undefined || value === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** True for an error that says the API could not be reached (no answer at all). */
export function isNetworkError(err) {
  return !!err && err.status === 0 && (err.code === 'network' || err.code === 'timeout');
}

/** An App Check token as the option returns it: a string, or Firebase's { token }. */
function appCheckTokenOf(result) {
  if (typeof result === 'string') return result || null;
  if (result && typeof result.token === 'string') return result.token || null;
  return null;
}

/** Sent as Roomlease-Client on every call; keep it package.json's version. */
export const CLIENT_VERSION = 'js/0.1.0';

/** How long a call waits for its answer unless told otherwise (requestTimeoutMs). */
export const DEFAULT_TIMEOUT_MS = 10_000;

export class RoomleaseApi {
  /**
   * @param {{apiUrl: string, auth: {currentUser: any}, fetch: typeof fetch, now: () => number,
   *   timers?: import('./timers.js').Timers, timeoutMs?: number,
   *   appCheckToken?: (forceRefresh: boolean) => Promise<string | {token: string} | null | undefined>}} deps
   */
  constructor({ apiUrl, auth, fetch, now, timers, timeoutMs = DEFAULT_TIMEOUT_MS, appCheckToken }) {
    this.apiUrl = apiUrl;
    this.auth = auth;
    this._fetch = fetch;
    this._now = now;
    // The client's timers, not setTimeout: the deadline then runs where the
    // heartbeat does (the browser's worker ticker) and tests that hold the
    // timers hold it too, as a suspended device would.
    this._timers = timers || plainTimers();
    /** The longest any call waits for its answer, in ms. */
    this.timeoutMs = timeoutMs;
    this._lastToken = null;
    this._appCheckToken = appCheckToken || null;
    this._lastAppCheck = null;
  }

  /** The App Check token for the next request, or null when not configured. */
  async _appCheck(force) {
    if (!this._appCheckToken) return null;
    this._lastAppCheck = appCheckTokenOf(await this._appCheckToken(force));
    return this._lastAppCheck;
  }

  _headers(token, appCheck, hasBody) {
    const headers = { Authorization: `Bearer ${token}`, 'Roomlease-Client': CLIENT_VERSION };
    if (appCheck) headers['X-Firebase-AppCheck'] = appCheck;
    if (hasBody) headers['Content-Type'] = 'application/json';
    return headers;
  }

  async _token(force) {
    const user = this.auth.currentUser;
    if (!user) throw new RoomleaseError(401, 'unauthenticated', 'sign in before joining a room');
    this._lastToken = await user.getIdToken(force);
    return this._lastToken;
  }

  /**
   * One API call, bounded by a deadline: `timeoutMs` (default this.timeoutMs)
   * from the moment it starts, covering the tokens, the request, its 401
   * retry and reading the answer. A call that has not settled by then
   * rejects with RoomleaseError(0, 'timeout') and its request is aborted;
   * a server that accepts the connection and never answers (a hung
   * instance, a black-holed network) would otherwise hold the caller, and
   * with it the heartbeat loop, until the platform gave up, minutes later.
   * The deadline is raced rather than only signalled, so a fetch that
   * ignores AbortSignal cannot hold the call either.
   *
   * Retries once on 401: with a fresh App Check token when the server says
   * app_check_failed, otherwise with a fresh ID token. `sent` and
   * `received` are read from the injected clock around the request: they
   * bracket the moment the server answered, for the server clock estimate.
   * A 429 is not retried here: the error carries `retryAfterSeconds`, and
   * the heartbeat loop waits at least that long.
   * @returns {Promise<{data: any, sent: number, received: number}>}
   */
  async call(method, path, body, { timeoutMs = this.timeoutMs, ...opts } = {}) {
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    let timer = null;
    const expired = new Promise((_, reject) => {
      timer = this._timers.set(() => {
        const err = new RoomleaseError(0, 'timeout', `roomlease API: ${method} ${path} got no answer within ${timeoutMs} ms`);
        controller?.abort(err);
        reject(err);
      }, timeoutMs, 'deadline');
    });
    try {
      return await Promise.race([this._attempt(method, path, body, opts, controller?.signal), expired]);
    } finally {
      this._timers.clear(timer);
    }
  }

  /** One request of call(), and its one retry after a 401, under call()'s deadline. */
  async _attempt(method, path, body, { retryAuth = true, forceAppCheck = false, anonymous = false }, signal) {
    const token = anonymous ? null : await this._token(false);
    const appCheck = anonymous ? null : await this._appCheck(forceAppCheck);
    const sent = this._now();
    let res;
    try {
      res = await this._fetch(this.apiUrl + path, {
        method,
        headers: anonymous ? { 'Roomlease-Client': CLIENT_VERSION } : this._headers(token, appCheck, body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      // An abort is the deadline's doing: call() has rejected with it already.
      if (signal?.aborted) throw signal.reason;
      throw new RoomleaseError(0, 'network', `roomlease API unreachable: ${err && err.message}`);
    }
    const received = this._now();
    let data = null;
    if (res.status !== 204) {
      try {
        data = await res.json();
      } catch {
        data = null;
      }
    }
    const e = data && data.error;
    if (res.status === 401 && retryAuth && !anonymous) {
      if (e && e.code === 'app_check_failed') {
        if (this._appCheckToken) return this._attempt(method, path, body, { retryAuth: false, forceAppCheck: true }, signal);
      } else {
        await this._token(true);
        return this._attempt(method, path, body, { retryAuth: false }, signal);
      }
    }
    if (!res.ok) {
      const retryAfter = parseRetryAfter(res.headers && res.headers.get ? res.headers.get('Retry-After') : null, this._now());
      throw new RoomleaseError(res.status, (e && e.code) || `http_${res.status}`, (e && e.message) || res.statusText, retryAfter);
    }
    return { data, sent, received };
  }

  /**
   * GET /v1/config: the server's project and database (where the
   * listeners must read) and its timings. It needs no token, so it works
   * before sign-in.
   * @returns {Promise<{projectId: string, database: string, heartbeatSeconds: number, leaseSeconds: number}>}
   */
  async config() {
    try {
      const { data } = await this.call('GET', '/v1/config', undefined, { anonymous: true });
      if (!data || typeof data.database !== 'string') {
        throw new RoomleaseError(0, 'internal', `GET ${this.apiUrl}/v1/config did not name a database`);
      }
      return data;
    } catch (err) {
      if (err.status === 404 || err.status === 405) {
        throw new RoomleaseError(err.status, err.code, `the roomlease server at ${this.apiUrl} does not say which Firestore database holds its rooms (GET /v1/config answered ${err.status}): it is older than this client; update it`);
      }
      throw err;
    }
  }

  /**
   * A POST from a page or app that is going away: sent with keepalive so it
   * outlives the page, with the last token because there is no time to fetch
   * one, and without waiting for an answer. Returns false when there is no
   * token yet, so nothing was sent.
   * @returns {boolean}
   */
  postAndForget(path, body) {
    const token = this._lastToken;
    if (!token) return false;
    try {
      Promise.resolve(this._fetch(this.apiUrl + path, {
        method: 'POST',
        keepalive: true,
        // The last App Check token too, for the same reason as the ID token.
        headers: this._headers(token, this._lastAppCheck, true),
        body: JSON.stringify(body),
      })).catch(() => {});
    } catch {
      // Best effort: the lease ends by itself.
    }
    return true;
  }
}
