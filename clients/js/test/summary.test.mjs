// A large room's summary as the client reads it (clients/js/src/summary.js):
// which summaries give per-user events and which a sync, the participants
// it stands for, and the departures it adds. No stack: plain objects in the
// shape of the summary document (large-room.test.mjs runs the real thing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSummary, largeParticipants, mergeDepartures, summaryChange } from '../src/summary.js';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (s) => new Date(T0 + s * 1000);
const person = (id, joinedS) => ({ participantId: id, displayName: id.toUpperCase(), away: false, joinedAt: at(joinedS) });
const gone = (id, leftS, reason = 'left') => ({ participantId: id, displayName: id.toUpperCase(), leftAt: at(leftS), reason });

function summary({ asOf, previousAsOf = null, joined = [], left = [], truncated = false, sample = [], count = 0, revision = 7 }) {
  return decodeSummary({
    roomId: 'r', mode: 'large', count, revision, asOf: at(asOf), previousAsOf: previousAsOf === null ? null : at(previousAsOf),
    sample, joined, left, truncated, expireAt: at(3600),
  }, 'me');
}

test('a summary that follows the last one seen gives its joins and departures, oldest first', () => {
  const first = summary({ asOf: 10 });
  const next = summary({ asOf: 11, previousAsOf: 10, joined: [person('c', 10.8), person('b', 10.2)], left: [gone('a', 10.5, 'expired')] });
  const change = summaryChange(first.asOf, next);
  assert.equal(change.kind, 'events');
  assert.deepEqual(change.events.map((e) => [e.type, e.detail.participant.participantId]), [
    ['participant-joined', 'b'], ['participant-left', 'a'], ['participant-joined', 'c'],
  ]);
  assert.equal(change.events[1].detail.reason, 'expired');
});

test('a missed summary, a truncated one, or none seen before is a sync, never events', () => {
  const missed = summary({ asOf: 12, previousAsOf: 11, joined: [person('b', 11.5)] });
  assert.equal(summaryChange(at(10).getTime(), missed).kind, 'sync', 'previousAsOf is not the last one seen');
  const truncated = summary({ asOf: 11, previousAsOf: 10, joined: [person('b', 10.5)], truncated: true });
  assert.equal(summaryChange(at(10).getTime(), truncated).kind, 'sync', 'more changes than it lists');
  assert.equal(summaryChange(null, missed).kind, 'sync', 'nothing seen before');
  const firstEver = summary({ asOf: 10 });
  assert.equal(summaryChange(at(9).getTime(), firstEver).kind, 'sync', 'a first summary (previousAsOf null) after another');
});

test('the summary last seen again (a listener that started anew) changes nothing', () => {
  const s = summary({ asOf: 11, previousAsOf: 10, joined: [person('b', 10.5)] });
  assert.deepEqual(summaryChange(s.asOf, s), { kind: 'same', events: [] });
});

test('a departure names the entry last shown for the user when there is one', () => {
  const shown = [{ ...person('a', 1), state: {}, sessionCount: 1, isSelf: false }];
  const s = summary({ asOf: 11, previousAsOf: 10, left: [gone('a', 10.5)] });
  const [left] = summaryChange(at(10).getTime(), s, shown).events;
  assert.equal(left.detail.participant, shown[0]);
});

test('large participants: the sample with this user\'s exact entry, added when the sample lacks it', () => {
  const s = summary({ asOf: 10, sample: [person('a', 1), person('me', 2), person('b', 3)] });
  const mine = { participantId: 'me', displayName: 'Me', state: { colour: 'red' }, away: true, sessionCount: 2, joinedAt: at(2), isSelf: true };
  const inSample = largeParticipants(s.sample, mine, 'me');
  assert.deepEqual(inSample.map((p) => p.participantId), ['a', 'me', 'b']);
  assert.equal(inSample[1], mine, 'the own entry replaces the sample\'s');
  const late = { ...mine, joinedAt: at(50) };
  const outside = largeParticipants(summary({ asOf: 10, sample: [person('a', 1), person('b', 3)] }).sample, late, 'me');
  assert.deepEqual(outside.map((p) => p.participantId), ['a', 'b', 'me']);
  assert.deepEqual(largeParticipants(s.sample, null, 'me').map((p) => p.participantId), ['a', 'b'], 'no own entry known: none made up');
  assert.deepEqual(s.sample[0].state, {}, 'the sample carries no state');
});

test('departures gather across summaries, one per user, without those back since or out of the window', () => {
  let kept = mergeDepartures([], summary({ asOf: 11, previousAsOf: 10, left: [gone('a', 10.5), gone('b', 10.6)] }), at(0).getTime());
  kept = mergeDepartures(kept, summary({ asOf: 12, previousAsOf: 11, joined: [person('a', 11.5)], left: [gone('c', 11.2)] }), at(0).getTime());
  assert.deepEqual(kept.map((d) => d.participantId).sort(), ['b', 'c'], 'a joined again after leaving');
  kept = mergeDepartures(kept, summary({ asOf: 13, previousAsOf: 12, left: [gone('b', 12.5, 'expired')] }), at(11).getTime());
  assert.deepEqual(kept.map((d) => [d.participantId, d.reason]).sort(), [['b', 'expired'], ['c', 'left']], 'the latest departure of b');
  kept = mergeDepartures(kept, summary({ asOf: 14, previousAsOf: 13 }), at(12).getTime());
  assert.deepEqual(kept.map((d) => d.participantId), ['b'], 'c left before the window');
});

test('only a large-mode summary is one', () => {
  assert.equal(decodeSummary(null, 'me'), null);
  assert.equal(decodeSummary({ mode: 'roster', count: 3 }, 'me'), null);
  assert.equal(summary({ asOf: 10, count: 4 }).count, 4);
});
