// The platform-free client: rooms, the API, the server clock estimate. It
// touches no window, document, AppState or process: platform adapters
// (browser/, react-native.js, node.js) supply session ids, timers and
// lifecycle hooks, and call pauseAll/resumeAll/wakeAll/goAway/goOffline.
import { DEFAULT_TIMEOUT_MS, RoomleaseApi } from './api.js';
import { databaseOf, openDatabase } from './database.js';
import { Room } from './room.js';
import { ServerClock } from './server-clock.js';
import { memorySessionIds } from './session-ids.js';
import { plainTimers } from './timers.js';

export class RoomleaseClient {
  /** @param {import('../types/index').ClientOptions} options */
  constructor(options) {
    const { apiUrl, auth, app, firestore, firestoreEmulator } = options || {};
    if (!apiUrl || !auth || !(app || firestore)) {
      throw new TypeError('a roomlease client needs apiUrl, auth and app (the Firebase app: the client opens the Firestore database the server names)');
    }
    if (firestore && !databaseOf(firestore)) {
      throw new TypeError('firestore is not a Firestore instance of the Firebase JS SDK; pass app instead');
    }
    if (firestoreEmulator && !(firestoreEmulator.host && Number.isInteger(Number(firestoreEmulator.port)))) {
      throw new TypeError('firestoreEmulator must be {host, port}');
    }
    const jitter = options.heartbeatJitter ?? 0.2;
    if (!(jitter >= 0 && jitter < 1)) throw new RangeError('heartbeatJitter must be at least 0 and below 1');
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Timers take at most 2^31 − 1 ms; a longer delay fires at once.
    if (!(timeoutMs > 0 && timeoutMs <= 2 ** 31 - 1)) throw new RangeError('requestTimeoutMs must be a positive number of milliseconds');
    const offlineAfter = options.offlineAfterFailures ?? 3;
    if (!(Number.isInteger(offlineAfter) && offlineAfter >= 1)) throw new RangeError('offlineAfterFailures must be a positive integer');
    this.apiUrl = String(apiUrl).replace(/\/+$/, '');
    this.auth = auth;
    this.app = app || firestore.app;
    /**
     * The Firestore instance of the server's database, and that database's
     * id: null until the first join (or openFirestore()) asked the server.
     */
    this.firestore = null;
    this.database = null;
    this._givenFirestore = firestore || null;
    this._emulator = firestoreEmulator || null;
    this._opening = null;
    this.heartbeatJitter = jitter;
    /** The longest any request waits for its answer, in ms (heartbeats may wait less: see Room). */
    this.requestTimeoutMs = timeoutMs;
    /** Consecutive unanswered lease requests after which a room says `offline`. */
    this.offlineAfterFailures = offlineAfter;
    this.typingRefreshSeconds = options.typingRefreshSeconds ?? 2;
    // How long a departure shows in room.recentlyLeft: the server's
    // ROOMLEASE_RECENTLY_LEFT, from GET /v1/config once the client has
    // asked (its default, 2 min, until then), unless the app sets it.
    this.recentlyLeftSeconds = options.recentlyLeftSeconds ?? 120;
    this._recentlyLeftFromServer = options.recentlyLeftSeconds === undefined;
    /** Whether the user is away (setAwayAll); new rooms start with it. */
    this.away = false;
    this.emptyRoomGraceSeconds = options.emptyRoomGraceSeconds ?? null;
    /** The device clock in ms; injected so tests can skew it. */
    this.now = options.now || (() => Date.now());
    this.random = options.random || Math.random;
    this.timers = options.timers || plainTimers();
    this.sessionIds = options.sessionIds || memorySessionIds(options.sessionId);
    const fetchFn = options.fetch || (typeof fetch === 'function' ? fetch.bind(globalThis) : null);
    if (!fetchFn) throw new TypeError('no fetch on this platform: pass options.fetch');
    if (options.appCheckToken !== undefined && typeof options.appCheckToken !== 'function') {
      throw new TypeError('appCheckToken must be a function (forceRefresh) => Promise<string | {token}>');
    }
    this._api = new RoomleaseApi({
      apiUrl: this.apiUrl, auth, fetch: fetchFn, now: this.now, timers: this.timers, timeoutMs, appCheckToken: options.appCheckToken,
    });
    this._clock = new ServerClock(this.now);
    /** @type {Map<string, Room>} */
    this.rooms = new Map();
    this._onClose = [];
  }

