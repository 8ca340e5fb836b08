// roomlease web client: joins rooms through the roomlease HTTP API, keeps the
// lease alive with heartbeats, and reads the room live through Firestore
// listeners. Types: roomlease.d.ts. Contract: docs/clients.md.
//
// What it guarantees, and what it does not:
//  - Membership is the server's lease. This library never decides that anyone
//    is present or gone; it shows the roster documents the server keeps, and
//    it compares server timestamps only against an estimate of the server's
//    clock (never against the device clock alone).
//  - One session id per browser tab, kept across reloads (sessionStorage).
//    A duplicated tab, which inherits a copy of sessionStorage, notices the
//    clash and takes a new id, so that two tabs never fence each other.
//  - A tab that sleeps past its lease is dropped by the server's sweeper; the
//    next heartbeat gets 409 and the library joins again with a new
//    generation. Nothing is replayed: a typing signal sent before is not
//    resent, a read receipt is (receipts only move forward).
import { collection, doc, onSnapshot } from 'firebase/firestore';

const SESSION_KEY = 'roomlease.sessionId';
const SESSION_CHANNEL = 'roomlease.sessions';

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

/**
 * Creates a client. One per page is enough; it can be in several rooms.
 * @param {import('./roomlease').ClientOptions} options
 * @returns {RoomleaseClient}
 */
export function createRoomleaseClient(options) {
  return new RoomleaseClient(options);
}

export class RoomleaseClient {
  /** @param {import('./roomlease').ClientOptions} options */
  constructor(options) {
    const { apiUrl, auth, firestore } = options || {};
    if (!apiUrl || !auth || !firestore) {
      throw new TypeError('createRoomleaseClient needs apiUrl, auth and firestore');
    }
    this.apiUrl = String(apiUrl).replace(/\/+$/, '');
    this.auth = auth;
    this.firestore = firestore;
    this.heartbeatJitter = options.heartbeatJitter ?? 0.2;
    this.typingRefreshSeconds = options.typingRefreshSeconds ?? 2;
    this._fetch = options.fetch || globalThis.fetch.bind(globalThis);
    this._storage = options.storage === undefined ? safeSessionStorage() : options.storage;
    this._sessionId = options.sessionId || this._storedSessionId();
    this._claim = null;
    this._lastToken = null;
    /** @type {{offset: number, rtt: number, at: number} | null} */
    this._clock = null;
    /** @type {Map<string, Room>} */
    this.rooms = new Map();
    this._ticker = createTicker();
    this._installPageHooks();
  }

  /** This tab's session id, the same for every room it joins. */
  get sessionId() {
    return this._sessionId;
  }

  /**
   * The server's clock, estimated from API responses (lease end minus lease
   * length, at the midpoint of the request). Falls back to the device clock
   * before the first response.
   * @returns {Date}
   */
  serverNow() {
    return new Date(Date.now() + (this._clock ? this._clock.offset : 0));
  }

  /** Estimated server clock minus device clock, in milliseconds. */
  get clockOffsetMs() {
    return this._clock ? this._clock.offset : 0;
  }

  /**
   * Joins a room (creating it on the server if needed) and starts the
   * heartbeat and the listeners. Joining a room this client is already in
   * returns the same Room.
   * @param {string} roomId
   * @param {{displayName?: string}} [opts]
   * @returns {Promise<Room>}
   */
  async join(roomId, opts = {}) {
    const existing = this.rooms.get(roomId);
    if (existing && !existing.isFinished) {
      if (opts.displayName && opts.displayName !== existing.displayName) {
        existing.displayName = opts.displayName;
        await existing._join('rename');
      }
      return existing;
    }
    existing?.close();
    await this._claimSessionId();
    const room = new Room(this, roomId, opts.displayName);
    this.rooms.set(roomId, room);
    try {
      await room._join('join');
    } catch (err) {
      room.close();
      if (this.rooms.get(roomId) === room) this.rooms.delete(roomId);
      throw err;
    }
    return room;
  }

