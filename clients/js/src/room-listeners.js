// A Room's Firestore listeners: the room's state, its revision (through
// revision.js), and its roster, typing and receipts collections, turned into
// the Room's fields and events; and, for a large room, its summary instead
// of the roster (large-room.js). Only participants can read any of these
// (the room document too), so they run while the room is joined and stop
// before a leave: a permission-denied then means "you are no longer in the
// room", never something to report.
import { collection, doc, onSnapshot } from 'firebase/firestore';
import { onSnapshotConfirmed } from './confirmed.js';
import { RETIRED_ID, watchRevision } from './revision.js';
import { toDate } from './time.js';
import { leaveLargeMode, onSelf, onSummary } from './large-room.js';

/** @typedef {import('./room.js').Room} Room */

// The roster mode's listeners: each costs its reader a read per change of
// the roster, so they run only while the room has no large-mode summary.
const ROSTER = ['revision', 'roster', 'recentlyLeft'];
const NAMES = ['room', 'summary', 'self', ...ROSTER, 'typing', 'receipts'];

const STARTERS = {
  room: (room, fs, onError) => onSnapshot(doc(fs, 'rooms', room.roomId), (snap) => onRoom(room, snap), onError),
  // Before the roster's listeners: they start only once it has said
  // whether the room is large (followMode), which only the server's word
  // says (onSummary): hence the confirmation of a cached snapshot.
  summary: (room, fs, onError) => onSnapshotConfirmed(doc(fs, 'rooms', room.roomId, 'summary', 'current'), (snap) => onSummary(room, snap), onError),
  // This user's own entry, exact, while the roster listener is off.
  self: (room, fs, onError) => (room._selfSeen = false, onSnapshot(doc(fs, 'rooms', room.roomId, 'participants', room.participantId), (snap) => onSelf(room, snap), onError)),
  revision: (room, fs, onError) => watchRevision(fs, room.roomId, (n) => room._seeRevision(n), onError),
  // A roster listener that starts (again) begins with the whole roster: a
  // `sync`, not a burst of joins. Back from large mode it waits for the
  // server's roster (onRoster), which may only confirm the cache's.
  roster: (room, fs, onError) => (room._synced = false, onSnapshotConfirmed(collection(fs, 'rooms', room.roomId, 'participants'), (snap) => onRoster(room, snap), onError)),
  recentlyLeft: (room, fs, onError) => onSnapshot(collection(fs, 'rooms', room.roomId, 'recentlyLeft'), (snap) => onRecentlyLeft(room, snap), onError),
  typing: (room, fs, onError) => onSnapshot(collection(fs, 'rooms', room.roomId, 'typing'), (snap) => onTyping(room, snap), onError),
  receipts: (room, fs, onError) => onSnapshot(collection(fs, 'rooms', room.roomId, 'receipts'), (snap) => onReceipts(room, snap), onError),
};

/** Starts one listener unless it runs already. @param {Room} room */
export function startListener(room, name) {
  if (room._listeners[name]) return;
  room._listenerStarts[name] = (room._listenerStarts[name] || 0) + 1;
  room._listeners[name] = STARTERS[name](room, room.client.firestore, (err) => {
    room._listeners[name] = null;
    // A summary that cannot be read says nothing about the room's size
    // (a deployment whose rules predate it refuses it): until it can,
    // the roster is the source rather than nothing.
    if (name === 'summary' && room._summaryState === null) {
      room._summaryState = 'none';
      followMode(room);
    }
    listenerFailed(room, name, err);
  });
}

/** Stops one listener if it runs. @param {Room} room */
export function stopListener(room, name) {
  const stop = room._listeners[name];
  room._listeners[name] = null;
  if (stop) stop();
}

/** Starts the listeners that are not running yet. @param {Room} room */
export function attachListeners(room) {
  for (const name of ['room', 'summary', 'typing', 'receipts']) startListener(room, name);
  followMode(room);
}

/**
 * Runs the listeners the room's size calls for, as the summary's last
 * snapshot said: none of the roster's before its first one (a client of a
 * room that is already large never pays for the whole roster); in a large
 * room the own entry's instead of the roster's. A room that is no longer
 * large keeps its own entry's listener until the roster's first snapshot
 * has replaced the summary's view (onRoster), so nothing shows an empty
 * roster in between.
 * @param {Room} room
 */
