// room._summaryMode (clients/js/src/large-room.js, onSummary), fed summary
// snapshots by hand as large-room-events.test.mjs does: the internal signal
// that tells a roster-mode summary from no summary at all, which
// `_summaryState` ('none' for both) and the public fields cannot.
// large-room.test.mjs relies on it against the stack.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Room } from '../src/room.js';
import { onSummary } from '../src/large-room.js';
import { detachListeners } from '../src/room-listeners.js';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (s) => new Date(T0 + s * 1000);
const ROSTER = ['roster', 'recentlyLeft', 'revision'];

function roomOf() {
  const client = {
    sessionId: 'tab', away: false, recentlyLeftSeconds: 90, firestore: null,
    timers: { set: () => null, clear: () => {} },
    serverNow: () => at(100),
  };
  const room = new Room(client, 'hall', 'Me');
  room.participantId = 'me';
  // Running already: startListener leaves them be, and no Firestore is asked.
  for (const name of ['self', ...ROSTER]) room._listeners[name] = () => {};
  return room;
}

const snap = (data, fromCache = false) => ({ id: 'current', exists: () => data !== null, data: () => data, metadata: { fromCache } });
const person = (id, s) => ({ participantId: id, displayName: id, away: false, joinedAt: at(s) });
const summary = (mode) => snap({
  roomId: 'hall', mode, count: 2, revision: 7, asOf: at(10), previousAsOf: null,
  sample: [person('a', 1), person('me', 2)], joined: [], left: [], truncated: false,
});

test('null until a summary snapshot is seen; a cached absence is not one', () => {
  const room = roomOf();
  assert.equal(room._summaryMode, null);
  onSummary(room, snap(null, true));
  assert.equal(room._summaryMode, null, 'the cache\'s word is not the server\'s');
});

test('a roster-mode summary is "roster", an absent one "none": the same _summaryState and public fields', () => {
  const seen = {};
  for (const [name, s] of [['roster', summary('roster')], ['none', snap(null)]]) {
    const room = roomOf();
    onSummary(room, s);
    assert.equal(room._summaryMode, name);
    seen[name] = { state: room._summaryState, mode: room.mode, count: room.count, participants: room.participants };
  }
  assert.deepEqual(seen.roster, seen.none, 'nothing else tells them apart');
  assert.equal(seen.roster.mode, 'roster');
});

test('a large-mode summary is "large"; the summary going away is "none", and a detach resets it', () => {
  const room = roomOf();
  room.participants = [{ participantId: 'me', displayName: 'Me', state: {}, away: false, sessionCount: 1, joinedAt: at(2), isSelf: true }];
  onSummary(room, summary('large'));
  assert.equal(room._summaryMode, 'large');
  assert.equal(room.mode, 'large');
  assert.deepEqual(ROSTER.filter((n) => room._listeners[n]), [], 'the roster listeners stopped');
  // Marked running again, so that starting them reaches no Firestore.
  for (const name of ROSTER) room._listeners[name] = () => {};
  onSummary(room, summary('roster'));
  assert.equal(room._summaryMode, 'roster', 'a large room whose summary says roster again');
  onSummary(room, snap(null));
  assert.equal(room._summaryMode, 'none');
  detachListeners(room);
  assert.equal(room._summaryMode, null, 'a start again waits for the summary anew');
});
