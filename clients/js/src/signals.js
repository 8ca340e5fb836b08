// A joined room's signals beside its lease: typing, which expires on the
// server by itself unless refreshed, and read receipts, whose position
// only moves forward. Functions of a Room (room.js); its setTyping and
// markRead are the public calls.
import { nextBeatDelay } from './lease-timing.js';

/**
 * Sends whether the user is typing, unless the last `true` is recent
 * enough to still hold (typingRefreshSeconds). Best effort: a failure is
 * reported and never replayed.
 */
export async function sendTyping(room, typing) {
  if (room.status !== 'joined') return;
  const now = room.client.now();
  if (typing && room._typingOn && now - room._typingSentAt < room.client.typingRefreshSeconds * 1000) return;
  if (!typing && !room._typingOn) return;
  room._typingOn = !!typing;
  room._typingSentAt = now;
  const generation = room.generation;
  try {
    // With the lease token the server fences the signal by it, renews
    // the lease in the same write and says so: the next heartbeat then
    // moves back.
    const { data, sent, received } = await room.client._api.call('POST', room._path('typing'), {
      sessionId: room.sessionId,
      generation,
      typing: !!typing,
      ...(room._leaseToken ? { leaseToken: room._leaseToken } : {}),
    });
    if (data && data.leaseExpiresAt && room.status === 'joined' && room.generation === generation
      && Date.parse(data.leaseExpiresAt) > (room.leaseExpiresAt?.getTime() ?? 0)) {
      room._renewed(data, sent, received);
      if (!room._busy) room._schedule(nextBeatDelay(room));
    }
  } catch (err) {
    // Typing is best effort and never replayed. A 409 means the lease needs
    // attention: let the heartbeat path deal with it.
    room._typingOn = false;
    if (err.status === 409) room._wake();
    room._emit('error', { error: err, during: 'typing' });
  }
}

/**
 * Sends the read position markRead recorded, if any; returns the stored
 * position (the last one known when nothing is pending), or null when the
 * send failed: it is sent again after the next heartbeat.
 */
export async function flushRead(room) {
  const seq = room._pendingRead;
  if (seq === null) return room.lastReadSeq;
  try {
    const { data } = await room.client._api.call('POST', room._path('receipts'), { lastReadSeq: seq });
    // A later markRead while this was in flight stays pending.
    if (room._pendingRead === seq) room._pendingRead = null;
    room.lastReadSeq = data.lastReadSeq;
    return data.lastReadSeq;
  } catch (err) {
    room._emit('error', { error: err, during: 'receipts' });
    return null;
  }
}
