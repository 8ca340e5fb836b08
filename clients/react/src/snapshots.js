// The snapshots the hooks return when no Room is behind them: frozen, so
// that useSyncExternalStore sees the same object until something changes.

export const EMPTY = Object.freeze([]);
const NO_RECEIPTS = Object.freeze({});

function constantSnapshot(status) {
  return Object.freeze({
    status,
    participants: EMPTY,
    mode: 'roster',
    count: 0,
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