  /** Stops every room's heartbeats and listeners without leaving. */
  close() {
    for (const room of this.rooms.values()) room.close();
    this.rooms.clear();
    this._removePageHooks?.();
    this._ticker.dispose();
    this._channel?.close();
  }

  // --- HTTP ---------------------------------------------------------------

  async _token(force) {
    const user = this.auth.currentUser;
    if (!user) throw new RoomleaseError(401, 'unauthenticated', 'sign in before joining a room');
    this._lastToken = await user.getIdToken(force);
    return this._lastToken;
  }

  /**
   * One API call. Retries once with a fresh token on 401.
   * @returns {Promise<{data: any, sent: number, received: number}>}
   */
  async _call(method, path, body, { retryAuth = true } = {}) {
    const token = await this._token(false);
    const sent = Date.now();
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
    const received = Date.now();
    if (res.status === 401 && retryAuth) {
      await this._token(true);
      return this._call(method, path, body, { retryAuth: false });
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
   * Feeds one server time sample into the clock estimate. The sample from the
   * fastest recent round trip wins: its midpoint is the least uncertain.
   */
  _sampleClock(serverTimeMs, sent, received) {
    if (!Number.isFinite(serverTimeMs)) return;
    const rtt = received - sent;
    const offset = serverTimeMs - (sent + rtt / 2);
    const now = Date.now();
    const stale = !this._clock || now - this._clock.at > 60_000;
    if (stale || rtt <= this._clock.rtt * 1.5) {
      this._clock = { offset, rtt, at: now };
    }
  }

  // --- session id ----------------------------------------------------------

  _storedSessionId() {
    let id = null;
    try {
      id = this._storage && this._storage.getItem(SESSION_KEY);
    } catch {
      id = null;
    }
    if (!id || !/^[A-Za-z0-9_~.-]{1,128}$/.test(id)) {
      id = newSessionId();
      this._storeSessionId(id);
    }
    return id;
  }

  _storeSessionId(id) {
    try {
      this._storage && this._storage.setItem(SESSION_KEY, id);
    } catch {
      // Private mode or storage disabled: the id lives as long as the page.
    }
  }

  /**
   * A duplicated tab starts with a copy of the original's sessionStorage and
   * so with its session id. Before the first join, ask the other tabs of this
   * origin whether the id is theirs; if one answers, take a fresh id.
   */
  _claimSessionId() {
    if (this._claim) return this._claim;
    if (typeof BroadcastChannel !== 'function') {
      this._claim = Promise.resolve();
      return this._claim;
    }
    const channel = new BroadcastChannel(SESSION_CHANNEL);
    this._channel = channel;
    let taken = false;
    let claimed = false;
    channel.onmessage = (e) => {
      const m = e.data || {};
      if (m.sessionId !== this._sessionId) return;
      if (m.type === 'probe' && claimed) channel.postMessage({ type: 'taken', sessionId: this._sessionId });
      if (m.type === 'taken' && !claimed) taken = true;
    };
    channel.postMessage({ type: 'probe', sessionId: this._sessionId });
    this._claim = new Promise((resolve) => setTimeout(resolve, 120)).then(() => {
      if (taken) {
        this._sessionId = newSessionId();
        this._storeSessionId(this._sessionId);
      }
      claimed = true;
    });
    return this._claim;
  }

  // --- page lifecycle ------------------------------------------------------

  _installPageHooks() {
    if (typeof window === 'undefined' || typeof document === 'undefined') return;
    const each = (fn) => () => {
      for (const room of this.rooms.values()) fn(room);
    };
    // pagehide is the last event a closing tab reliably fires (unload and
    // beforeunload are not, on mobile). The leave goes out with keepalive so
    // it survives the page; if it is lost, the lease ends by itself.
    const onPageHide = each((room) => room._leaveOnPageHide());
    // Back from the back/forward cache, from a frozen or hidden state, or
    // from offline: check the lease at once instead of waiting for the timer.
    const wake = each((room) => room._wake());
    const onVisibility = () => {
      if (document.visibilityState === 'visible') wake();
    };
    const onPageShow = (e) => {
      if (e.persisted) wake();
    };
    window.addEventListener('pagehide', onPageHide);
    window.addEventListener('pageshow', onPageShow);
    window.addEventListener('online', wake);
    document.addEventListener('visibilitychange', onVisibility);
    document.addEventListener('resume', wake);
    this._removePageHooks = () => {
      window.removeEventListener('pagehide', onPageHide);
      window.removeEventListener('pageshow', onPageShow);
      window.removeEventListener('online', wake);
      document.removeEventListener('visibilitychange', onVisibility);
      document.removeEventListener('resume', wake);
    };
  }
}

/**
 * One room this client has joined. Events (subscribe with `on`):
 *   status   {status, reason}         joining, joined, rejoining, left, crashed, expired, denied, closed
 *   room     RoomInfo                 the room document changed (or vanished)
 *   roster   {participants, revision} the roster changed
 *   typing   {typing}                 who is typing changed
 *   receipts {receipts}               someone's read position moved
 *   lease    {leaseExpiresAt, generation}  a heartbeat or join renewed the lease
 *   gap      {from, to}               the revision moved by more than one
 *   error    {error, during}          a request or listener failed (the library retries)
 */
export class Room {
  constructor(client, roomId, displayName) {
    this.client = client;
    this.roomId = roomId;
    this.displayName = displayName || '';
    this.sessionId = client.sessionId;
    this.participantId = null;
    this.generation = null;
    this.leaseSeconds = null;
    this.heartbeatSeconds = null;
    /** @type {Date | null} */
    this.leaseExpiresAt = null;
    this.status = 'joining';
    /** @type {import('./roomlease').RoomInfo | null} */
    this.room = null;
    /** @type {number | null} */
    this.revision = null;
    /** @type {import('./roomlease').Participant[]} */
    this.participants = [];
    /** @type {import('./roomlease').TypingSignal[]} */
    this.typing = [];
    this._typingDocs = [];
    /** @type {Record<string, number>} */
    this.receipts = {};
    this._handlers = new Map();
    this._listeners = { room: null, roster: null, typing: null, receipts: null };
    this._timer = null;
    this._typingTimer = null;
    this._failures = 0;
    this._busy = null;
    this._typingSentAt = 0;
    this._typingOn = false;
    this._pendingRead = null;
    this.lastReadSeq = null;
  }

  /** True once the room was left, closed, or the user was refused. */
  get isFinished() {
    return this.status === 'left' || this.status === 'closed' || this.status === 'denied';
  }

  /**
   * Subscribes to an event; returns the function that unsubscribes.
   * @param {string} type
   * @param {(detail: any) => void} fn
   */
  on(type, fn) {
    if (!this._handlers.has(type)) this._handlers.set(type, new Set());
    this._handlers.get(type).add(fn);
    return () => this._handlers.get(type)?.delete(fn);
  }

  _emit(type, detail) {
    for (const fn of this._handlers.get(type) || []) {
      try {
        fn(detail);
      } catch (err) {
        setTimeout(() => {
          throw err;
        });
      }
    }
  }

  _setStatus(status, reason) {
    if (this.status === status) return;
    this.status = status;
    this._emit('status', { status, reason });
  }

  // --- membership ----------------------------------------------------------

  /** POST join; on success, (re)starts the heartbeat and the listeners. */
  async _join(reason) {
    const { data, sent, received } = await this.client._call('POST', this._path('join'), {
      sessionId: this.sessionId,
      ...(this.displayName ? { displayName: this.displayName } : {}),
    }).catch((err) => {
      if (err.status === 403) this._setStatus('denied', err.code);
      throw err;
    });
    // Keep the newest generation even if the user left meanwhile, so that
    // the leave in flight names it.
    this.participantId = data.participantId;
    this.generation = data.generation;
    this.leaseSeconds = data.leaseSeconds;
    this.heartbeatSeconds = data.heartbeatSeconds;
    if (this.isFinished && reason !== 'join') return;
    this._renewed(data.leaseExpiresAt, sent, received);
    this._failures = 0;
    if (this.revision === null && Number.isFinite(data.revision)) this.revision = data.revision;
    this._setStatus('joined', reason);
    this._attachListeners();
    this._schedule(this._nextBeatDelay());
    if (this._pendingRead !== null) this._flushRead();
  }

  _renewed(leaseExpiresAt, sent, received) {
    const end = Date.parse(leaseExpiresAt);
    if (!Number.isFinite(end)) return;
    this.leaseExpiresAt = new Date(end);
    // The server set the lease end to its now plus the lease length.
    this.client._sampleClock(end - this.leaseSeconds * 1000, sent, received);
    this._emit('lease', { leaseExpiresAt: this.leaseExpiresAt, generation: this.generation });
  }

  _nextBeatDelay() {
    // Jitter only shortens the interval, so a beat is never later than the
    // server expects; it spreads a room's heartbeats apart.
    const base = this.heartbeatSeconds * 1000;
    return base * (1 - this.client.heartbeatJitter * Math.random());
  }

  _schedule(ms) {
    this.client._ticker.clear(this._timer);
    this._timer = this.client._ticker.set(() => this._beat(), Math.max(0, ms));
  }

  _stopTimers() {
    this.client._ticker.clear(this._timer);
    this._timer = null;
    clearTimeout(this._typingTimer);
  }

  /** The lease check: heartbeat, and join again when the server says 409. */
  _beat() {
    if (this.status !== 'joined' && this.status !== 'rejoining') return Promise.resolve();
    if (this._busy) return this._busy;
    this._busy = this._beatOnce().finally(() => {
      this._busy = null;
    });
    return this._busy;
  }

  async _beatOnce() {
    try {
      if (this.status === 'rejoining') {
        await this._join('rejoin');
        return;
      }
      const generation = this.generation;
      const { data, sent, received } = await this.client._call('POST', this._path('heartbeat'), {
        sessionId: this.sessionId,
        generation,
      });
      if (this.status !== 'joined' || this.generation !== generation) return;
      this._failures = 0;
      this._renewed(data.leaseExpiresAt, sent, received);
      this._schedule(this._nextBeatDelay());
      if (this._pendingRead !== null) this._flushRead();
    } catch (err) {
      if (this.status !== 'joined' && this.status !== 'rejoining') return;
      if (err.status === 409 && err.code === 'stale_generation') {
        // The lease ended or a newer join superseded it: join again now.
        this._setStatus('rejoining', err.code);
        this._schedule(0);
        return;
      }
      if (err.status === 403) {
        this._stopTimers();
        this._setStatus('denied', err.code);
        this._emit('error', { error: err, during: 'heartbeat' });
        return;
      }
      // Network trouble or a 5xx: retry with backoff, but never later than
      // the next regular beat.
      this._failures++;
      this._emit('error', { error: err, during: this.status === 'rejoining' ? 'join' : 'heartbeat' });
      const backoff = Math.min(500 * 2 ** (this._failures - 1), this.heartbeatSeconds * 1000);
      this._schedule(backoff * (0.5 + Math.random() / 2));
    }
  }

  /** Something suggests the lease may have lapsed (tab shown, back online). */
  _wake() {
    if (this.status === 'joined' || this.status === 'rejoining') this._schedule(0);
  }

  /**
   * Leaves the room. Roster, typing and receipt listeners stop; the room
   * document stays watched while the rules allow (an emptied room is
   * readable), so an app can show the grace period and the teardown.
   * @returns {Promise<{removed: boolean}>}
   */
  async leave() {
    if (this.isFinished) return { removed: false };
    const wasLive = this.status === 'joined' || this.status === 'rejoining' || this.status === 'crashed' || this.status === 'expired';
    this._stopTimers();
    this._setStatus('left', 'leave');
    this._detach(['roster', 'typing', 'receipts']);
    this._clearMembers();
    // A heartbeat or rejoin in flight may still move the generation.
    if (this._busy) await this._busy.catch(() => {});
    if (!wasLive || this.generation === null) return { removed: false };
    const { data } = await this.client._call('POST', this._path('leave'), {
      sessionId: this.sessionId,
      generation: this.generation,
    });
    return { removed: !!(data && data.removed) };
  }

  _leaveOnPageHide() {
    if (this.status !== 'joined' && this.status !== 'rejoining') return;
    const token = this.client._lastToken;
    this._stopTimers();
    this.status = 'left';
    if (!token || this.generation === null) return;
    try {
      this.client._fetch(this.client.apiUrl + this._path('leave'), {
        method: 'POST',
        keepalive: true,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ sessionId: this.sessionId, generation: this.generation }),
      }).catch(() => {});
    } catch {
      // Best effort: the lease ends by itself.
    }
    // If the page comes back from the back/forward cache, join again.
    const reconnect = (e) => {
      if (!e.persisted) return;
      window.removeEventListener('pageshow', reconnect);
      this._setStatus('rejoining', 'pageshow');
      this._schedule(0);
    };
    window.addEventListener('pageshow', reconnect);
  }

