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
//
// This file is the entry point; the parts live beside it: api.js (HTTP calls,
// RoomleaseError), session-id.js (per-tab session id), ticker.js (heartbeat
// timers), room.js and room-listeners.js (one joined room).
import { RoomleaseApi } from './api.js';
import { Room } from './room.js';
import { TabSessionId } from './session-id.js';
import { createTicker } from './ticker.js';

export { RoomleaseError } from './api.js';
export { Room } from './room.js';

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
    this._api = new RoomleaseApi(this.apiUrl, auth, options.fetch || globalThis.fetch.bind(globalThis));
    this._session = new TabSessionId(options.storage, options.sessionId);
    /** @type {{offset: number, rtt: number, at: number} | null} */
    this._clock = null;
    /** @type {Map<string, Room>} */
    this.rooms = new Map();
    this._ticker = createTicker();
    this._installPageHooks();
  }

  /** This tab's session id, the same for every room it joins. */
  get sessionId() {
    return this._session.id;
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
    await this._session.claim();
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
    this._session.close();
  }

  // --- server clock --------------------------------------------------------

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