export function followMode(room) {
  if (room._summaryState === null) return;
  if (room._summaryState === 'large') {
    for (const name of ROSTER) stopListener(room, name);
    startListener(room, 'self');
  } else {
    for (const name of ROSTER) startListener(room, name);
    // A summary that went away before it was shown (its own entry not
    // read yet) leaves nothing to keep up.
    if (room.mode === 'roster') {
      stopListener(room, 'self');
      room._selfEntry = undefined;
    }
  }
}

/** Stops every listener of the room. @param {Room} room */
export function detachListeners(room) {
  for (const name of NAMES) stopListener(room, name);
  // A start again listens to the summary first, and waits for it.
  room._summaryState = null;
  room._summaryMode = null;
  room._pendingSummary = null;
  room._selfEntry = undefined;
  room.client.timers.clear(room._typingTimer);
  room.client.timers.clear(room._recentlyLeftTimer);
}

/**
 * A listener is cut off when the user is no longer on the roster: the lease
 * ran out (a sleeping laptop, a suspended app) or the user left. A joined
 * client checks its lease at once: a 409 leads to a rejoin, which attaches
 * the listeners again, and a heartbeat that succeeds restarts the ones that
 * stopped. At most one such early check per heartbeat interval: a listener
 * refused again while the lease holds waits for the next regular heartbeat
 * instead of spinning.
 * @param {Room} room
 */
function listenerFailed(room, name, err) {
  const denied = err && err.code === 'permission-denied';
  if (room.status === 'paused') {
    // Heartbeats are paused and the server has let the lease go: say so,
    // and show nothing we can no longer see.
    if (denied) {
      room._setStatus('expired', 'roster');
      clearMembers(room);
    }
    return;
  }
  if (room.status !== 'joined' && room.status !== 'rejoining') return;
  if (!denied) room._emit('error', { error: err, during: `listen:${name}` });
  if (room.status !== 'joined') return;
  const now = room.client.now();
  if (now - room._listenerWakeAt < (room.heartbeatSeconds ?? 0) * 1000) return;
  room._listenerWakeAt = now;
  room._wake('listener');
}

/** Empties roster, typing and receipts, and says so. @param {Room} room */
export function clearMembers(room) {
  room.participants = [];
  room.count = 0;
  room.recentlyLeft = [];
  room._departures = [];
  room._synced = false;
  // The next summary is shown anew (a sync), not as changes to nothing.
  room._lastAsOf = null;
  room.typing = [];
  room._typingDocs = [];
  room.receipts = {};
  room._emit('roster', { participants: [], revision: room.revision, count: 0, mode: room.mode });
  room._emit('typing', { typing: [] });
  room._emit('receipts', { receipts: {} });
}

function onRoom(room, snap) {
  if (!snap.exists()) {
    room._setRoom({ exists: false, visible: true, state: 'deleted', generation: null, cleanupAfter: null });
    return;
  }
  const d = snap.data();
  room._setRoom({
    exists: true,
    visible: true,
    state: d.state,
    generation: d.generation ?? null,
    cleanupAfter: toDate(d.cleanupAfter),
  });
}

export function toParticipant(d, self) {
  const p = d.data();
  return {
    participantId: p.participantId || d.id,
    displayName: p.displayName || '',
    ...(p.photoURL ? { photoURL: p.photoURL } : {}),
    state: p.state && typeof p.state === 'object' ? p.state : {},
    away: !!p.away,
    sessionCount: p.sessionCount ?? 1,
    joinedAt: toDate(p.joinedAt),
    isSelf: d.id === self,
  };
}

/**
 * The roster, and what changed in it: the first snapshot after the
 * listener starts is `sync` (the whole roster, no per-user events); after
 * that each change is `participant-joined`, `participant-updated` (state,
 * away, name, sessions) or `participant-left`, whose reason comes from the
 * user's recentlyLeft record when it is already here, else 'left'. The
 * first snapshot from the server after a large room's summary went away
 * switches the room back to roster mode: the summary's view stayed until
 * this one replaced it.
 */