  /**
   * For demos and tests: behave like a crashed tab. Heartbeats stop, nothing
   * is sent on leave or page hide, listeners stay open so the page can watch
   * its own lease run out. `resume()` recovers.
   */
  simulateCrash() {
    if (this.status !== 'joined' && this.status !== 'rejoining') return;
    this._stopTimers();
    this._setStatus('crashed', 'simulated');
  }

  /** After simulateCrash: heartbeat now; if the lease ended, join again. */
  resume() {
    if (this.status !== 'crashed' && this.status !== 'expired') return Promise.resolve();
    this._setStatus('joined', 'resume');
    this._schedule(0);
    return Promise.resolve();
  }

  /** Stops heartbeats and listeners without leaving. */
  close() {
    this._stopTimers();
    this._detach(Object.keys(this._listeners));
    if (!this.isFinished) this._setStatus('closed', 'close');
    if (this.client.rooms.get(this.roomId) === this) this.client.rooms.delete(this.roomId);
  }

  // --- signals -------------------------------------------------------------

  /**
   * Says whether this user is typing. Call it on every keystroke: repeated
   * `true` is sent at most every typingRefreshSeconds, which keeps the signal
   * alive; without refreshes it expires on the server by itself.
   * @param {boolean} typing
   */
  async setTyping(typing) {
    if (this.status !== 'joined') return;
    const now = Date.now();
    if (typing && this._typingOn && now - this._typingSentAt < this.client.typingRefreshSeconds * 1000) return;
    if (!typing && !this._typingOn) return;
    this._typingOn = !!typing;
    this._typingSentAt = now;
    try {
      await this.client._call('POST', this._path('typing'), {
        sessionId: this.sessionId,
        generation: this.generation,
        typing: !!typing,
      });
    } catch (err) {
      // Typing is best effort and never replayed. A 409 means the lease needs
      // attention: let the heartbeat path deal with it.
      this._typingOn = false;
      if (err.status === 409) this._wake();
      this._emit('error', { error: err, during: 'typing' });
    }
  }

