// Changes the server held: over the user's state budget
// (ROOMLEASE_STATE_RATE_LIMIT) a join keeps the stored state, name and
// mode and answers `held` with retryAfterSeconds, and a heartbeat's away
// toggle waits, its reply's `away` saying the mode in force. Neither is an
// error, and the lease holds; what the app asked for is sent again so the
// roster comes to show it: the state by POST …/state once the budget has
// refilled, the away flag with a heartbeat (every heartbeat carries it),
// and a held rename by joining again (which carries all three).
import { revisionIn } from './revision.js';
import { retryDelay } from './lease-timing.js';

// After a held away toggle (the reply gives no retry time) the next
// heartbeat goes this long later, doubling with each held one up to the
// regular schedule: the budget refills a change a second by default, and a
// user back at the page should not look away for the away interval (~50 s).
const HELD_AWAY_RETRY_MS = 1000;

/**
 * How long until the next heartbeat at most, after a heartbeat that sent
 * `sent` as its away flag and was answered `inForce`: Infinity when the
 * mode is the one the app wants, 0 when the app toggled while it was in
 * flight, else the backoff of a held toggle.
 * @param {import('./room.js').Room} room
 */
export function heldAwayDelay(room, sent, inForce) {
  if (inForce === room.away) {
    room._heldAway = 0;
    return Infinity;
  }
  if (sent !== room.away) return 0;
  room._heldAway++;
  return HELD_AWAY_RETRY_MS * 2 ** (room._heldAway - 1);
}

/**
 * A join was held: send room.state again in `ms`, or, when `rename` (the
 * held join was a rename, or one was already waiting), join again then.
 */
export function joinHeld(room, ms, rename) {
  room._stateHeld = !!room.state;
  room._nameHeld = rename;
  schedule(room, ms);
}

/** Nothing held is left to send (a join or setState put the state on the roster). */
export function clearHeld(room) {
  room._stateHeld = false;
  room._nameHeld = false;
  room.client.timers.clear(room._heldTimer);
  room._heldTimer = null;
}

function schedule(room, ms) {
  const { timers } = room.client;
  timers.clear(room._heldTimer);
  room._heldTimer = timers.set(() => {
    room._heldTimer = null;
    resendHeldState(room);
  }, ms);
}

/**
 * Sends the held state (the latest the app set, room.state) by POST
 * …/state. Only while joined: a paused or offline room sends it after its
 * next heartbeat, and a rejoin carries it anyway. Over the budget still
 * (429), it tries again after Retry-After; a 409 or 403 is the heartbeat's
 * to handle, so it checks the lease at once. room._heldSending is the
 * request in flight, which setState waits for so that the app's newer
 * state is the last written.
 * @param {import('./room.js').Room} room
 */
export function resendHeldState(room) {
  if (room.status !== 'joined' || room._heldTimer || room._heldSending) return;
  if (room._nameHeld) {
    rejoin(room);
    return;
  }
  if (!room._stateHeld) return;
  const { state, generation } = room;
  room._heldSending = room.client._api.call('POST', room._path('state'), {
    sessionId: room.sessionId, generation, state,
  }).then(({ data }) => {
    // The app may have set another state meanwhile: that one is its own.
    if (room.state === state) room._stateHeld = false;
    room._seeRevision(revisionIn(data));
  }, (err) => {
    if (err.status === 409 || err.status === 403) {
      room._wake();
      return;
    }
    if (err.status !== 429) room._emit('error', { error: err, during: 'state' });
    if (room.status === 'joined') schedule(room, Math.max((err.retryAfterSeconds || 0) * 1000, retryDelay(room, 1)));
  }).finally(() => {
    room._heldSending = null;
  });
}

/**
 * Joins again for a held rename, as the heartbeat would (room._busy), so
 * that no heartbeat goes out meanwhile under the generation it replaces.
 * A heartbeat in flight calls resendHeldState again once answered.
 */
function rejoin(room) {
  if (room._busy) return;
  room._busy = room._heldSending = room._join('rename').catch((err) => {
    if (err.status === 409 || err.status === 403) {
      room._wake();
      return;
    }
    room._emit('error', { error: err, during: 'join' });
    if (room.status === 'joined') schedule(room, Math.max((err.retryAfterSeconds || 0) * 1000, retryDelay(room, 1)));
  }).finally(() => {
    room._busy = null;
    room._heldSending = null;
  });
}
