// The React Native adapter. An app instance is the session: its id is kept
// in an injected storage (AsyncStorage or anything with getItem/setItem,
// sync or async), so a restarted app reuses it and its join fences the lease
// its previous run left behind instead of standing beside it.
//
// AppState drives the lifecycle. The OS suspends JavaScript in the
// background soon after, so timers stop; what to do when the app goes there
// is the app's choice (`background`):
//   'keep'  (default) do nothing: heartbeats go on while the OS lets them,
//           and on return the client heartbeats at once and rejoins on 409.
//           Right for calls that keep running (background audio).
//   'pause' stop heartbeating; on return, heartbeat at once, rejoin on 409.
//   'leave' leave at once (others see the user go now, not after the
//           lease); on return, join again.
// 'inactive' (iOS: a call sheet, the app switcher) is transient and ignored.
//
// NetInfo, when the app has it (passed as `netInfo`, or found installed),
// says when the device loses its connection: every live room goes
// `offline` at once instead of after its requests fail, and when the
// connection is back the client checks its leases at once.
import { RoomleaseClient } from './client.js';
import { optionalNetInfo } from './netinfo.js';
import { isValidSessionId, newSessionId } from './session-ids.js';

export { RoomleaseClient } from './client.js';
export { Room } from './room.js';
export { RoomleaseError } from './api.js';

const SESSION_KEY = 'roomlease.sessionId';
const POLICIES = new Set(['keep', 'pause', 'leave']);

/**
 * @param {import('../types/react-native').ReactNativeOptions} options
 */
export function createRoomleaseClient(options) {
  const { appState, storage, background = 'keep', netInfo, ...rest } = options || {};
  if (!appState || typeof appState.addEventListener !== 'function') {
    throw new TypeError('pass appState: React Native\'s AppState');
  }
  if (!POLICIES.has(background)) throw new RangeError(`background must be 'keep', 'pause' or 'leave', not ${JSON.stringify(background)}`);
  // undefined: NetInfo if installed; null: none, even if it is.
  const network = netInfo === undefined ? optionalNetInfo() : netInfo;
  if (network && typeof network.addEventListener !== 'function') {
    throw new TypeError('netInfo must be NetInfo from @react-native-community/netinfo (or null)');
  }
  const client = new RoomleaseClient({
    ...rest,
    sessionIds: rest.sessionIds || storedSessionIds(storage, rest.sessionId),
  });
  client._addCloser(followAppState(client, appState, background));
  if (network) client._addCloser(followNetInfo(client, network));
  return client;
}

/**
 * Maps NetInfo onto the client: offline when NetInfo says there is no
 * connection or no internet behind it (`isConnected` or
 * `isInternetReachable` false; null is "not known yet" and changes
 * nothing), and a lease check at once when both are back. Only changes
 * count: NetInfo reports the current state on subscribing, and again on
 * every detail (a new Wi-Fi strength) that leaves it connected. Exported
 * for tests and for apps that build the core client themselves.
 * @returns {() => void} stops following
 */
export function followNetInfo(client, netInfo) {
  let offline = false;
  const unsubscribe = netInfo.addEventListener((state) => {
    const now = !!state && (state.isConnected === false || state.isInternetReachable === false);
    if (now === offline) return;
    offline = now;
    if (offline) client.goOffline();
    else client.wakeAll();
  });
  return () => {
    if (typeof unsubscribe === 'function') unsubscribe();
  };
}

/**
 * Maps AppState changes onto the client. Exported for tests and for apps
 * that build the core client themselves.
 * @returns {() => void} stops following
 */
export function followAppState(client, appState, background) {
  // Whether the app has been in the background since it was last active:
  // iOS may pass through 'inactive' on the way out and back in.
  let away = appState.currentState === 'background';
  const sub = appState.addEventListener('change', (next) => {
    if (next === 'background' && !away) {
      away = true;
      // Kept in the background, the rooms say away (and get the longer
      // lease); paused or left, there is no heartbeat to say it.
      client.setAwayAll(true);
      if (background === 'pause') client.pauseAll();
      else if (background === 'leave') client.goAway();
    } else if (next === 'active' && away) {
      away = false;
      client.setAwayAll(false);
      if (background === 'keep') client.wakeAll();
      else client.resumeAll();
    }
  });
  return () => sub?.remove?.();
}

/**
 * Session ids kept in `storage` under one key. Without a storage, the id
 * lives in memory: every launch is a new session, and the previous run's
 * lease simply ends.
 * @returns {import('../types/index').SessionIds}
 */
export function storedSessionIds(storage, fixedId) {
  const ids = {
    id: fixedId || newSessionId(),
    _ready: null,
    ready() {
      if (!this._ready) this._ready = fixedId || !storage ? Promise.resolve() : load(this);
      return this._ready;
    },
    close() {},
  };
  async function load(self) {
    let stored = null;
    try {
      stored = await storage.getItem(SESSION_KEY);
    } catch {
      stored = null;
    }
    if (isValidSessionId(stored)) {
      self.id = stored;
      return;
    }
    try {
      await storage.setItem(SESSION_KEY, self.id);
    } catch {
      // Storage full or unavailable: the id lives as long as the app.
    }
  }
  return ids;
}