  /**
   * Records that this user has read up to `seq`. Positions only move
   * forward; a lower or equal one is harmless. Failed sends are retried after
   * the next successful heartbeat.
   * @param {number} seq
   * @returns {Promise<number | null>} the stored position, or null if not sent yet
   */
  async markRead(seq) {
    if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError('seq must be a non-negative safe integer');
    this._pendingRead = Math.max(seq, this._pendingRead ?? 0);
    if (this.status !== 'joined') return null;
    return this._flushRead();
  }

  async _flushRead() {
    const seq = this._pendingRead;
    if (seq === null) return this.lastReadSeq;
    try {
      const { data } = await this.client._call('POST', this._path('receipts'), { lastReadSeq: seq });
      if (this._pendingRead === seq) this._pendingRead = null;
      this.lastReadSeq = data.lastReadSeq;
      return data.lastReadSeq;
    } catch (err) {
      this._emit('error', { error: err, during: 'receipts' });
      return null;
    }
  }

  /**
   * Reads the room through the API (GET), which reports the live roster and
   * the revision it reflects, consistently. Use it after a `gap`, or to
   * double-check what listeners show.
   * @returns {Promise<{roomId: string, state: string, revision: number, participants: any[]}>}
   */
  async refresh() {
    const { data } = await this.client._call('GET', this._path(''));
    return data;
  }