function onRoster(room, snap) {
  // Back from a summary, the cache still holds the roster as it was when
  // its listener stopped (those who left since among it): the summary's
  // view stays until the server's roster replaces it.
  if (room.mode === 'large' && snap.metadata.fromCache) return;
  const self = room.participantId;
  room.participants = snap.docs
    .map((d) => toParticipant(d, self))
    .sort((a, b) => (a.joinedAt?.getTime() ?? 0) - (b.joinedAt?.getTime() ?? 0) || a.participantId.localeCompare(b.participantId));
  room.count = room.participants.length;
  if (room.mode === 'large') leaveLargeMode(room);
  room._emit('roster', { participants: room.participants, revision: room.revision, count: room.count, mode: room.mode });
  if (!room._synced) {
    room._synced = true;
    room._emit('sync', { participants: room.participants, revision: room.revision, count: room.count, mode: room.mode });
  } else {
    for (const change of snap.docChanges()) {
      const participant = toParticipant(change.doc, self);
      if (change.type === 'added') room._emit('participant-joined', { participant });
      else if (change.type === 'modified') room._emit('participant-updated', { participant });
      else {
        const record = room._departures.find((r) => r.participantId === participant.participantId);
        room._emit('participant-left', { participant, reason: record?.reason || 'left' });
      }
    }
  }
  refreshRecentlyLeft(room);
}

function onRecentlyLeft(room, snap) {
  // Beside the records: the room's retired count (revision.js), nobody's.
  room._departures = snap.docs.filter((d) => d.id !== RETIRED_ID).map((d) => {
    const r = d.data();
    return {
      participantId: r.participantId || d.id,
      displayName: r.displayName || '',
      ...(r.photoURL ? { photoURL: r.photoURL } : {}),
      leftAt: toDate(r.leftAt),
      reason: r.reason || 'left',
    };
  });
  refreshRecentlyLeft(room);
}

/**
 * Records stay until the sweeper or TTL removes them: show only those
 * younger than recentlyLeftSeconds (on the estimated server clock) whose
 * user is not back on the roster, newest first, and hide each at its age.
 * @param {Room} room
 */
export function refreshRecentlyLeft(room) {
  const timers = room.client.timers;
  timers.clear(room._recentlyLeftTimer);
  const now = room.client.serverNow().getTime();
  const windowMs = room.client.recentlyLeftSeconds * 1000;
  const here = new Set(room.participants.map((p) => p.participantId));
  room.recentlyLeft = room._departures
    .filter((r) => !here.has(r.participantId) && (!r.leftAt || r.leftAt.getTime() + windowMs > now))
    .sort((a, b) => (b.leftAt?.getTime() ?? 0) - (a.leftAt?.getTime() ?? 0));
  const next = Math.min(...room.recentlyLeft.map((r) => (r.leftAt ? r.leftAt.getTime() + windowMs : Infinity)));
  room._recentlyLeftTimer = Number.isFinite(next) ? timers.set(() => refreshRecentlyLeft(room), next - now + 50) : null;
  room._emit('recently-left', { recentlyLeft: room.recentlyLeft });
}

function onTyping(room, snap) {
  room._typingDocs = snap.docs.map((d) => {
    const t = d.data();
    return {
      participantId: t.participantId || d.id,
      displayName: t.displayName || '',
      expiresAt: toDate(t.expiresAt),
      isSelf: d.id === room.participantId,
    };
  });
  refreshTyping(room);
}

/**
 * Typing documents stay until the sweeper deletes them; hide each one at
 * its server-time expiry, judged with the estimated server clock.
 * @param {Room} room
 */
function refreshTyping(room) {
  const timers = room.client.timers;
  timers.clear(room._typingTimer);
  const now = room.client.serverNow().getTime();
  room.typing = room._typingDocs.filter((t) => !t.expiresAt || t.expiresAt.getTime() > now);
  const next = Math.min(...room.typing.map((t) => (t.expiresAt ? t.expiresAt.getTime() : Infinity)));
  room._typingTimer = Number.isFinite(next) ? timers.set(() => refreshTyping(room), next - now + 50) : null;
  room._emit('typing', { typing: room.typing });
}

function onReceipts(room, snap) {
  const receipts = {};
  for (const d of snap.docs) {
    const r = d.data();
    if (Number.isFinite(r.lastReadSeq)) receipts[r.participantId || d.id] = r.lastReadSeq;
  }
  room.receipts = receipts;
  room._emit('receipts', { receipts });
}
