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

import { RoomHandle } from './handle.js';

export { IDLE, JOINING } from './snapshots.js';

/**
 * How long a released room waits before it is left. StrictMode remounts in
 * the same task, so any timer outlives it; a longer delay would only keep a
 * left page's user on the roster for longer.
 */
const RELEASE_DELAY_MS = 0;

/** setTimeout, for a client without timers of its own. */
const plainTimers = { set: (fn, ms) => setTimeout(fn, ms), clear: (id) => clearTimeout(id) };

/**
 * Whether to warn about likely mistakes: not in a production build (where
 * a bundler replaces process.env.NODE_ENV), and not where there is no
 * process to ask and nothing replaced it (a page without a bundler).
 */
function development() {
  try {
    return process.env.NODE_ENV !== 'production';
  } catch {
    return true;
  }
}

export class RoomStore {
  /** @param {import('@roomlease/client').RoomleaseClient} client */
  constructor(client) {
    this.client = client;
    /** The client's timers (a browser's worker ticker), which the join retries run on. */
    this.timers = client.timers && typeof client.timers.set === 'function' ? client.timers : plainTimers;
    /** @type {Map<string, RoomHandle>} */
    this.handles = new Map();
    /** Leaves in flight, by room id. @type {Map<string, Promise<void>>} */
    this._leaving = new Map();
    /** Observers by room id: useSyncExternalStore's callbacks. */
    this._observers = new Map();
    /** Rooms already warned about (expectHolder). */
    this._warned = new Set();
  }

  /** Settles once no leave of the room is in flight. */
  leaving(roomId) {
    return this._leaving.get(roomId) || Promise.resolve();
  }

  /** Records a leave in flight: the room's next join waits for it (and for any before it). */
  trackLeave(roomId, leave) {
    const settled = leave.then(() => {}, () => {});
    const prev = this._leaving.get(roomId);
    const all = prev ? Promise.all([prev, settled]).then(() => {}) : settled;
    this._leaving.set(roomId, all);
    all.then(() => {
      if (this._leaving.get(roomId) === all) this._leaving.delete(roomId);
    });
  }

  /**
   * A reader hook (useParticipants, useTyping) mounted for roomId: in
   * development, once the commit's effects have run (a useRoom above it
   * acquires after it: React runs a child's effects first), warn if no
   * useRoom holds the room, since the reader joins nothing and shows [].
   */
  expectHolder(roomId, hook) {
    if (this._warned.has(roomId) || !development()) return;
    queueMicrotask(() => {
      if (this.handles.has(roomId) || this._warned.has(roomId)) return;
      this._warned.add(roomId);
      console.warn(`@roomlease/react: ${hook}(${JSON.stringify(roomId)}) reads a room that no useRoom(${JSON.stringify(roomId)}) `
        + 'under this RoomleaseProvider holds: it joins nothing, and shows an empty list until a useRoom for the room mounts.');
    });
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
   * released but not yet left is taken back as it is, and one whose join
   * gave up or whose Room finished (left, denied, closed) joins again.
   */
  acquire(roomId, options = {}) {
    let h = this.handles.get(roomId);
    if (!h) {
      h = new RoomHandle(this, roomId, options);
      this.handles.set(roomId, h);
      this.notify(roomId);
    } else if (h.finished) {
      h.restart(options);
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
    this.trackLeave(h.roomId, h.joined.then((room) => room && room.leave()));
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
