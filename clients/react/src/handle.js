// One room as the hooks share it (store.js keeps one per room id): its
// references, its Room once joined, and the snapshot the hooks read.
//
// A handle joins in runs. A run tries client.join until it gets a Room: a
// failure that a retry may fix (no user signed in yet, no network, a 5xx,
// a 429) is shown as `error` with status `joining`, and the join is tried
// again with backoff (retry.js), or at once when the user signs in; a
// failure that a retry cannot fix ends the run (status `denied` for a 403,
// else `closed`, with the error). A run also ends when the hooks' leave()
// comes first. A handle whose run ended, or whose Room finished (left,
// denied, closed), is `finished`: a component that mounts for the room
// then starts a new run (store.acquire), so that mounting again joins
// again, also when the remount comes within the same commit as the
// unmount and the store hands back this same handle.
import { EMPTY, JOINING } from './snapshots.js';
import { isRetryable, retryDelayMs } from './retry.js';

export class RoomHandle {
  constructor(store, roomId, { displayName, state }) {
    this.store = store;
    this.roomId = roomId;
    this.displayName = displayName || '';
    this.initialState = state || null;
    this.refs = 0;
    this.releaseTimer = null;
    /** Set by the store once the last reference went: nothing more is joined. */
    this.released = false;
    /** @type {import('@roomlease/client').Room | null} */
    this.room = null;
    this.error = null;
    this.snapshot = JOINING;
    /** The run ended without a Room: a final failure, or leave() before the join. */
    this.ended = false;
    /** The current run: its `joined` promise, and whether leave() came before its join answered. */
    this._run = null;
    this._retries = 0;
    this._retryTimer = null;
    this._authOff = null;
    this._offs = [];
    this._typingFrom = null;
    this._typingOthers = EMPTY;
    this._start();
  }

  /** True when a mount should join again: the run ended, or its Room finished. */
  get finished() {
    return this.ended || !!(this.room && this.room.isFinished);
  }

  /**
   * Starts a run of joins. `joined` settles with its Room, or with null
   * when the run ends without one; a Room the run got after the handle was
   * released is still handed over, so that the store leaves it.
   */
  _start() {
    this.ended = false;
    this._retries = 0;
    this.error = null;
    const run = { settle: null, leftEarly: false };
    run.joined = new Promise((resolve) => {
      run.settle = resolve;
    });
    this._run = run;
    this.joined = run.joined;
    this._attempt();
  }

  /**
   * Whether a run's answer is no longer wanted: the handle was released,
   * leave() came first, or a newer run replaced it (a join of an old run
   * that answers late then goes to that run's leave, not to this handle).
   */
  _stopped(run) {
    return this.released || run.leftEarly || run !== this._run;
  }

  _finish(run, room) {
    const { settle } = run;
    run.settle = null;
    if (settle) settle(room);
  }

  _attempt() {
    const run = this._run;
    this._retryTimer = null;
    this._stopWaitingForSignIn();
    // A leave of this room still in flight (an earlier handle's, or this
    // one's before a new run) goes first: joining now would get that same
    // Room back from the client (one Room per room id), just before the
    // leave ends it.
    this.store.leaving(this.roomId)
      .then(() => (this._stopped(run) ? null : this.store.client.join(this.roomId, {
        ...(this.displayName ? { displayName: this.displayName } : {}),
        ...(this.initialState ? { state: this.initialState } : {}),
      })))
      .then((room) => {
        if (room && !this._stopped(run)) this._attach(room);
        this._finish(run, room);
      }, (err) => {
        if (this._stopped(run)) {
          this._finish(run, null);
          return;
        }
        this.error = err;
        if (isRetryable(err)) {
          this._retryLater(err);
          return;
        }
        this.ended = true;
        this._publish(err && err.status === 403 ? 'denied' : 'closed');
        this._finish(run, null);
      });
  }

  _retryLater(err) {
    const { timers, client } = this.store;
    this._retries++;
    // Only the retry still wanted runs: timers that were held (a suspended
    // device, a test) may run a callback that was due before it was cleared.
    const id = timers.set(() => {
      if (this._retryTimer === id) this._attempt();
    }, retryDelayMs(this._retries, err, client.random));
    this._retryTimer = id;
    // Only while nobody is signed in: Auth calls back at once with the
    // current user, so a user whose token the server refused would
    // otherwise be retried in a tight loop instead of with backoff.
    if (err.code === 'unauthenticated' && !this.store.client.auth?.currentUser) this._waitForSignIn();
    this._publish('joining');
  }

