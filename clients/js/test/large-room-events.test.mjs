// How a Room turns a large room's summary snapshots into its fields and
// events (clients/js/src/large-room.js), fed snapshots by hand: a Room on
// a client with no network, whose own-entry listener is marked running
// so that nothing reaches Firestore. large-room.test.mjs runs the same
// against the stack; this pins the orderings it cannot force (own entry
// after the summary, a missed summary, an own entry outside the sample).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Room } from '../src/room.js';
import { onSelf, onSummary } from '../src/large-room.js';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (s) => new Date(T0 + s * 1000);

function roomOf() {
  const client = {
    sessionId: 'tab', away: false, recentlyLeftSeconds: 90, firestore: null,
    timers: { set: () => null, clear: () => {} },
    serverNow: () => at(100),
  };
  const room = new Room(client, 'hall', 'Me');
  room.participantId = 'me';
  // Running already: startListener leaves it be, and no Firestore is asked.
  room._listeners.self = () => {};
  const seen = [];
  for (const type of ['mode', 'roster', 'sync', 'participant-joined', 'participant-left', 'participant-updated']) {
    room.on(type, (detail) => seen.push({ type, detail }));
  }
  return { room, seen, types: () => seen.map((e) => e.type) };
}

const snap = (data, id = 'current') => ({ id, exists: () => data !== null, data: () => data, metadata: { fromCache: false } });
const person = (id, s) => ({ participantId: id, displayName: id, away: false, joinedAt: at(s) });
const sample = ['a', 'b', 'c'].map((id, i) => person(id, i));
const summary = (asOf, previousAsOf, extra = {}) => snap({
  roomId: 'hall', mode: 'large', count: 30, revision: 40 + asOf, asOf: at(asOf), previousAsOf: previousAsOf === null ? null : at(previousAsOf),
  sample, joined: [], left: [], truncated: false, ...extra,
});
const mine = (extra = {}) => snap({ participantId: 'me', displayName: 'Me', state: { colour: 'red' }, sessionCount: 2, joinedAt: at(50), ...extra }, 'me');

test('joining a room that is already large: nothing shows until the own entry is read, then one sync with it', () => {
  const { room, types, seen } = roomOf();
  onSummary(room, summary(10, null));
  assert.deepEqual(types(), [], 'no roster without the own entry');
  assert.equal(room._listeners.roster, null, 'the roster listener never started');
  onSelf(room, mine());
  assert.deepEqual(types(), ['mode', 'roster', 'sync']);
  assert.deepEqual(seen[0].detail, { mode: 'large', previous: 'roster' });
  assert.equal(room.mode, 'large');
  assert.equal(room.count, 30);
  assert.equal(room.revision, 50);
  assert.deepEqual(room.participants.map((p) => p.participantId), ['a', 'b', 'c', 'me'], 'the own entry, outside the sample, is added');
  const me = room.participants.find((p) => p.isSelf);
  assert.deepEqual([me.state, me.sessionCount], [{ colour: 'red' }, 2], 'exact, from the own document');
  assert.deepEqual(seen[2].detail.count, 30);
});

test('the next summary gives per-user events; a missed or truncated one gives a sync', () => {
  const { room, types, seen } = roomOf();
  onSelf(room, mine());
  onSummary(room, summary(10, null));
  seen.length = 0;
  onSummary(room, summary(11, 10, { count: 31, sample: [sample[0], sample[2], person('d', 10.5)], joined: [person('d', 10.5)], left: [{ participantId: 'b', displayName: 'b', leftAt: at(10.7), reason: 'expired' }] }));
  assert.deepEqual(types(), ['roster', 'participant-joined', 'participant-left']);
  assert.equal(seen[1].detail.participant.participantId, 'd');
  assert.equal(seen[2].detail.participant.participantId, 'b');
  assert.equal(seen[2].detail.reason, 'expired');
  assert.deepEqual(room.recentlyLeft.map((d) => d.participantId), ['b'], 'the departure shows as recently left');
  assert.equal(room.count, 31);

  seen.length = 0;
  onSummary(room, summary(13, 12, { joined: [person('e', 12.5)] }));
  assert.deepEqual(types(), ['roster', 'sync'], 'the summary of 12 was missed');
  seen.length = 0;
  onSummary(room, summary(14, 13, { joined: [person('f', 13.5)], truncated: true }));
  assert.deepEqual(types(), ['roster', 'sync'], 'more changes than listed');
  seen.length = 0;
  onSummary(room, summary(14, 13, { joined: [person('f', 13.5)], truncated: true }));
  assert.deepEqual(types(), ['roster'], 'the same summary again is no change');
});

test('the own entry changing in large mode is a participant-updated, its first read is not', () => {
  const { room, types } = roomOf();
  onSummary(room, summary(10, null));
  onSelf(room, mine());
  onSelf(room, mine({ state: { colour: 'blue' } }));
  assert.deepEqual(types(), ['mode', 'roster', 'sync', 'roster', 'participant-updated']);
  assert.deepEqual(room.participants.find((p) => p.isSelf).state, { colour: 'blue' });
});

test('a room that becomes large shows its summary at once, with the own entry the roster had', () => {
  const { room, types } = roomOf();
  const own = { participantId: 'me', displayName: 'Me', state: { colour: 'red' }, away: false, sessionCount: 1, joinedAt: at(50), isSelf: true };
  room.participants = [own];
  onSummary(room, summary(10, null));
  assert.deepEqual(types(), ['mode', 'roster', 'sync'], 'no wait for the own document');
  assert.ok(room.participants.includes(own));
  onSelf(room, mine({ sessionCount: 1 }));
  assert.deepEqual(types(), ['mode', 'roster', 'sync', 'roster'], 'the own document\'s first read updates nothing it has to announce');
});

test('a summary that is gone starts the roster listeners and keeps the large view until the roster answers', () => {
  const { room, types } = roomOf();
  onSelf(room, mine());
  onSummary(room, summary(10, null));
  // Marked running, so that the test's Room reaches no Firestore either.
  for (const name of ['roster', 'recentlyLeft', 'revision']) room._listeners[name] = () => {};
  const before = room.participants;
  onSummary(room, snap(null));
  assert.equal(room.mode, 'large', 'still the summary\'s view');
  assert.equal(room.participants, before, 'nothing emptied');
  assert.deepEqual(types(), ['mode', 'roster', 'sync'], 'no events until the roster\'s first snapshot');
});

test('a summary the cache says is absent is not taken for the server\'s word', () => {
  const { room } = roomOf();
  onSummary(room, { ...snap(null), metadata: { fromCache: true } });
  assert.equal(room._summaryState, null, 'still waiting: the roster listeners have not started');
});
