// A large room: its listeners follow the summary (summary.js) instead of
// the roster, and the Room switches between the two by itself. The
// summarizer writes rooms/{roomId}/summary/current at most once a second
// for a room above its threshold and removes it when the room has shrunk
// to half of it; each roster change would otherwise cost every listener a
// read. room-listeners.js runs the listeners (followMode); this turns
// their snapshots into the Room's fields and events.
import { followMode, refreshRecentlyLeft, stopListener, toParticipant } from './room-listeners.js';
import { decodeSummary, largeParticipants, mergeDepartures, summaryChange } from './summary.js';

/** @typedef {import('./room.js').Room} Room */

/**
 * A snapshot of the summary. A large-mode summary stops the roster's
 * listeners and is shown once this user's own entry is known: taken from
 * the roster when the room was in roster mode, else from the first
 * snapshot of the own entry's listener (onSelf), so that `participants`
 * always holds it. No summary (or none any more): the roster's listeners
 * start, and the room stays as it is until their first snapshot from the
 * server.
 * @param {Room} room
 */
export function onSummary(room, snap) {
  const sum = snap.exists() ? decodeSummary(snap.data(), room.participantId) : null;
  // The local cache may not know of a summary the server has (a document
  // seen absent earlier): only the server's word that there is none
  // starts the roster's listeners.
  if (!sum && snap.metadata.fromCache && room._summaryState === null) return;
  room._summaryState = sum ? 'large' : 'none';
  // Internal: so tests and diagnostics can tell "saw a roster-mode summary"
  // from "no summary" (both are 'none' above; any mode but large is roster).
  room._summaryMode = sum ? 'large' : snap.exists() ? 'roster' : 'none';
  room._pendingSummary = sum;
  followMode(room);
  if (!sum) return;
  if (room._selfEntry === undefined && room.mode === 'roster') {
    const me = room.participants.find((p) => p.isSelf);
    if (me) room._selfEntry = me;
  }
  if (room._selfEntry !== undefined) showSummary(room);
}

/**
 * A snapshot of this user's own roster entry, listened to in large mode
 * only (one read per change of it). null when it is gone: the lease
 * ended, and the listeners are about to be refused.
 * @param {Room} room
 */
export function onSelf(room, snap) {
  const first = !room._selfSeen;
  room._selfSeen = true;
  const entry = snap.exists() ? toParticipant(snap, room.participantId) : null;
  room._selfEntry = entry;
  if (room._pendingSummary) {
    showSummary(room);
    return;
  }
  if (room.mode !== 'large' || !room._summary) return;
  room.participants = largeParticipants(room._summary.sample, entry, room.participantId);
  emitRoster(room, 'roster');
  if (!first && entry) room._emit('participant-updated', { participant: entry });
}

/** The pending summary becomes the room's view, and its events go out. @param {Room} room */
function showSummary(room) {
  const sum = room._pendingSummary;
  room._pendingSummary = null;
  const previous = room.mode;
  // A switch shows the whole room anew; so does a gap between summaries.
  const change = previous === 'large' ? summaryChange(room._lastAsOf, sum, room.participants) : { kind: 'sync', events: [] };
  room._summary = sum;
  room._lastAsOf = sum.asOf;
  room.mode = 'large';
  room.participants = largeParticipants(sum.sample, room._selfEntry, room.participantId);
  room.count = sum.count;
  const now = room.client.serverNow().getTime();
  room._departures = mergeDepartures(room._departures, sum, now - room.client.recentlyLeftSeconds * 1000);
  // The summary's revision is the one its count is exact at.
  room._seeRevision(sum.revision);
  if (previous !== 'large') room._emit('mode', { mode: 'large', previous });
  emitRoster(room, 'roster');
  if (change.kind === 'sync') emitRoster(room, 'sync');
  for (const { type, detail } of change.events) room._emit(type, detail);
  refreshRecentlyLeft(room);
}

/**
 * Back to roster mode, from the roster's first snapshot after the summary
 * went away (room-listeners.js, onRoster, which then emits the sync).
 * @param {Room} room
 */
export function leaveLargeMode(room) {
  room.mode = 'roster';
  room._summary = null;
  room._lastAsOf = null;
  room._selfEntry = undefined;
  stopListener(room, 'self');
  room._emit('mode', { mode: 'roster', previous: 'large' });
}

function emitRoster(room, type) {
  room._emit(type, { participants: room.participants, revision: room.revision, count: room.count, mode: room.mode });
}