  // --- listeners -----------------------------------------------------------

  _attachListeners() {
    const fs = this.client.firestore;
    const watch = (name, ref, onNext) => {
      if (this._listeners[name]) return;
      this._listeners[name] = onSnapshot(ref, onNext, (err) => {
        this._listeners[name] = null;
        this._listenerFailed(name, err);
      });
    };
    watch('room', doc(fs, 'rooms', this.roomId), (snap) => this._onRoom(snap));
    watch('roster', collection(fs, 'rooms', this.roomId, 'participants'), (snap) => this._onRoster(snap));
    watch('typing', collection(fs, 'rooms', this.roomId, 'typing'), (snap) => this._onTyping(snap));
    watch('receipts', collection(fs, 'rooms', this.roomId, 'receipts'), (snap) => this._onReceipts(snap));
  }

  _detach(names) {
    for (const name of names) {
      const stop = this._listeners[name];
      this._listeners[name] = null;
      if (stop) stop();
    }
  }

  /**
   * A listener is cut off when the user is no longer on the roster: the
   * lease ran out (a sleeping laptop) or the user left. A joined client
   * checks its lease at once; the rejoin attaches the listener again.
   */
  _listenerFailed(name, err) {
    const denied = err && err.code === 'permission-denied';
    const live = this.status === 'joined' || this.status === 'rejoining';
    if (!live) {
      // Left an occupied room, or swept out after a crash: it is no longer
      // ours to see.
      if (name === 'room') this._emit('room', this._setRoom({ exists: null, visible: false }));
      if (denied && this.status === 'crashed') this._setStatus('expired', 'roster');
      if (denied && this.status === 'expired' && name !== 'room') this._clearMembers();
      return;
    }
    if (!denied) this._emit('error', { error: err, during: `listen:${name}` });
    if (this.status === 'joined') this._wake();
  }