  /** Stops a retry that is waiting for its timer; the run then ends without a Room. */
  _cancelRetry() {
    this._stopWaitingForSignIn();
    if (this._retryTimer === null) return;
    this.store.timers.clear(this._retryTimer);
    this._retryTimer = null;
    this._finish(this._run, null);
  }

  /**
   * Rendered before the user signed in: the join goes out as soon as Auth
   * says someone has, rather than at the next retry. Auth's first call
   * back says who is signed in now: nobody, or the user who just did.
   */
  _waitForSignIn() {
    const auth = this.store.client.auth;
    if (this._authOff || !auth || typeof auth.onAuthStateChanged !== 'function') return;
    const off = auth.onAuthStateChanged((user) => {
      if (!user || this._retryTimer === null) return;
      this.store.timers.clear(this._retryTimer);
      this._attempt();
    });
    // Auth may answer at once, and the join be on its way already.
    if (this._retryTimer === null) off();
    else this._authOff = off;
  }

  _stopWaitingForSignIn() {
    const off = this._authOff;
    this._authOff = null;
    if (off) off();
  }

  /** A new run for a mount that found this handle finished. */
  restart({ displayName, state } = {}) {
    this._detach();
    this.room = null;
    this._typingFrom = null;
    this._typingOthers = EMPTY;
    if (displayName) this.displayName = displayName;
    if (state) this.initialState = state;
    this._start();
    this._publish('joining');
  }

  /**
   * The hooks' leave(): the Room's leave once joined; before that, the run
   * stops (no more retries) and a join in flight is left once it answers.
   * The store keeps it as the room's leave in flight, which a later run
   * waits for.
   */
  leave() {
    const left = (async () => {
      if (this.room) return this.room.leave();
      if (this.ended) return { removed: false };
      const run = this._run;
      run.leftEarly = true;
      this.ended = true;
      this._cancelRetry();
      this._publish('left');
      const room = await run.joined;
      return room ? room.leave() : { removed: false };
    })();
    this.store.trackLeave(this.roomId, left);
    return left;
  }

  _attach(room) {
    this.room = room;
    // A lease held again, or renewed, ends whatever went wrong before
    // (before the snapshot below, which then shows no error). Renewals
    // come with every heartbeat: they publish only when there is an error
    // to clear, or every consumer would re-render each heartbeat.
    this.error = null;
    this._offs.push(room.on('status', ({ status }) => {
      if (status === 'joined') this.error = null;
    }));
    this._offs.push(room.on('lease', () => {
      if (!this.error) return;
      this.error = null;
      this._publish();
    }));
    const update = () => this._publish();
    for (const type of ['status', 'roster', 'mode', 'typing', 'recently-left', 'receipts', 'revision', 'room']) {
      this._offs.push(room.on(type, update));
    }
    this._offs.push(room.on('error', ({ error }) => {
      this.error = error;
      this._publish();
    }));
    this._publish();
    // A name changed while the join was in flight.
    this.rename(this.displayName);
  }

  /** Stops following the Room and waiting for anything (the store's end). */
  _detach() {
    this._cancelRetry();
    for (const off of this._offs.splice(0)) off();
  }

  /** A new snapshot from the Room's fields (never from event details: every event reads the same truth). */
  _publish(status) {
    const room = this.room;
    if (!room) {
      this.snapshot = Object.freeze({ ...JOINING, status: status || this.snapshot.status, error: this.error });
    } else {
      // Others' typing, filtered again only when the list changed, so that
      // a component showing it re-renders only then.
      if (room.typing !== this._typingFrom) {
        this._typingFrom = room.typing;
        this._typingOthers = Object.freeze(room.typing.filter((t) => !t.isSelf));
      }
      const participants = room.participants;
      this.snapshot = Object.freeze({
        status: room.status,
        participants,
        // In a large room participants are the summary's sample and this
        // user, count the summary's (the client switches by itself).
        mode: room.mode,
        count: room.count,
        me: participants.find((p) => p.isSelf) || null,
        typing: this._typingOthers,
        recentlyLeft: room.recentlyLeft,
        receipts: room.receipts,
        revision: room.revision,
        state: room.state,
        away: room.away,
        error: this.error,
        room,
      });
    }
    this.store.notify(this.roomId);
  }

  rename(displayName) {
    this.displayName = displayName || this.displayName;
    const room = this.room;
    if (!room || room.isFinished || !this.displayName || room.displayName === this.displayName) return;
    // The client renames a room it already holds by joining it again.
    this.store.client.join(this.roomId, { displayName: this.displayName }).catch((err) => {
      this.error = err;
      this._publish();
    });
  }
}
