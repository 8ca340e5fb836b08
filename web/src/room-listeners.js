// A Room's Firestore listeners (part of roomlease.js): the room document and
// its roster, typing and receipts collections, turned into the Room's fields
// and events. Each function works on the Room it is given.
import { collection, doc, onSnapshot } from 'firebase/firestore';

/** @typedef {import('./room.js').Room} Room */

/** Starts the listeners that are not running yet. @param {Room} room */
export function attachListeners(room) {
  const fs = room.client.firestore;
  const watch = (name, ref, onNext) => {
    if (room._listeners[name]) return;
    room._listeners[name] = onSnapshot(ref, onNext, (err) => {
      room._listeners[name] = null;
      listenerFailed(room, name, err);
    });
  };
  watch('room', doc(fs, 'rooms', room.roomId), (snap) => onRoom(room, snap));
  watch('roster', collection(fs, 'rooms', room.roomId, 'participants'), (snap) => onRoster(room, snap));
  watch('typing', collection(fs, 'rooms', room.roomId, 'typing'), (snap) => onTyping(room, snap));
  watch('receipts', collection(fs, 'rooms', room.roomId, 'receipts'), (snap) => onReceipts(room, snap));
}

/**
 * @param {Room} room
 * @param {string[]} names
 */
export function detachListeners(room, names) {
  for (const name of names) {
    const stop = room._listeners[name];
    room._listeners[name] = null;
    if (stop) stop();
  }
}

/**
 * A listener is cut off when the user is no longer on the roster: the
 * lease ran out (a sleeping laptop) or the user left. A joined client
 * checks its lease at once; the rejoin attaches the listener again.
 * @param {Room} room
 */
function listenerFailed(room, name, err) {
  const denied = err && err.code === 'permission-denied';
  const live = room.status === 'joined' || room.status === 'rejoining';
  if (!live) {
    // Left an occupied room, or swept out after a crash: it is no longer
    // ours to see.
    if (name === 'room') room._emit('room', setRoom(room, { exists: null, visible: false }));
    if (denied && room.status === 'crashed') room._setStatus('expired', 'roster');
    if (denied && room.status === 'expired' && name !== 'room') clearMembers(room);
    return;
  }
  if (!denied) room._emit('error', { error: err, during: `listen:${name}` });
  if (room.status === 'joined') room._wake();
}

/** Empties roster, typing and receipts, and says so. @param {Room} room */
export function clearMembers(room) {
  room.participants = [];
  room.typing = [];
  room._typingDocs = [];
  room.receipts = {};
  room._emit('roster', { participants: [], revision: room.revision });
  room._emit('typing', { typing: [] });
  room._emit('receipts', { receipts: {} });
}

function setRoom(room, info) {
  room.room = info;
  return info;
}

function onRoom(room, snap) {
  if (!snap.exists()) {
    room._emit('room', setRoom(room, { exists: false, visible: true, state: 'deleted', revision: room.revision, generation: null, participantCount: 0, cleanupAfter: null }));
    return;
  }
  const d = snap.data();
  const prev = room.revision;
  const info = setRoom(room, {
    exists: true,
    visible: true,
    state: d.state,
    generation: d.generation ?? null,
    revision: d.revision ?? null,
    participantCount: d.participantCount ?? 0,
    peakParticipants: d.peakParticipants ?? 0,
    cleanupAfter: toDate(d.cleanupAfter),
    updatedAt: toDate(d.updatedAt),
  });
  if (Number.isFinite(info.revision)) {
    room.revision = info.revision;
    if (prev !== null && info.revision > prev + 1) room._emit('gap', { from: prev, to: info.revision });
  }
  room._emit('room', info);
}

function onRoster(room, snap) {
  const self = room.participantId;
  room.participants = snap.docs
    .map((d) => {
      const p = d.data();
      return {
        participantId: p.participantId || d.id,
        displayName: p.displayName || '',
        sessionCount: p.sessionCount ?? 1,
        joinedAt: toDate(p.joinedAt),
        isSelf: d.id === self,
      };
    })
    .sort((a, b) => (a.joinedAt?.getTime() ?? 0) - (b.joinedAt?.getTime() ?? 0) || a.participantId.localeCompare(b.participantId));
  room._emit('roster', { participants: room.participants, revision: room.revision });
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
  clearTimeout(room._typingTimer);
  const now = room.client.serverNow().getTime();
  room.typing = room._typingDocs.filter((t) => !t.expiresAt || t.expiresAt.getTime() > now);
  const next = Math.min(...room.typing.map((t) => (t.expiresAt ? t.expiresAt.getTime() : Infinity)));
  if (Number.isFinite(next)) room._typingTimer = setTimeout(() => refreshTyping(room), next - now + 50);
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

function toDate(v) {
  if (!v) return null;
  if (typeof v.toDate === 'function') return v.toDate();
  if (v instanceof Date) return v;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t) : null;
}
