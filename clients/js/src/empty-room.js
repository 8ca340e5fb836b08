// What a client that has just left can know about the room it left: whether
// its leave emptied the room, and from when the room may be torn down.
//
// Nothing after that. Once off the roster, the room is not the caller's to
// read: the security rules refuse it (the room document too), and the API
// answers 404 room_not_found to anyone not in a room, whether the room
// exists or not, so that nobody can watch a room from outside. The client
// therefore neither reads the room nor asks the API after a leave, and the
// countdown it reports is an estimate: the teardown is due at cleanupAfter
// unless someone joins during the grace (which revives the room), and the
// client is told neither way.
//
// The sources, in order:
//  1. the leave reply's `cleanupAfter` (server time), which the server sends
//     when this leave emptied the room;
//  2. otherwise what the caller saw as a participant: if the roster it
//     watched held only itself and its leave removed it, the room emptied at
//     the leave (the server's check after the leave did not answer, and the
//     sweeper makes it instead), and with the server's grace
//     (`emptyRoomGraceSeconds`, an option; without it, no countdown) the
//     teardown is due at about the server time of the leave + grace.
import { toDate } from './time.js';

/**
 * The room info right after a leave: the last that this client learns.
 * @param {{removed?: boolean, cleanupAfter?: string}} reply
 * @param {{wasAlone: boolean, leftAtServerMs: number, graceSeconds: number | null}} seen
 * @returns {import('../types/index').RoomInfo}
 */
export function roomAfterLeave(reply, { wasAlone, leftAtServerMs, graceSeconds }) {
  const cleanupAfter = toDate(reply?.cleanupAfter);
  if (cleanupAfter) {
    return { exists: true, visible: false, state: 'suspected_empty', cleanupAfter, estimated: false };
  }
  if (reply && reply.removed && wasAlone) {
    const due = Number.isFinite(graceSeconds) ? new Date(leftAtServerMs + graceSeconds * 1000) : null;
    return { exists: true, visible: false, state: 'suspected_empty', cleanupAfter: due, estimated: true };
  }
  // Others are still there (or our leave changed nothing): not ours to see.
  return { exists: null, visible: false, state: null, cleanupAfter: null, estimated: false };
}
