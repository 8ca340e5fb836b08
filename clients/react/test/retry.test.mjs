// Which failed joins a mounted room tries again (retry.js), code by code,
// and the backoff between tries. No stack: RoomleaseError as the client
// builds it from the server's answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RoomleaseError } from '@roomlease/client';
import { FIRST_DELAY_MS, MAX_DELAY_MS, isRetryable, retryDelayMs } from '../src/retry.js';

test('a join is tried again after what passes by itself, and not after what does not', () => {
  const retried = [
    [0, 'network'], [0, 'timeout'], [503, 'unavailable'], [500, 'internal'], [502, 'http_502'],
    [429, 'rate_limited'], [408, 'http_408'], [401, 'unauthenticated'],
  ];
  const final = [
    [403, 'permission_denied'], [409, 'too_many_rooms'], [409, 'too_many_sessions'], [409, 'room_full'],
    [400, 'invalid_argument'], [404, 'not_found'], [413, 'payload_too_large'], [426, 'client_too_old'],
    [401, 'app_check_failed'], [0, 'wrong_database'],
  ];
  for (const [status, code] of retried) assert.equal(isRetryable(new RoomleaseError(status, code, 'm')), true, `${status} ${code}`);
  for (const [status, code] of final) assert.equal(isRetryable(new RoomleaseError(status, code, 'm')), false, `${status} ${code}`);
  assert.equal(isRetryable(new TypeError('not the API\'s')), false);
  assert.equal(isRetryable(null), false);
});

test('the backoff doubles up to its cap, jittered by at most half, and keeps to Retry-After', () => {
  const none = () => 0;
  const most = () => 0.999999;
  assert.equal(retryDelayMs(1, null, none), FIRST_DELAY_MS);
  assert.equal(retryDelayMs(2, null, none), 2 * FIRST_DELAY_MS);
  assert.equal(retryDelayMs(3, null, none), 4 * FIRST_DELAY_MS);
  assert.equal(retryDelayMs(20, null, none), MAX_DELAY_MS);
  assert.equal(retryDelayMs(1, null, most), Math.round(FIRST_DELAY_MS / 2));
  const limited = new RoomleaseError(429, 'rate_limited', 'm', 7);
  assert.equal(retryDelayMs(1, limited, most), 7000);
  assert.equal(retryDelayMs(20, limited, none), MAX_DELAY_MS);
});
