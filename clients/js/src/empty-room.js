// What a client that has just left can know about the room it left: whether
// it emptied, when it may be torn down, and whether it was.
//
// It never reads the room document for this: once the caller is off the
// roster, the room document is not theirs to read (the rules will say so).
// The sources are, in order:
//  1. the leave reply, if the server says there (`roomState`,
//     `cleanupAfter`): authoritative;
//  2. otherwise what the caller saw as a participant: if the roster it
//     watched held only itself and its leave removed it, the room emptied at
//     the leave, and with the server's grace (`emptyRoomGraceSeconds`, an
//     option, since no reply carries it yet) the teardown is due at about
//     the server time of the leave + grace;
//  3. the API: once the teardown is due, GET /v1/rooms/{id} answers 404
//     room_not_found when the room is gone (403 while it exists, since the
//     caller is no participant). That is the only proof of a teardown.
import { RoomleaseError } from './api.js';
import { toDate } from './time.js';

/**
 * The room info right after a leave.
 * @param {{removed?: boolean, roomState?: string, cleanupAfter?: string}} reply
 * @param {{wasAlone: boolean, leftAtServerMs: number, graceSeconds: number | null}} seen
 * @returns {import('../types/index').RoomInfo}
 */
export function roomAfterLeave(reply, { wasAlone, leftAtServerMs, graceSeconds }) {
  if (reply && typeof reply.roomState === 'string') {
    const empty = reply.roomState === 'suspected_empty';
    return empty
      ? { exists: true, visible: true, state: 'suspected_empty', cleanupAfter: toDate(reply.cleanupAfter), estimated: false }
      : { exists: true, visible: false, state: reply.roomState, cleanupAfter: null, estimated: false };
  }
  if (reply && reply.removed && wasAlone) {
    const cleanupAfter = Number.isFinite(graceSeconds) ? new Date(leftAtServerMs + graceSeconds * 1000) : null;
    return { exists: true, visible: true, state: 'suspected_empty', cleanupAfter, estimated: true };
  }
  // Others are still there (or our leave changed nothing): not ours to see.
  return { exists: null, visible: false, state: null, cleanupAfter: null, estimated: false };
}

/**
 * After the room emptied, waits until its teardown is due and then asks the
 * API whether it is gone, every `pollMs`, until `giveUpMs` past the due time.
 * Calls onInfo with the deleted room, or with an invisible one when the room
 * outlived the wait (someone joined, or the sweeper is late). Returns a
 * function that stops watching.
 * @param {import('./room.js').Room} room
 */
export function watchTeardown(room, info, onInfo, { pollMs = 1000, giveUpMs = 60_000 } = {}) {
  const { timers } = room.client;
  let timer = null;
  let stopped = false;
  const due = info.cleanupAfter ? info.cleanupAfter.getTime() : room.client.serverNow().getTime();
  const giveUpAt = due + giveUpMs;
  const check = async () => {
    if (stopped) return;
    try {
      await room.client._api.call('GET', room._path(''));
      // 200: we are on its roster again (joined from elsewhere): not our concern here.
    } catch (err) {
      if (stopped) return;
      if (err instanceof RoomleaseError && err.status === 404 && err.code === 'room_not_found') {
        onInfo({ exists: false, visible: true, state: 'deleted', cleanupAfter: null, estimated: false });
        return;
      }
    }
    if (stopped) return;
    if (room.client.serverNow().getTime() > giveUpAt) {
      onInfo({ exists: null, visible: false, state: null, cleanupAfter: null, estimated: false });
      return;
    }
    timer = timers.set(check, pollMs);
  };
  timer = timers.set(check, Math.max(0, due - room.client.serverNow().getTime()));
  return () => {
    stopped = true;
    timers.clear(timer);
  };
}