  /**
   * Asks the server which Firestore database holds its rooms (once per
   * client) and opens it: the instance the listeners read. Rejects with a
   * RoomleaseError `wrong_database` when the Firestore instance the app
   * passed is another database, so that nothing is joined that the
   * listeners could not see. A failed request is asked again next time.
   * @returns {Promise<import('firebase/firestore').Firestore>}
   */
  openFirestore() {
    this._opening ??= this._api.config().then((config) => {
      const opened = openDatabase(config, {
        app: this.app, given: this._givenFirestore, emulator: this._emulator, apiUrl: this.apiUrl,
      });
      this.firestore = opened.firestore;
      this.database = opened.database;
      if (this._recentlyLeftFromServer && Number.isFinite(config.recentlyLeftSeconds)) {
        this.recentlyLeftSeconds = config.recentlyLeftSeconds;
      }
      return opened.firestore;
    }).catch((err) => {
      this._opening = null;
      throw err;
    });
    return this._opening;
  }

  /** This instance's session id, the same for every room it joins. */
  get sessionId() {
    return this.sessionIds.id;
  }

  /** The server's clock, estimated from API answers (see server-clock.js). */
  serverNow() {
    return new Date(this._clock.nowMs());
  }

  /** Estimated server clock minus device clock, in milliseconds. */
  get clockOffsetMs() {
    return this._clock.offsetMs;
  }

  /**
   * Joins a room (the server creates it on first join) and starts the
   * heartbeat and the listeners. Joining a room this client is in returns
   * the same Room (renaming it if displayName differs).
   * @returns {Promise<Room>}
   */
  async join(roomId, opts = {}) {
    const existing = this.rooms.get(roomId);
    if (existing && !existing.isFinished) {
      // Joining a room we stepped away from (or paused) means: come back.
      if (existing.status === 'away' || existing.status === 'paused' || existing.status === 'expired') {
        await existing.resume();
      }
      if (opts.displayName && opts.displayName !== existing.displayName) {
        existing.displayName = opts.displayName;
        await existing._join('rename');
      }
      return existing;
    }
    existing?.close();
    // Before anything is written: a client that would listen to another
    // database than the server's fails here, not with an empty roster.
    await this.openFirestore();
    await this.sessionIds.ready();
    const room = new Room(this, roomId, opts.displayName);
    if (opts.state) room.state = opts.state;
    this.rooms.set(roomId, room);
    try {
      await room._join('join');
    } catch (err) {
      room.close();
      throw err;
    }
    return room;
  }

  /** Pauses every room's heartbeats (an app going to the background). */
  pauseAll() {
    for (const room of this.rooms.values()) room.pause();
  }

  /** Resumes every paused or away room: heartbeat now, rejoin on 409. */
  resumeAll() {
    return Promise.all([...this.rooms.values()].map((room) => room.resume()));
  }

  /**
   * Says whether the user is away (a hidden page, a backgrounded app) in
   * every room: a change heartbeats at once, and the rooms adopt the
   * longer lease and interval the server gives away sessions.
   */
  setAwayAll(away) {
    this.away = !!away;
    for (const room of this.rooms.values()) room.setAway(away);
  }

  /** Checks every live room's lease now (tab shown, network back). */
  wakeAll() {
    for (const room of this.rooms.values()) room._wake();
  }

  /**
   * The platform says the network is gone (the browser's `offline` event,
   * NetInfo): every live room says `offline` now rather than after its
   * requests fail. The rooms keep probing with backoff; wakeAll() (network
   * back) tries at once.
   */
  goOffline() {
    for (const room of this.rooms.values()) room._goOffline();
  }

  /** Leaves every room without waiting; resumeAll() joins them again. */
  goAway() {
    for (const room of this.rooms.values()) room._goAway();
  }

  /** Registers cleanup that close() runs (adapters' event listeners). */
  _addCloser(fn) {
    this._onClose.push(fn);
  }

  /** Stops every room's heartbeats and listeners without leaving. */
  close() {
    for (const room of [...this.rooms.values()]) room.close();
    this.rooms.clear();
    for (const fn of this._onClose.splice(0)) fn();
    this.timers.dispose?.();
    this.sessionIds.close();
  }
}
