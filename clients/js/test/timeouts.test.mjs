// Clients that cannot hang: every request of @roomlease/client has a
// deadline (requestTimeoutMs; a heartbeat's is at most half the lease it has
// left). A server that takes a request and never answers costs the caller
// that deadline and no more, and the heartbeat loop carries on. The silent
// server here is a real local HTTP server that accepts and never answers;
// the heartbeat tests join the real dev server and send only the requests
// under test to the silent one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient } from '@roomlease/client/node';
import { RoomleaseApi, RoomleaseError } from '../src/api.js';
import { SLACK_MS, holdableTimers, loadConfig, namesOf, newUser, recordingFetch, roomName, silentServer, until } from './helpers.mjs';

const never = () => new Promise(() => {});
const fakeAuth = (getIdToken = async () => 'id-token') => ({ currentUser: { getIdToken } });

/** p's outcome (an error is returned, not thrown), or a test failure if it is still pending after ms. */
async function within(ms, p, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p.then((v) => v, (err) => err), limit]);
  } finally {
    clearTimeout(timer);
  }
}

const isTimeout = (err) => err instanceof RoomleaseError && err.status === 0 && err.code === 'timeout';

describe('a request that gets no answer', () => {
  test('fails with code timeout at its deadline', async () => {
    const silent = await silentServer();
    try {
      const api = new RoomleaseApi({ apiUrl: silent.url, auth: fakeAuth(), fetch, now: Date.now, timeoutMs: 300 });
      const started = Date.now();
      const err = await within(300 + SLACK_MS, api.call('POST', '/v1/rooms/r/heartbeat', { sessionId: 's', generation: 1 }), 'a heartbeat to a silent server');
      const took = Date.now() - started;
      assert.ok(isTimeout(err), `${err}`);
      assert.ok(took >= 290, `it failed after ${took} ms, before its deadline: not a timeout`);
      assert.deepEqual(silent.requests.map((r) => `${r.method} ${r.path}`), ['POST /v1/rooms/r/heartbeat'], 'the request reached the server');
    } finally {
      await silent.close();
    }
  });

  test('is aborted at the deadline: fetch gets the signal, and it fires', async () => {
    let signal = null;
    const fetchFn = (url, init) => {
      signal = init.signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const api = new RoomleaseApi({ apiUrl: 'http://api.test', auth: fakeAuth(), fetch: fetchFn, now: Date.now, timeoutMs: 100 });
    const err = await within(100 + SLACK_MS, api.call('GET', '/v1/rooms/r'), 'a call whose fetch waits for its abort');
    assert.ok(isTimeout(err), `${err}`);
    assert.ok(signal && signal.aborted, 'the request was aborted, not just abandoned');
  });

  test('the deadline covers the tokens too, and a fetch that ignores the abort', async () => {
    const cases = [
      ['an ID token that never comes', { auth: fakeAuth(never), fetch: () => assert.fail('nothing is sent without a token') }],
      ['an App Check token that never comes', { auth: fakeAuth(), appCheckToken: never, fetch: () => assert.fail('nothing is sent without the App Check token') }],
      ['a fetch that ignores AbortSignal', { auth: fakeAuth(), fetch: never }],
    ];
    for (const [what, deps] of cases) {
      const api = new RoomleaseApi({ apiUrl: 'http://api.test', now: Date.now, timeoutMs: 200, ...deps });
      const err = await within(200 + SLACK_MS, api.call('GET', '/v1/rooms/r'), what);
      assert.ok(isTimeout(err), `${what}: ${err}`);
    }
  });

  test('the deadline runs on the client\'s timers (a browser\'s worker ticker, a test\'s fake ones)', async () => {
    const set = [];
    const timers = { set: (fn, ms, kind) => set.push({ fn, ms, kind }), clear() {} };
    const api = new RoomleaseApi({ apiUrl: 'http://api.test', auth: fakeAuth(), fetch: never, now: Date.now, timers, timeoutMs: 10_000 });
    let outcome = null;
    api.call('GET', '/v1/rooms/r').catch((err) => {
      outcome = err;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(set.map(({ ms, kind }) => [ms, kind]), [[10_000, 'deadline']]);
    assert.equal(outcome, null, 'pending until the timer fires');
    set[0].fn(); // the timer comes due
    await until('the call rejects', () => outcome !== null, 1000);
    assert.ok(isTimeout(outcome), `${outcome}`);
  });
});

describe('a silent server against the dev server\'s lease loop', () => {
  let config;
  let silent;
  const cleanups = [];
  before(async () => {
    config = await loadConfig();
    silent = await silentServer();
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
    await silent.close();
  });

  /**
   * A client whose requests go to the dev server, except those `hang`
   * picks (by action: config, join, heartbeat…), which go to the silent
   * server. hang returns true to send that one there.
   */
  async function clientFor(hang, options = {}) {
    const user = await newUser(config);
    const rec = recordingFetch((url, init) => {
      const u = new URL(url);
      const action = u.pathname === '/v1/config' ? 'config' : u.pathname.split('/')[4];
      return fetch(hang(action) ? silent.url + u.pathname : url, init);
    });
    const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, fetch: rec.fetch, ...options });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { user, client, rec };
  }

  test('GET /v1/config or a join that never answers fails join() at the deadline; the next join() succeeds', async () => {
    const timeout = 2000;
    const hung = new Set(['config', 'join']); // each hangs once
    const grace = await clientFor((action) => hung.delete(action), { requestTimeoutMs: timeout });
    const room = roomName('hang-join');
    const before = silent.requests.length;

    const started = Date.now();
    const first = await within(timeout + SLACK_MS, grace.client.join(room, { displayName: 'Grace' }), 'join() with a silent config');
    assert.ok(isTimeout(first), `${first}`);
    assert.ok(Date.now() - started >= timeout - 10, 'it waited for the deadline');
    assert.equal(grace.client.database, null, 'no database opened');

    const second = await within(timeout + SLACK_MS, grace.client.join(room, { displayName: 'Grace' }), 'join() with a silent join');
    assert.ok(isTimeout(second), `${second}`);
    assert.deepEqual(silent.requests.slice(before).map((r) => r.path), ['/v1/config', `/v1/rooms/${room}/join`]);
    assert.equal(grace.client.rooms.get(room), undefined, 'the failed room was closed');

    const g = await grace.client.join(room, { displayName: 'Grace' });
    assert.equal(g.status, 'joined');
    const snap = await g.refresh();
    assert.deepEqual(snap.participants.map((p) => p.displayName), ['Grace']);
  });

  test('a heartbeat that never answers costs its deadline; the next one renews the same lease', async () => {
    const room = roomName('hang-beat');
    const ada = await clientFor(() => false);
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const adaRosters = [];
    a.on('roster', () => adaRosters.push(namesOf(a)));
    let hangNext = false;
    const timers = holdableTimers(); // not held: only to read the deadlines the client set
    const grace = await clientFor((action) => {
      if (action !== 'heartbeat' || !hangNext) return false;
      hangNext = false;
      return true;
    }, { timers, random: () => 0.5 });
    const errors = [];
    const statuses = [];
    const g = await grace.client.join(room, { displayName: 'Grace' });
    g.on('error', ({ error, during }) => errors.push({ error, during, at: Date.now() }));
    g.on('status', ({ status }) => statuses.push(status));
    const generation = g.generation;

    // Heartbeat now, with the whole lease ahead, into the silent server.
    hangNext = true;
    const silentBefore = silent.requests.length;
    const callsBefore = grace.rec.calls.length;
    const wokeAt = Date.now(); // the call's deadline starts after this
    grace.client.wakeAll();
    await until('the heartbeat reached the silent server', () => silent.requests.length > silentBefore, 10_000);
    const deadline = timers.deadlines.at(-1);
    // The default requestTimeoutMs is 10 s, longer than this lease: the
    // heartbeat waits half the lease it has left, so its retry still fits.
    assert.ok(deadline >= 1000 && deadline <= (config.leaseSeconds * 1000) / 2, `the heartbeat's deadline was ${deadline} ms for a ${config.leaseSeconds} s lease`);

    await until('the heartbeat fails', () => errors.length > 0, deadline + SLACK_MS);
    const [{ error, during, at }] = errors;
    assert.equal(during, 'heartbeat');
    assert.ok(isTimeout(error), `${error}`);
    console.log(`a silent heartbeat failed ${at - wokeAt} ms after the wake (deadline ${deadline} ms)`);
    assert.ok(at - wokeAt >= deadline - 10, `it failed ${at - wokeAt} ms after the wake, before its ${deadline} ms deadline`);

    // The loop was not held up: the next heartbeat goes to the dev server
    // and renews the same lease (a lapsed one would have been answered 409
    // and joined again, with a new generation).
    await until('a later heartbeat is answered 200', () => grace.rec.calls.slice(callsBefore).some((c) => c.action === 'heartbeat' && c.status === 200), SLACK_MS);
    assert.equal(g.generation, generation, 'the same lease: no rejoin');
    assert.equal(g.status, 'joined');
    assert.deepEqual(statuses, [], 'one unanswered heartbeat inside the lease is not offline');
    assert.equal(grace.rec.of('join').length, 1, 'joined once');
    assert.ok(!grace.rec.calls.some((c) => c.status === 409), 'never told the lease was gone');
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
    const seen = adaRosters.findIndex((names) => names.includes('Grace'));
    assert.ok(adaRosters.slice(seen).every((names) => names.includes('Grace')), `Ada saw Grace go: ${JSON.stringify(adaRosters)}`);
  });
});
