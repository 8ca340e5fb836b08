// The client's estimate of the server's clock (clients/js/src/server-clock.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerClock } from '../src/server-clock.js';

// A heartbeat that does not renew answers the lease end of an earlier
// renewal; read as "the server's now", it would put the server's clock
// behind by the time since that renewal. The clock ignores it.
test('ServerClock ignores answers that do not move the server time forward', () => {
  let device = 1_000_000;
  const clock = new ServerClock(() => device);
  const skew = 3000; // the server runs 3 s ahead of this device
  clock.sample(device + skew, device, device + 100);
  const want = clock.offsetMs;

  device += 5000; // a skipping heartbeat 5 s later, with a faster round trip
  clock.sample(1_000_000 + skew, device, device + 10);
  assert.equal(clock.offsetMs, want);

  clock.sample(device + skew + 5, device, device + 10); // a renewal: fresh, faster
  assert.equal(clock.offsetMs, skew);
});
