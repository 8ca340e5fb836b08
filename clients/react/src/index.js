// @roomlease/react: a provider for a @roomlease/client client, and hooks
// that read its rooms through useSyncExternalStore. The rooms themselves,
// joined once per room and left after the last component lets go, are in
// store.js. This module imports React and nothing else, touches no window
// or document, and joins only from effects, so that it imports and renders
// on a server (which sees status 'joining', or 'idle' without a room id).
import {
  createContext, createElement, useCallback, useContext, useEffect, useMemo, useSyncExternalStore,
} from 'react';
import { IDLE, JOINING, storeFor } from './store.js';

const StoreContext = createContext(null);
StoreContext.displayName = 'RoomleaseContext';

/**
 * Makes `client` (from @roomlease/client/browser, /react-native or /node)
 * available to the hooks below it. The app creates the client and closes
 * it; the provider does neither.
 */
export function RoomleaseProvider({ client, children }) {
  if (!client || typeof client.join !== 'function') {
    throw new TypeError('RoomleaseProvider needs client: a roomlease client (createRoomleaseClient from @roomlease/client)');
  }
  return createElement(StoreContext.Provider, { value: storeFor(client) }, children);
}

function useStore(hook) {
  const store = useContext(StoreContext);
  if (!store) throw new Error(`${hook} needs a <RoomleaseProvider client={…}> above it`);
  return store;
}

/** The client the nearest RoomleaseProvider was given. */
export function useRoomleaseClient() {
  return useStore('useRoomleaseClient').client;
}

/** useSyncExternalStore over one room's snapshot, narrowed by `select`. */
function useRoomSnapshot(store, roomId, none, select) {
  const subscribe = useCallback((onChange) => (roomId ? store.subscribe(roomId, onChange) : () => {}), [store, roomId]);
  const read = () => select(roomId ? store.snapshot(roomId, none) : IDLE);
  const readOnServer = () => select(roomId ? none : IDLE);
  return useSyncExternalStore(subscribe, read, readOnServer);
}

const whole = (snapshot) => snapshot;

/** Calls on a room's Room, looked up when called: stable across renders. */
function useActions(store, roomId) {
  return useMemo(() => {
    const joined = async () => {
      const h = roomId ? store.handle(roomId) : null;
      const room = h && (await h.joined);
      if (!room) throw new Error(`room ${roomId} is not joined here`);
      return room;
    };
    return {
      // Best effort, like the client's: nothing to send before the join.
      setTyping: (typing) => (roomId && store.handle(roomId)?.room?.setTyping(typing)) || Promise.resolve(),
      setState: async (state) => (await joined()).setState(state),
      markRead: async (seq) => (await joined()).markRead(seq),
      // Also stops the join's retries; mounting again joins again.
      leave: async () => {
        const h = roomId ? store.handle(roomId) : null;
        return h ? h.leave() : { removed: false };
      },
    };
  }, [store, roomId]);
}

/**
 * Joins `roomId` while the component is mounted (every component asking
 * for the same room shares one join), and returns what the room shows:
 * status, participants, me, others' typing, recentlyLeft, receipts,
 * revision, this user's state, away, the last error, the Room itself, and
 * setTyping, setState, markRead and leave. A falsy roomId joins nothing
 * (status 'idle'). options.displayName and options.state go with the join;
 * a changed displayName renames. A failed join that a retry may fix is
 * retried while mounted (status 'joining', with the error); one that it
 * cannot ends in 'denied' (403) or 'closed', with the error.
 */
export function useRoom(roomId, options = {}) {
  const store = useStore('useRoom');
  const { displayName, state } = options;
  useEffect(() => {
    if (!roomId) return undefined;
    // The options of the render that mounted it; a later name is a rename
    // (below), later state goes through setState.
    const h = store.acquire(roomId, { displayName, state });
    return () => store.release(h);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store, roomId]);
  useEffect(() => {
    if (roomId && displayName) store.handle(roomId)?.rename(displayName);
  }, [store, roomId, displayName]);
  const snapshot = useRoomSnapshot(store, roomId, JOINING, whole);
  const actions = useActions(store, roomId);
  return useMemo(() => ({ ...snapshot, ...actions }), [snapshot, actions]);
}

const participantsOf = (snapshot) => snapshot.participants;
const typingOf = (snapshot) => snapshot.typing;

/** In development, warns when no useRoom holds the room a reader hook reads. */
function useExpectHolder(store, roomId, hook) {
  useEffect(() => {
    if (roomId) store.expectHolder(roomId, hook);
  }, [store, roomId, hook]);
}

/**
 * The participants of a room that a useRoom in this tree holds (this hook
 * joins nothing, and warns in development when no useRoom holds the room):
 * [] until then. Re-renders only when the roster changes.
 */
export function useParticipants(roomId) {
  const store = useStore('useParticipants');
  useExpectHolder(store, roomId, 'useParticipants');
  return useRoomSnapshot(store, roomId, IDLE, participantsOf);
}

/**
 * Who else is typing in a room that a useRoom in this tree holds (this
 * hook joins nothing either, and warns likewise), and setTyping for this
 * user. Re-renders only when that list changes.
 */
export function useTyping(roomId) {
  const store = useStore('useTyping');
  useExpectHolder(store, roomId, 'useTyping');
  const typing = useRoomSnapshot(store, roomId, IDLE, typingOf);
  const { setTyping } = useActions(store, roomId);
  return useMemo(() => ({ typing, setTyping }), [typing, setTyping]);
}
