// The roomlease HTTP API as the client calls it: bearer tokens from Firebase
// Auth, JSON bodies, errors as RoomleaseError. fetch and the clock are
// injected, so tests (and platforms without a global fetch) choose them.

/** An error answered by the API, or a network failure (status 0). */
export class RoomleaseError extends Error {
  /**
   * @param {number} status HTTP status, 0 when the request never got an answer
   * @param {string} code the API's snake_case code, or "network"
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message || code);
    this.name = 'RoomleaseError';
    this.status = status;
    this.code = code;
  }
}

export class RoomleaseApi {
  /**
   * @param {{apiUrl: string, auth: {currentUser: any}, fetch: typeof fetch, now: () => number}} deps
   */
  constructor({ apiUrl, auth, fetch, now }) {
    this.apiUrl = apiUrl;
    this.auth = auth;
    this._fetch = fetch;
    this._now = now;
    this._lastToken = null;
  }

  async _token(force) {
    const user = this.auth.currentUser;
    if (!user) throw new RoomleaseError(401, 'unauthenticated', 'sign in before joining a room');
    this._lastToken = await user.getIdToken(force);
    return this._lastToken;
  }

  /**
   * One API call. Retries once with a fresh token on 401. `sent` and
   * `received` are read from the injected clock around the request: they
   * bracket the moment the server answered, for the server clock estimate.
   * @returns {Promise<{data: any, sent: number, received: number}>}
   */
  async call(method, path, body, { retryAuth = true } = {}) {
    const token = await this._token(false);
    const sent = this._now();
    let res;
    try {
      res = await this._fetch(this.apiUrl + path, {
        method,
        headers: body === undefined
          ? { Authorization: `Bearer ${token}` }
          : { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new RoomleaseError(0, 'network', `roomlease API unreachable: ${err && err.message}`);
    }
    const received = this._now();
    if (res.status === 401 && retryAuth) {
      await this._token(true);
      return this.call(method, path, body, { retryAuth: false });
    }
    let data = null;
    if (res.status !== 204) {
      try {
        data = await res.json();
      } catch {
        data = null;
      }
    }
    if (!res.ok) {
      const e = data && data.error;
      throw new RoomleaseError(res.status, (e && e.code) || `http_${res.status}`, (e && e.message) || res.statusText);
    }
    return { data, sent, received };
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
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })).catch(() => {});
    } catch {
      // Best effort: the lease ends by itself.
    }
    return true;
  }
}
