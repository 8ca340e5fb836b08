// One joined room: the lease (join, heartbeat, 409 → rejoin, leave) and
// the events an app subscribes to. When each heartbeat goes out and how
// long it waits is lease-timing.js; typing and read receipts, signals.js;
// listeners, room-listeners.js; what the last one out learns from the
// leave reply, empty-room.js.
import { attachListeners, clearMembers, detachListeners } from './room-listeners.js';
import { roomAfterLeave } from './empty-room.js';
import { newerRevision, revisionIn } from './revision.js';
import { databaseOf, wrongDatabase } from './database.js';
import { isNetworkError } from './api.js';
import { clearHeld, heldAwayDelay, joinHeld, resendHeldState } from './held.js';
import { heartbeatTimeoutMs, leaseLeftMs, nextBeatDelay, retryDelay } from './lease-timing.js';
import { flushRead, sendTyping } from './signals.js';

/**
 * Statuses:
 *   joining    the first join is in flight
 *   joined     holding a lease, heartbeating
 *   rejoining  the server answered 409 (or we come back): joining again, new generation
 *   offline    the API cannot be reached: the platform said the network is gone,
 *              or offlineAfterFailures lease requests in a row got no answer (one
 *              is enough once the lease has run out by the client's own clock).
 *              The loop keeps trying with backoff; the first answer ends it: a
 *              heartbeat while the lease may still be live (same generation),
 *              otherwise a join (new generation)
 *   paused     heartbeats stopped on purpose (pause(), an app in the background); listeners stay
 *   expired    while paused, the server let the lease go (our listeners were cut off)
 *   away       left because the page or app went away; resume() joins again
 *   left       left on purpose
 *   denied     the room's policy refused this user
 *   closed     close(): stopped without leaving; or a rejoin found the server on
 *              another database than the client's (reason wrong_database)
 */
// The statuses in which the lease loop runs, and those in which a lease
// may still be held (so leave() has something to give back).
const LIVE = new Set(['joined', 'rejoining', 'offline']);
const HOLDS_LEASE = new Set(['joined', 'rejoining', 'offline', 'paused', 'expired']);