  _clearMembers() {
    this.participants = [];
    this.typing = [];
    this._typingDocs = [];
    this.receipts = {};
    this._emit('roster', { participants: [], revision: this.revision });
    this._emit('typing', { typing: [] });
    this._emit('receipts', { receipts: {} });
  }

  _setRoom(info) {
    this.room = info;
    return info;
  }

  _onRoom(snap) {
    if (!snap.exists()) {
      this._emit('room', this._setRoom({ exists: false, visible: true, state: 'deleted', revision: this.revision, generation: null, participantCount: 0, cleanupAfter: null }));
      return;
    }
    const d = snap.data();
    const prev = this.revision;
    const info = this._setRoom({
      exists: true,
      visible: true,
      state: d.state,
      generation: d.generation ?? null,
      revision: d.revision ?? null,
      participantCount: d.participantCount ?? 0,
      peakParticipants: d.peakParticipants ?? 0,
      cleanupAfter: toDate(d.cleanupAfter),
      updatedAt: toDate(d.updatedAt),
    });
    if (Number.isFinite(info.revision)) {
      this.revision = info.revision;
      if (prev !== null && info.revision > prev + 1) this._emit('gap', { from: prev, to: info.revision });
    }
    this._emit('room', info);
  }

  _onRoster(snap) {
    const self = this.participantId;
    this.participants = snap.docs
      .map((d) => {
        const p = d.data();
        return {
          participantId: p.participantId || d.id,
          displayName: p.displayName || '',
          sessionCount: p.sessionCount ?? 1,
          joinedAt: toDate(p.joinedAt),
          isSelf: d.id === self,
        };
      })
      .sort((a, b) => (a.joinedAt?.getTime() ?? 0) - (b.joinedAt?.getTime() ?? 0) || a.participantId.localeCompare(b.participantId));
    this._emit('roster', { participants: this.participants, revision: this.revision });
  }

