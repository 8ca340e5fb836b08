// One joined room (part of roomlease.js): the lease (join, heartbeat, rejoin,
// leave), typing and read signals, and the events an app subscribes to. The
// Firestore listeners that fill in the roster live in room-listeners.js.
import { attachListeners, clearMembers, detachListeners } from './room-listeners.js';

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
    const { data, sent, received } = await this.client._api.call('POST', this._path('join'), {
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
    attachListeners(this);
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
      const { data, sent, received } = await this.client._api.call('POST', this._path('heartbeat'), {
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
    detachListeners(this, ['roster', 'typing', 'receipts']);
    clearMembers(this);
    // A heartbeat or rejoin in flight may still move the generation.
    if (this._busy) await this._busy.catch(() => {});
    if (!wasLive || this.generation === null) return { removed: false };
    const { data } = await this.client._api.call('POST', this._path('leave'), {
      sessionId: this.sessionId,
      generation: this.generation,
    });
    return { removed: !!(data && data.removed) };
  }

  _leaveOnPageHide() {
    if (this.status !== 'joined' && this.status !== 'rejoining') return;
    this._stopTimers();
    this.status = 'left';
    if (this.generation === null) return;
    const body = { sessionId: this.sessionId, generation: this.generation };
    if (!this.client._api.postOnPageHide(this._path('leave'), body)) return;
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
    detachListeners(this, Object.keys(this._listeners));
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
      await this.client._api.call('POST', this._path('typing'), {
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
      const { data } = await this.client._api.call('POST', this._path('receipts'), { lastReadSeq: seq });
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
    const { data } = await this.client._api.call('GET', this._path(''));
    return data;
  }

  _path(action) {
    return `/v1/rooms/${encodeURIComponent(this.roomId)}${action ? `/${action}` : ''}`;
  }
}