export class Room {
  /** @param {import('./client.js').RoomleaseClient} client */
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
    /** When the server said to renew (server time); null: every heartbeatSeconds. */
    this.renewAt = null;
    /** The lease token to send with the next heartbeat or typing signal. */
    this._leaseToken = null;
    this.status = 'joining';
    this.room = null;
    /** Highest revision seen (listener or API); see revision.js. */
    this.revision = null;
    /**
     * 'roster': the listeners follow every roster entry. 'large': the room
     * has a summary (large-room.js), and `participants` is its sample with
     * this user's own entry.
     */
    this.mode = 'roster';
    /** How many are in the room: the roster's length, or the summary's exact count at its revision. */
    this.count = 0;
    this.participants = [];
    /** Users who left the roster within recentlyLeftSeconds and are not back. */
    this.recentlyLeft = [];
    this._departures = [];
    /** This user's state as last set here: sent again with every join. */
    this.state = null;
    /** Whether this session's heartbeats say away (page hidden, app backgrounded). */
    this.away = !!client.away;
    this.typing = [];
    this._typingDocs = [];
    this.receipts = {};
    this.lastReadSeq = null;
    this._handlers = new Map();
    this._listeners = { room: null, summary: null, self: null, revision: null, roster: null, recentlyLeft: null, typing: null, receipts: null };
    /** How often each listener was started: for tests and debugging. */
    this._listenerStarts = {};
    // What the summary's last snapshot said: null (none yet since the
    // listeners started), 'none' or 'large'; the large room's view, and
    // this user's own entry while in large mode (undefined: not read yet).
    // See large-room.js.
    this._summaryState = null;
    // The mode of the summary the last snapshot showed ('large', 'roster',
    // or 'none' when absent; null before one): see large-room.js onSummary.
    this._summaryMode = null;
    this._summary = null;
    this._pendingSummary = null;
    this._lastAsOf = null;
    this._selfEntry = undefined;
    this._selfSeen = false;
    this._timer = null;
    this._typingTimer = null;
    this._failures = 0;
    /** Lease requests in a row that got no answer at all (network, timeout). */
    this._unanswered = 0;
    /** The server said (409) that the lease this room held is gone. */
    this._leaseLost = false;
    this._busy = null;
    this._typingSentAt = 0;
    this._typingOn = false;
    this._pendingRead = null;
    this._listenerWakeAt = -Infinity;
    // A join the server held (its state budget spent) kept the stored
    // state: it is sent again by held.js's timer. _heldAway counts the
    // heartbeats in a row whose away toggle was held.
    this._stateHeld = false;
    this._nameHeld = false;
    this._heldTimer = null;
    this._heldSending = null;
    this._heldAway = 0;
  }

  /** True once the room was left, closed, or the user was refused. */
  get isFinished() {
    return this.status === 'left' || this.status === 'closed' || this.status === 'denied';
  }

  /** Subscribes to an event; returns the function that unsubscribes. */
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
        // An app's handler must not break the lease loop; rethrow outside it.
        queueMicrotask(() => {
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

  _setRoom(info) {
    this.room = info;
    this._emit('room', info);
  }

  _seeRevision(n) {
    const next = newerRevision(this.revision, n);
    if (next === this.revision) return;
    const previous = this.revision;
    this.revision = next;
    this._emit('revision', { revision: next, previous });
  }

  // --- the lease -------------------------------------------------------------

  /** POST join; on success, (re)starts the heartbeat and the listeners. */
  async _join(reason) {
    const { data, sent, received } = await this.client._api.call('POST', this._path('join'), {
      sessionId: this.sessionId,
      // Sent on every join: a rejoin after expiry creates the roster entry anew.
      ...(this.displayName ? { displayName: this.displayName } : {}),
      // A rejoin after expiry creates the entry anew: the state and the
      // mode go with it, or others would see them lost.
      ...(this.state ? { state: this.state } : {}),
      ...(this.away ? { away: true } : {}),
    }).catch((err) => {
      if (err.status === 403) this._setStatus('denied', err.code);
      throw err;
    });
    // Keep the newest generation even if the user left meanwhile, so that
    // the leave in flight names it.
    this.participantId = data.participantId;
    this.generation = data.generation;
    if (data.database && data.database !== this.client.database) {
      // The server moved to another database since this client opened
      // its own (a migration): the listeners would show an empty room.
      // Give back the lease just taken and stop, loudly.
      const local = databaseOf(this.client.firestore);
      const err = wrongDatabase({
        server: { projectId: local.projectId, database: data.database }, local, apiUrl: this.client.apiUrl, why: 'moved',
      });
      this.client._api.call('POST', this._path('leave'), { sessionId: this.sessionId, generation: data.generation }).catch(() => {});
      throw err;
    }
    this.leaseSeconds = data.leaseSeconds;
    this.heartbeatSeconds = data.heartbeatSeconds;
    if (this.isFinished && reason !== 'join') return;
    this._leaseToken = null;
    this._renewed(data, sent, received);
    this._failures = 0;
    this._unanswered = 0;
    this._leaseLost = false;
    this._seeRevision(revisionIn(data));
    this._setStatus('joined', reason);
    attachListeners(this);
    // A held join kept the stored state and mode (held.js): the state goes
    // again after retryAfterSeconds, the away flag with a heartbeat no later.
    const heldMs = data.held ? Math.max(1, data.retryAfterSeconds || 1) * 1000 : null;
    const rename = reason === 'rename' || this._nameHeld;
    if (heldMs !== null && (this.state || rename)) joinHeld(this, heldMs, rename);
    else clearHeld(this);
    this._heldAway = 0;
    this._schedule(heldMs === null ? nextBeatDelay(this) : Math.min(nextBeatDelay(this), heldMs));
    if (this._pendingRead !== null) flushRead(this);
  }

  /**
   * Records a lease answer (join, heartbeat, typing): its end, when to
   * renew, and the token to send with the renewal.
   */
  _renewed({ leaseExpiresAt, renewAt, leaseToken }, sent, received) {
    const end = Date.parse(leaseExpiresAt);
    if (!Number.isFinite(end)) return;
    this.leaseExpiresAt = new Date(end);
    const at = Date.parse(renewAt);
    this.renewAt = Number.isFinite(at) ? new Date(at) : null;
    if (leaseToken) this._leaseToken = leaseToken;
    // The server set the lease end to its own now plus the lease length.
    this.client._clock.sample(end - this.leaseSeconds * 1000, sent, received);
    this._emit('lease', { leaseExpiresAt: this.leaseExpiresAt, generation: this.generation });
  }

  _schedule(ms) {
    const { timers } = this.client;
    timers.clear(this._timer);
    this._timer = timers.set(() => this._beat(), Math.max(0, ms));
  }

  _stopTimers() {
    this.client.timers.clear(this._timer);
    this._timer = null;
    // A held state waits (still _stateHeld) for the next heartbeat.
    this.client.timers.clear(this._heldTimer);
    this._heldTimer = null;
  }

  /** The lease check: heartbeat, and join again when the server says 409. */
  _beat() {
    if (!LIVE.has(this.status)) return Promise.resolve();
    if (this._busy) return this._busy;
    this._busy = this._beatOnce().finally(() => {
      this._busy = null;
      // A held change whose timer was stopped (pause, resume) goes once
      // the lease is confirmed; resendHeldState sends only while joined.
      if ((this._stateHeld || this._nameHeld) && !this._heldTimer) resendHeldState(this);
    });
    return this._busy;
  }

  async _beatOnce() {
    // Join when the server said the lease is gone (409), or when, offline,
    // the lease has run out by the client's own accounting: a heartbeat
    // could only earn a 409 first.
    const joining = this.status === 'rejoining' || (this.status === 'offline' && leaseLeftMs(this) === 0);
    try {
      if (joining) {
        await this._join('rejoin');
        return;
      }
      const generation = this.generation;
      const away = this.away;
      const { data, sent, received } = await this.client._api.call('POST', this._path('heartbeat'), {
        sessionId: this.sessionId,
        generation,
        away,
        // With it, the server renews without reading the session; a
        // token it cannot use changes nothing but that.
        ...(this._leaseToken ? { leaseToken: this._leaseToken } : {}),
      }, { timeoutMs: heartbeatTimeoutMs(this) });
      if ((this.status !== 'joined' && this.status !== 'offline') || this.generation !== generation) return;
      // The reply gives the lease and interval of the mode the session is
      // in now: an away session beats about every 50 s and keeps its lease.
      if (data.leaseSeconds > 0 && data.heartbeatSeconds > 0) {
        this.leaseSeconds = data.leaseSeconds;
        this.heartbeatSeconds = data.heartbeatSeconds;
      }
      this._failures = 0;
      this._unanswered = 0;
      this._renewed(data, sent, received);
      // An answer ends offline; the lease held, so the generation is the same.
      if (this.status === 'offline') this._setStatus('joined', 'online');
      // The lease holds, so a listener that was cut off (a permission check
      // that ran while the roster entry was briefly missing, an error the
      // SDK does not retry) can read again: start it anew, or the roster
      // would silently stop changing while the heartbeats go on.
      attachListeners(this);
      // The reply's away is the mode in force: another than asked means
      // the server held the toggle (or the app toggled meanwhile), and a
      // heartbeat soon asks again.
      const next = nextBeatDelay(this);
      this._schedule(typeof data.away === 'boolean' ? Math.min(next, heldAwayDelay(this, away, data.away)) : next);
      if (this._pendingRead !== null) flushRead(this);
    } catch (err) {
      if (!LIVE.has(this.status)) return;
      if (err.status === 409 && err.code === 'stale_generation') {
        // The lease ended or a newer join superseded it: join again now,
        // with the same session id. Retrying the old generation never helps.
        this._leaseLost = true;
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
      if (err.code === 'wrong_database') {
        // A rejoin found the server on another database: retrying cannot
        // help. The lease it took is given back (see _join).
        this._emit('error', { error: err, during: 'join' });
        this._setStatus('closed', err.code);
        this.close();
        return;
      }
      // Network trouble, a timeout, a 5xx or a 429: retry with backoff, but
      // never later than the next regular beat, unless the server said when
      // to come back (Retry-After): sooner would only be refused again.
      this._failures++;
      // Only requests that got no answer at all say the API is out of
      // reach; any answer (a 503 too) shows it is not.
      this._unanswered = isNetworkError(err) ? this._unanswered + 1 : 0;
      this._emit('error', { error: err, during: joining ? 'join' : 'heartbeat' });
      // Once the lease has run out by our own clock, one unanswered request
      // is enough: the server lets such a lease go, others stop seeing this
      // user, and the app should say so.
      if (this._unanswered > 0 && this.status !== 'offline'
        && (this._unanswered >= this.client.offlineAfterFailures || leaseLeftMs(this) === 0)) {
        this._setStatus('offline', err.code);
      }
      this._schedule(Math.max(retryDelay(this, this._failures), (err.retryAfterSeconds || 0) * 1000));
    }
  }

  /**
   * The platform says the network is gone: say so at once rather than
   * after requests fail. The loop goes on (a probe costs nothing when the
   * network is down, and the platform may be wrong); the first answer ends
   * offline.
   */
  _goOffline() {
    if (this.status === 'joined' || this.status === 'rejoining') this._setStatus('offline', 'platform');
  }

  /** Something suggests the lease may have lapsed (tab shown, network back): check now. */
  _wake() {
    if (LIVE.has(this.status)) this._schedule(0);
  }

  /**
   * Stops heartbeating without leaving, as a suspended app or a crashed
   * device would. Listeners stay, so the app sees its own lease run out
   * (status `expired`). resume() recovers.
   */
  pause() {
    if (!LIVE.has(this.status)) return;
    this._stopTimers();
    this._setStatus('paused', 'pause');
  }

  /**
   * Back in the foreground: heartbeat at once; if the lease ended meanwhile
   * the server answers 409 and the room joins again with a new generation.
   * After the app went away (a leave was sent), join again directly.
   * @returns {Promise<void>} settles after that first heartbeat or join
   */
  resume() {
    if (this.status === 'paused' || this.status === 'expired') {
      this._setStatus('joined', 'resume');
    } else if (this.status === 'away') {
      this._setStatus('rejoining', 'resume');
    } else if (!LIVE.has(this.status)) {
      return Promise.resolve();
    }
    this._stopTimers();
    return this._beat();
  }

  /**
   * The page or app is going away: leave now, without waiting (keepalive
   * when the platform has it), and join again on resume(). If the leave is
   * lost, the lease ends by itself.
   */
  _goAway() {
    // A paused room stays silent, like the crashed device it stands for.
    if (!LIVE.has(this.status)) return;
    this._stopTimers();
    detachListeners(this);
    this._setStatus('away', 'away');
    if (this.generation === null) return;
    this.client._api.postAndForget(this._path('leave'), { sessionId: this.sessionId, generation: this.generation });
  }

  /**
   * Leaves the room. The listeners stop first: once the leave removes our
   * roster entry the rules refuse them, and that refusal is not an error,
   * just what leaving means. When this leave emptied the room, one `room`
   * event carries the server's cleanupAfter from the reply: the last thing
   * this client learns about the room (see empty-room.js).
   * @returns {Promise<{removed: boolean}>}
   */
  async leave() {
    if (this.isFinished) return { removed: false };
    const held = HOLDS_LEASE.has(this.status) || this.status === 'away';
    const me = this.participants.find((p) => p.isSelf);
    const wasAlone = this.count === 1 && !!me && me.sessionCount <= 1;
    this._stopTimers();
    this._setStatus('left', 'leave');
    detachListeners(this);
    clearMembers(this);
    // A heartbeat or rejoin in flight may still move the generation.
    if (this._busy) await this._busy.catch(() => {});
    if (!held || this.generation === null) return { removed: false };
    const { data } = await this.client._api.call('POST', this._path('leave'), {
      sessionId: this.sessionId,
      generation: this.generation,
    });
    const info = roomAfterLeave(data, {
      wasAlone,
      leftAtServerMs: this.client.serverNow().getTime(),
      graceSeconds: this.client.emptyRoomGraceSeconds,
    });
    this._setRoom(info);
    return { removed: !!(data && data.removed) };
  }

  /** Stops heartbeats and listeners without leaving. */
  close() {
    this._stopTimers();
    detachListeners(this);
    if (!this.isFinished) this._setStatus('closed', 'close');
    if (this.client.rooms.get(this.roomId) === this) this.client.rooms.delete(this.roomId);
  }

  // --- signals -----------------------------------------------------------------

  /**
   * Says whether the user is away from this session. A change heartbeats at
   * once; every later heartbeat and rejoin carries it. The browser and
   * React Native adapters call it from page visibility and AppState.
   */
  setAway(away) {
    away = !!away;
    if (this.away === away) return;
    this.away = away;
    this._wake();
  }

  /**
   * Replaces this user's state in the room: a JSON object, at most the
   * server's ROOMLEASE_MAX_STATE_BYTES (1 KiB by default) serialized. State
   * is per user (the last writer among the user's sessions wins) and shows
   * on every participant's roster entry. If the session's generation went
   * stale, the room joins again with this state, as a heartbeat's 409 does.
   * Rejects with 413 payload_too_large or 400 invalid_argument for a state
   * over the limits, 429 rate_limited when updated too fast (nothing is
   * written, and the state kept for rejoins stays the previous one).
   * @returns {Promise<{state: object, revision: number}>}
   */
  async setState(state) {
    if (state === null || typeof state !== 'object' || Array.isArray(state)) throw new TypeError('state must be a plain object');
    if (this._busy) await this._busy.catch(() => {});
    // A held state being sent again must not land after this one.
    if (this._heldSending) await this._heldSending;
    if (!LIVE.has(this.status) || this.generation === null) throw new Error(`cannot set state while ${this.status}`);
    const send = async () => {
      const { data } = await this.client._api.call('POST', this._path('state'), {
        sessionId: this.sessionId,
        generation: this.generation,
        state,
      });
      this.state = state;
      // The app's own state is on the roster now: nothing held to send.
      clearHeld(this);
      this._seeRevision(revisionIn(data));
      return data;
    };
    try {
      return await send();
    } catch (err) {
      if (!(err.status === 409 && err.code === 'stale_generation')) throw err;
      // The lease ended or a newer join superseded it: join again, with
      // this state (the join carries it), as the heartbeat loop does.
      const previous = this.state;
      this.state = state;
      this._leaseLost = true;
      this._setStatus('rejoining', err.code);
      this._stopTimers();
      try {
        await this._beat();
      } catch (e) {
        this.state = previous;
        throw e;
      }
      if (this.status !== 'joined') {
        this.state = previous;
        throw err;
      }
      return { state, revision: this.revision };
    }
  }

  /**
   * Says whether this user is typing. Call it on every keystroke: repeated
   * `true` is sent at most every typingRefreshSeconds, which keeps the signal
   * alive; without refreshes it expires on the server by itself.
   */
  setTyping(typing) {
    return sendTyping(this, typing);
  }

  /**
   * Records that this user has read up to `seq`. Positions only move
   * forward, so a failed send is safely retried after the next heartbeat.
   * @returns {Promise<number | null>} the stored position, or null if not sent yet
   */
  async markRead(seq) {
    if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError('seq must be a non-negative safe integer');
    this._pendingRead = Math.max(seq, this._pendingRead ?? 0);
    if (this.status !== 'joined') return null;
    return flushRead(this);
  }

  /**
   * Reads the room through the API: the live roster and the revision it
   * reflects, in one consistent read. Use it when an app needs the exact
   * roster of a revision; listeners may show changes coalesced. Rejects
   * with 404 room_not_found when this user is not a live participant (the
   * same answer whether the room exists or not).
   */
  async refresh() {
    const { data } = await this.client._api.call('GET', this._path(''));
    this._seeRevision(revisionIn(data));
    return data;
  }

  /**
   * One page of the whole roster through the API (GET …/participants), in
   * user id order: how a large room's client lists everyone, since its
   * `participants` are the summary's sample. Pass the page's
   * `nextPageToken` as `pageToken` for the next; the last page has none.
   * Each page is at the revision it states. Rejects with 404
   * room_not_found when this user is not a live participant.
   * @param {{pageSize?: number, pageToken?: string}} [options] pageSize 1–500 (the server's default 100)
   */
  async listParticipants({ pageSize, pageToken } = {}) {
    const query = new URLSearchParams();
    if (pageSize !== undefined) query.set('pageSize', String(pageSize));
    if (pageToken) query.set('pageToken', pageToken);
    const qs = query.toString();
    const { data } = await this.client._api.call('GET', this._path('participants') + (qs ? `?${qs}` : ''));
    this._seeRevision(revisionIn(data));
    return data;
  }

  _path(action) {
    return `/v1/rooms/${encodeURIComponent(this.roomId)}${action ? `/${action}` : ''}`;
  }
}
