// The rooms the hooks hold for one client: each room joined once however
// many components ask for it, and left once the last of them lets go.
//
// StrictMode mounts every effect, unmounts it and mounts it again at once,
// to show up effects that do not clean up. A hook that joined in its effect
// and left in the cleanup would join, leave and join again: two joins, and
// a leave racing the second join. Here a cleanup only gives back a
// reference; the leave waits for a timer (RELEASE_DELAY_MS), and a mount
// that comes before it (StrictMode's, or the same room mounted elsewhere in
// the same commit) takes the handle back instead. The leave, when it runs,
// waits for a join still in flight, so that no lease is left behind: a
// ghost would stay on everyone's roster until its lease ran out.
//
// Rendering never joins: only effects do (acquire/release), and the
// snapshots below are what useSyncExternalStore reads on the client and,
// on the server, the constant JOINING/IDLE ones.

/**
 * How long a released room waits before it is left. StrictMode remounts in
 * the same task, so any timer outlives it; a longer delay would only keep a
 * left page's user on the roster for longer.
 */
const RELEASE_DELAY_MS = 0;

const EMPTY = Object.freeze([]);
const NO_RECEIPTS = Object.freeze({});

function constantSnapshot(status) {
  return Object.freeze({
    status,
    participants: EMPTY,
    me: null,
    typing: EMPTY,
    recentlyLeft: EMPTY,
    receipts: NO_RECEIPTS,
    revision: null,
    state: null,
    away: false,
    error: null,
    room: null,
  });
}

/** A room id was given and its join has not reported yet (also the server's snapshot). */
export const JOINING = constantSnapshot('joining');
/** No room id: nothing joined. */
export const IDLE = constantSnapshot('idle');

/** One room as the hooks share it: its references, its Room once joined, its snapshot. */
class RoomHandle {
  constructor(store, roomId, { displayName, state }) {
    this.store = store;
    this.roomId = roomId;
    this.displayName = displayName || '';
    this.refs = 0;
    this.releaseTimer = null;
    this.released = false;
    /** @type {import('@roomlease/client').Room | null} */
    this.room = null;
    this.error = null;
    this.snapshot = JOINING;
    this._offs = [];
    this._typingFrom = null;
    this._typingOthers = EMPTY;
    // A leave of this room still in flight (an earlier handle's) goes
    // first: joining now would get that same Room back from the client
    // (one Room per room id), just before the leave ends it. A handle
    // released meanwhile joins nothing.
    this.joined = store.leaving(roomId)
      .then(() => (this.released ? null : store.client.join(roomId, {
        ...(this.displayName ? { displayName: this.displayName } : {}),
        ...(state ? { state } : {}),
      })))
      .then((room) => {
        if (room && !this.released) this._attach(room);
        return room;
      }, (err) => {
        this.error = err;
        this._publish(err && err.status === 403 ? 'denied' : 'closed');
        return null;
      });
  }

  _attach(room) {
    this.room = room;
    // A lease held again, or renewed, ends whatever went wrong before
    // (before the snapshot below, which then shows no error). Renewals
    // come with every heartbeat: they publish only when there is an error
    // to clear, or every consumer would re-render each heartbeat.
    this._offs.push(room.on('status', ({ status }) => {
      if (status === 'joined') this.error = null;
    }));
    this._offs.push(room.on('lease', () => {
      if (!this.error) return;
      this.error = null;
      this._publish();
    }));
    const update = () => this._publish();
    for (const type of ['status', 'roster', 'typing', 'recently-left', 'receipts', 'revision', 'room']) {
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

  _detach() {
    for (const off of this._offs.splice(0)) off();
  }

  /** A new snapshot from the Room's fields (never from event details: every event reads the same truth). */
  _publish(status) {
    const room = this.room;
    if (!room) {
      this.snapshot = Object.freeze({ ...JOINING, status, error: this.error });
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

export class RoomStore {
  /** @param {import('@roomlease/client').RoomleaseClient} client */
  constructor(client) {
    this.client = client;
    /** @type {Map<string, RoomHandle>} */
    this.handles = new Map();
    /** Leaves in flight, by room id. @type {Map<string, Promise<void>>} */
    this._leaving = new Map();
    /** Observers by room id: useSyncExternalStore's callbacks. */
    this._observers = new Map();
  }

  /** Settles once no leave of the room is in flight. */
  leaving(roomId) {
    return this._leaving.get(roomId) || Promise.resolve();
  }

  /** The room's handle, joined or joining, or null. */
  handle(roomId) {
    return this.handles.get(roomId) || null;
  }

  /** The room's snapshot; `none` when no component holds the room. */
  snapshot(roomId, none) {
    const h = this.handles.get(roomId);
    return h ? h.snapshot : none;
  }

  subscribe(roomId, fn) {
    if (!this._observers.has(roomId)) this._observers.set(roomId, new Set());
    const set = this._observers.get(roomId);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this._observers.get(roomId) === set) this._observers.delete(roomId);
    };
  }

  notify(roomId) {
    for (const fn of [...(this._observers.get(roomId) || [])]) fn();
  }

  /**
   * Takes a reference to the room, joining it if nobody holds it; a room
   * released but not yet left is taken back as it is.
   */
  acquire(roomId, options = {}) {
    let h = this.handles.get(roomId);
    if (!h) {
      h = new RoomHandle(this, roomId, options);
      this.handles.set(roomId, h);
      this.notify(roomId);
    }
    h.refs++;
    clearTimeout(h.releaseTimer);
    h.releaseTimer = null;
    return h;
  }

  /** Gives a reference back; the last one leaves the room after RELEASE_DELAY_MS. */
  release(h) {
    h.refs--;
    if (h.refs > 0 || h.released) return;
    clearTimeout(h.releaseTimer);
    h.releaseTimer = setTimeout(() => this._end(h), RELEASE_DELAY_MS);
  }

  _end(h) {
    if (h.refs > 0 || h.released) return;
    h.released = true;
    h._detach();
    if (this.handles.get(h.roomId) === h) this.handles.delete(h.roomId);
    // Leave once the join has answered: a join in flight still takes a
    // lease, which must be given back, not left to run out.
    const left = h.joined.then((room) => room && room.leave()).then(() => {}, () => {});
    this._leaving.set(h.roomId, left);
    left.then(() => {
      if (this._leaving.get(h.roomId) === left) this._leaving.delete(h.roomId);
    });
    this.notify(h.roomId);
  }
}

const stores = new WeakMap();

/** The one store of a client, shared by every provider given that client. */
export function storeFor(client) {
  let store = stores.get(client);
  if (!store) {
    store = new RoomStore(client);
    stores.set(client, store);
  }
  return store;
}
