// A Room's Firestore listeners: the room's state, its revision (through
// revision.js), and its roster, typing and receipts collections, turned into
// the Room's fields and events. Only participants can read any of these
// (the room document too), so they run while the room is joined and stop
// before a leave: a permission-denied then means "you are no longer in the
// room", never something to report.
import { collection, doc, onSnapshot } from 'firebase/firestore';
import { RETIRED_ID, watchRevision } from './revision.js';
import { toDate } from './time.js';

/** @typedef {import('./room.js').Room} Room */

const NAMES = ['room', 'revision', 'roster', 'recentlyLeft', 'typing', 'receipts'];

/** Starts the listeners that are not running yet. @param {Room} room */
export function attachListeners(room) {
  const fs = room.client.firestore;
  const failed = (name) => (err) => {
    room._listeners[name] = null;
    listenerFailed(room, name, err);
  };
  const watch = (name, start) => {
    if (!room._listeners[name]) room._listeners[name] = start(failed(name));
  };
  watch('room', (onError) => onSnapshot(doc(fs, 'rooms', room.roomId), (snap) => onRoom(room, snap), onError));
  watch('revision', (onError) => watchRevision(fs, room.roomId, (n) => room._seeRevision(n), onError));
  // A roster listener that starts (again) begins with the whole roster: a
  // `sync`, not a burst of joins.
  watch('roster', (onError) => (room._synced = false, onSnapshot(collection(fs, 'rooms', room.roomId, 'participants'), (snap) => onRoster(room, snap), onError)));
  watch('recentlyLeft', (onError) => onSnapshot(collection(fs, 'rooms', room.roomId, 'recentlyLeft'), (snap) => onRecentlyLeft(room, snap), onError));
  watch('typing', (onError) => onSnapshot(collection(fs, 'rooms', room.roomId, 'typing'), (snap) => onTyping(room, snap), onError));
  watch('receipts', (onError) => onSnapshot(collection(fs, 'rooms', room.roomId, 'receipts'), (snap) => onReceipts(room, snap), onError));
}

/** Stops every listener of the room. @param {Room} room */
export function detachListeners(room) {
  for (const name of NAMES) {
    const stop = room._listeners[name];
    room._listeners[name] = null;
    if (stop) stop();
  }
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
  room.recentlyLeft = [];
  room._departures = [];
  room._synced = false;
  room.typing = [];
  room._typingDocs = [];
  room.receipts = {};
  room._emit('roster', { participants: [], revision: room.revision });
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

function toParticipant(d, self) {
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
 * user's recentlyLeft record when it is already here, else 'left'.
 */
function onRoster(room, snap) {
  const self = room.participantId;
  room.participants = snap.docs
    .map((d) => toParticipant(d, self))
    .sort((a, b) => (a.joinedAt?.getTime() ?? 0) - (b.joinedAt?.getTime() ?? 0) || a.participantId.localeCompare(b.participantId));
  room._emit('roster', { participants: room.participants, revision: room.revision });
  if (!room._synced) {
    room._synced = true;
    room._emit('sync', { participants: room.participants, revision: room.revision });
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
function refreshRecentlyLeft(room) {
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