  _onTyping(snap) {
    this._typingDocs = snap.docs.map((d) => {
      const t = d.data();
      return {
        participantId: t.participantId || d.id,
        displayName: t.displayName || '',
        expiresAt: toDate(t.expiresAt),
        isSelf: d.id === this.participantId,
      };
    });
    this._refreshTyping();
  }

  /**
   * Typing documents stay until the sweeper deletes them; hide each one at
   * its server-time expiry, judged with the estimated server clock.
   */
  _refreshTyping() {
    clearTimeout(this._typingTimer);
    const now = this.client.serverNow().getTime();
    this.typing = this._typingDocs.filter((t) => !t.expiresAt || t.expiresAt.getTime() > now);
    const next = Math.min(...this.typing.map((t) => (t.expiresAt ? t.expiresAt.getTime() : Infinity)));
    if (Number.isFinite(next)) this._typingTimer = setTimeout(() => this._refreshTyping(), next - now + 50);
    this._emit('typing', { typing: this.typing });
  }

  _onReceipts(snap) {
    const receipts = {};
    for (const d of snap.docs) {
      const r = d.data();
      if (Number.isFinite(r.lastReadSeq)) receipts[r.participantId || d.id] = r.lastReadSeq;
    }
    this.receipts = receipts;
    this._emit('receipts', { receipts });
  }

  _path(action) {
    return `/v1/rooms/${encodeURIComponent(this.roomId)}${action ? `/${action}` : ''}`;
  }
}

function toDate(v) {
  if (!v) return null;
  if (typeof v.toDate === 'function') return v.toDate();
  if (v instanceof Date) return v;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t) : null;
}

function newSessionId() {
  if (globalThis.crypto && typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function safeSessionStorage() {
  try {
    return globalThis.sessionStorage || null;
  } catch {
    return null;
  }
}

/**
 * Timers for the heartbeat. Browsers throttle timers in hidden tabs, Chrome
 * to one wake-up a minute after five minutes hidden, which would outlast the
 * lease. Timers in a dedicated worker are not throttled that way, so the
 * heartbeat schedule lives in one when the page may create it.
 */
function createTicker() {
  let seq = 0;
  const callbacks = new Map();
  let worker = null;
  if (typeof Worker === 'function' && typeof Blob === 'function' && typeof URL !== 'undefined' && URL.createObjectURL) {
    try {
      const src = 'const t=new Map();onmessage=(e)=>{const[op,id,ms]=e.data;'
        + 'if(op==="set"){t.set(id,setTimeout(()=>{t.delete(id);postMessage(id)},ms))}'
        + 'else{clearTimeout(t.get(id));t.delete(id)}}';
      worker = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
      worker.onmessage = (e) => {
        const fn = callbacks.get(e.data);
        callbacks.delete(e.data);
        if (fn) fn();
      };
      worker.onerror = () => {
        // A content security policy may forbid blob: workers: fall back.
        worker = null;
        for (const [id, fn] of callbacks) {
          callbacks.delete(id);
          setTimeout(fn, 0);
        }
      };
    } catch {
      worker = null;
    }
  }
  return {
    set(fn, ms) {
      const id = ++seq;
      if (worker) {
        callbacks.set(id, fn);
        worker.postMessage(['set', id, ms]);
      } else {
        callbacks.set(id, setTimeout(() => {
          callbacks.delete(id);
          fn();
        }, ms));
      }
      return id;
    },
    clear(id) {
      if (id == null || !callbacks.has(id)) return;
      if (worker) worker.postMessage(['clear', id]);
      else clearTimeout(callbacks.get(id));
      callbacks.delete(id);
    },
    dispose() {
      for (const id of [...callbacks.keys()]) this.clear(id);
      worker?.terminate();
    },
  };
}
