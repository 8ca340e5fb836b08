// The client's request path for App Check and rate limits: the
// X-Firebase-AppCheck header, the one retry with a fresh App Check token
// after 401 app_check_failed, and Retry-After on a 429. The API's answers
// come from a stub fetch here (the dev server runs with App Check off and a
// limit a test should not have to exhaust); the heartbeat test joins the real
// dev server and only its heartbeats are answered 429.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient } from '@roomlease/client/node';
import { RoomleaseApi, RoomleaseError, parseRetryAfter } from '../src/api.js';
import { holdableTimers, loadConfig, newUser, roomName, until } from './helpers.mjs';

const json = (status, body, headers = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** A signed-in user as the API sees it: getIdToken(force) is recorded. */
function fakeAuth() {
  const forced = [];
  return {
    forced,
    currentUser: {
      async getIdToken(force) {
        forced.push(!!force);
        return force ? 'id-fresh' : 'id-cached';
      },
    },
  };
}

/** fetch answering from answers[i] for the i-th call; records each request. */
function stubFetch(answers) {
  const requests = [];
  const fn = async (url, init) => {
    requests.push({ url, headers: { ...init.headers }, keepalive: !!init.keepalive });
    return answers[Math.min(requests.length - 1, answers.length - 1)]();
  };
  return { fn, requests };
}

describe('App Check on the request path', () => {
  test('every request carries the token, as a string or as Firebase\'s { token }, and the keepalive leave too', async () => {
    for (const shape of [(t) => t, (t) => ({ token: t })]) {
      const auth = fakeAuth();
      const asked = [];
      const stub = stubFetch([() => json(200, { ok: true })]);
      const api = new RoomleaseApi({
        apiUrl: 'https://api.test', auth, fetch: stub.fn, now: () => 0,
        appCheckToken: async (force) => {
          asked.push(force);
          return shape(`ac-${asked.length}`);
        },
      });
      await api.call('GET', '/v1/rooms/r');
      await api.call('POST', '/v1/rooms/r/heartbeat', { sessionId: 's', generation: 1 });
      assert.equal(api.postAndForget('/v1/rooms/r/leave', { sessionId: 's', generation: 1 }), true);
      await until('the keepalive leave is sent', () => stub.requests.length === 3, 1000);
      assert.deepEqual(stub.requests.map((r) => r.headers['X-Firebase-AppCheck']), ['ac-1', 'ac-2', 'ac-2']);
      assert.deepEqual(asked, [false, false], 'a token per call, not forced');
      assert.ok(stub.requests[2].keepalive);
    }
  });

  test('without the option no header is sent', async () => {
    const stub = stubFetch([() => json(200, {})]);
    const api = new RoomleaseApi({ apiUrl: 'https://api.test', auth: fakeAuth(), fetch: stub.fn, now: () => 0 });
    await api.call('GET', '/v1/rooms/r');
    assert.equal(stub.requests[0].headers['X-Firebase-AppCheck'], undefined);
  });

  test('401 app_check_failed is retried once with a refreshed App Check token, not a new ID token', async () => {
    const auth = fakeAuth();
    const asked = [];
    const refused = () => json(401, { error: { code: 'app_check_failed', message: 'the App Check token has expired; get a new one' } });
    const stub = stubFetch([refused, () => json(200, { roomId: 'r' })]);
    const api = new RoomleaseApi({
      apiUrl: 'https://api.test', auth, fetch: stub.fn, now: () => 0,
      appCheckToken: async (force) => {
        asked.push(force);
        return force ? 'ac-fresh' : 'ac-stale';
      },
    });
    const { data } = await api.call('GET', '/v1/rooms/r');
    assert.equal(data.roomId, 'r');
    assert.deepEqual(asked, [false, true]);
    assert.deepEqual(stub.requests.map((r) => r.headers['X-Firebase-AppCheck']), ['ac-stale', 'ac-fresh']);
    assert.deepEqual(auth.forced, [false, false], 'the ID token was not refreshed');

    // Refused again: one retry only, then the error.
    const again = stubFetch([refused]);
    const api2 = new RoomleaseApi({ apiUrl: 'https://api.test', auth: fakeAuth(), fetch: again.fn, now: () => 0, appCheckToken: async () => 'x' });
    await assert.rejects(api2.call('GET', '/v1/rooms/r'), (err) => err instanceof RoomleaseError && err.status === 401 && err.code === 'app_check_failed');
    assert.equal(again.requests.length, 2);
  });
});

describe('Retry-After', () => {
  test('a 429 carries retryAfterSeconds, from seconds or an HTTP date', async () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 12:01:30 GMT', now), 90);
    assert.equal(parseRetryAfter(null, now), null);
    assert.equal(parseRetryAfter('soon', now), null);
    const stub = stubFetch([() => json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'Retry-After': '4' })]);
    const api = new RoomleaseApi({ apiUrl: 'https://api.test', auth: fakeAuth(), fetch: stub.fn, now: () => now });
    await assert.rejects(api.call('POST', '/v1/rooms/r/join', { sessionId: 's' }),
      (err) => err.status === 429 && err.code === 'rate_limited' && err.retryAfterSeconds === 4);
    assert.equal(stub.requests.length, 1, 'a 429 is not retried inside call()');
  });

  describe('against the dev server', () => {
    let config;
    const cleanups = [];
    before(async () => {
      config = await loadConfig();
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
    });

    test('a heartbeat answered 429 is retried no sooner than Retry-After, then the schedule resumes', async () => {
      const user = await newUser(config);
      let limit = true;
      let limited = 0;
      const fetchFn = async (url, init) => {
        if (limit && new URL(url).pathname.endsWith('/heartbeat')) {
          limited++;
          return json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'Retry-After': '7' });
        }
        return fetch(url, init);
      };
      const timers = holdableTimers();
      const { asked } = timers;
      const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, fetch: fetchFn, timers, random: () => 0.5 });
      cleanups.push(async () => {
        client.close();
        await user.close();
      });
      const errors = [];
      const room = await client.join(roomName('node-429'), { displayName: 'Ada' });
      room.on('error', ({ error }) => errors.push(error));
      // A beat is scheduled at renewAt (plus a margin), about lease −
      // interval after an answer: see node.test.mjs.
      const period = (config.leaseSeconds - config.heartbeatSeconds) * 1000;
      const regular = (ms) => ms > period - 500 && ms <= period + 250 * (1 + 0.2 * 0.5) + 100;
      assert.ok(regular(asked.at(-1)), `scheduled ${asked.at(-1)} ms ahead`);
      client.wakeAll(); // heartbeat now rather than in a few seconds
      await until('the heartbeat is refused', () => limited === 1 && asked.at(-1) !== 0, 10_000);
      assert.equal(errors.at(-1)?.code, 'rate_limited');
      // The backoff alone would be 500 ms × 0.75; the server said 7 s.
      assert.equal(asked.at(-1), 7000, `the retry was scheduled ${asked.at(-1)} ms ahead`);
      limit = false;
      client.wakeAll();
      await until('a heartbeat is accepted again', () => regular(asked.at(-1)), 10_000);
      assert.equal(room.status, 'joined');
    });
  });
});
