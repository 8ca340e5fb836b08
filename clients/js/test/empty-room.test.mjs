// What the last one out learns from the leave reply, and only from it
// (clients/js/src/empty-room.js). No server needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roomAfterLeave } from '../src/empty-room.js';

const leftAtServerMs = Date.UTC(2030, 0, 1, 12, 0, 0);
const seen = (wasAlone, graceSeconds = 30) => ({ wasAlone, leftAtServerMs, graceSeconds });

test('the reply\'s cleanupAfter is the countdown, whatever the client saw', () => {
  const reply = { removed: true, cleanupAfter: '2030-01-01T12:00:30.250Z' };
  for (const wasAlone of [true, false]) {
    assert.deepEqual(roomAfterLeave(reply, seen(wasAlone)), {
      exists: true, visible: false, state: 'suspected_empty', cleanupAfter: new Date('2030-01-01T12:00:30.250Z'), estimated: false,
    });
  }
});

test('without cleanupAfter, a lone leaver estimates leave + grace, and says so', () => {
  assert.deepEqual(roomAfterLeave({ removed: true }, seen(true, 4)), {
    exists: true, visible: false, state: 'suspected_empty', cleanupAfter: new Date(leftAtServerMs + 4000), estimated: true,
  });
  assert.deepEqual(roomAfterLeave({ removed: true }, seen(true, null)), {
    exists: true, visible: false, state: 'suspected_empty', cleanupAfter: null, estimated: true,
  }, 'no grace known: empty, without a countdown');
});

test('a room others are still in, or a leave that removed nothing, shows nothing', () => {
  const nothing = { exists: null, visible: false, state: null, cleanupAfter: null, estimated: false };
  assert.deepEqual(roomAfterLeave({ removed: true }, seen(false)), nothing);
  assert.deepEqual(roomAfterLeave({ removed: false }, seen(true)), nothing);
  assert.deepEqual(roomAfterLeave(null, seen(true)), nothing);
});
