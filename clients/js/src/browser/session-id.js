// The per-tab session id: one id per browser tab, kept across reloads in
// sessionStorage, and replaced when a duplicated tab turns out to share it
// with the original. Implements the core's SessionIds (id, ready, close).
import { isValidSessionId, newSessionId } from '../session-ids.js';

const SESSION_KEY = 'roomlease.sessionId';
const SESSION_CHANNEL = 'roomlease.sessions';

export class TabSessionId {
  /**
   * @param {Pick<Storage, 'getItem' | 'setItem'> | null | undefined} storage
   *   where the id is kept (undefined: sessionStorage; null: memory only)
   * @param {string} [fixedId] an id to use instead of the stored one
   */
  constructor(storage, fixedId) {
    this._storage = storage === undefined ? safeSessionStorage() : storage;
    this.id = fixedId || this._stored();
    this._claim = null;
    this._channel = null;
  }

  _stored() {
    let id = null;
    try {
      id = this._storage && this._storage.getItem(SESSION_KEY);
    } catch {
      id = null;
    }
    if (!isValidSessionId(id)) {
      id = newSessionId();
      this._store(id);
    }
    return id;
  }

  _store(id) {
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
   * @returns {Promise<void>}
   */
  claim() {
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
      if (m.sessionId !== this.id) return;
      if (m.type === 'probe' && claimed) channel.postMessage({ type: 'taken', sessionId: this.id });
      if (m.type === 'taken' && !claimed) taken = true;
    };
    channel.postMessage({ type: 'probe', sessionId: this.id });
    this._claim = new Promise((resolve) => setTimeout(resolve, 120)).then(() => {
      if (taken) {
        this.id = newSessionId();
        this._store(this.id);
      }
      claimed = true;
    });
    return this._claim;
  }

  /** The core waits for this before the first join. */
  ready() {
    return this.claim();
  }

  /** Stops answering other tabs' probes. */
  close() {
    this._channel?.close();
  }
}

function safeSessionStorage() {
  try {
    return globalThis.sessionStorage || null;
  } catch {
    return null;
  }
}
