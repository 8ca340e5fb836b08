// The `offline` status: a room says it when the platform reports the
// network gone (the browser's offline event, React Native's NetInfo) or when
// its lease requests go unanswered, keeps trying, and comes back by its own
// accounting of the lease: a heartbeat (same generation) while the lease may
// be live, a join (new generation) once it has run out. The mappings from
// platform events to client calls are checked on their own, then end to end
// against the emulators and the dev server, with a network the test cuts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { disableNetwork, doc, enableNetwork, getFirestore, onSnapshot } from 'firebase/firestore';
import { createRoomleaseClient as createNodeClient } from '@roomlease/client/node';
import { createRoomleaseClient as createNativeClient, followNetInfo } from '@roomlease/client/react-native';
import { followPageLifecycle } from '../src/browser/page-lifecycle.js';
import { optionalNetInfo } from '../src/netinfo.js';
import { SLACK_MS, SWEEP_MS, loadConfig, namesOf, newUser, recordingFetch, roomName, until } from './helpers.mjs';

/** NetInfo as @react-native-community/netinfo shapes it: addEventListener returns the unsubscribe. */
function fakeNetInfo() {
  const subs = new Set();
  return {
    addEventListener(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
    report(state) {
      for (const fn of [...subs]) fn(state);
    },
    get subscribers() {
      return subs.size;
    },
  };
}

const fakeAppState = () => ({ currentState: 'active', addEventListener: () => ({ remove() {} }) });

const recorder = () => {
  const calls = [];
  return { calls, goOffline: () => calls.push('offline'), wakeAll: () => calls.push('wake'), goAway: () => calls.push('away'), resumeAll: () => calls.push('resume') };
};

describe('platform signals to client calls', () => {
  const connected = { isConnected: true, isInternetReachable: true };
  const table = [
    ['the state reported on subscribing, connected, changes nothing', [connected], []],
    ['no connection: offline; connected again: a lease check', [connected, { isConnected: false, isInternetReachable: false }, connected], ['offline', 'wake']],
    ['a network without internet is offline', [connected, { isConnected: true, isInternetReachable: false }, connected], ['offline', 'wake']],
    ['reachability not known yet (null) changes nothing', [{ isConnected: true, isInternetReachable: null }, { isConnected: true, isInternetReachable: null }], []],
    ['offline on subscribing, then back', [{ isConnected: false, isInternetReachable: null }, { isConnected: true, isInternetReachable: null }], ['offline', 'wake']],
    ['repeated reports are one change each way', [{ isConnected: false }, { isConnected: false }, connected, connected], ['offline', 'wake']],
  ];
  for (const [name, states, want] of table) {
    test(`NetInfo: ${name}`, () => {
      const netInfo = fakeNetInfo();
      const client = recorder();
      const stop = followNetInfo(client, netInfo);
      for (const s of states) netInfo.report(s);
      stop();
      assert.deepEqual(client.calls, want);
      assert.equal(netInfo.subscribers, 0, 'stopping unsubscribes');
    });
  }

  test('NetInfo is found when installed, in either module shape, and its absence is no error', () => {
    const netInfo = fakeNetInfo();
    assert.equal(optionalNetInfo(() => ({ default: netInfo })), netInfo, 'an ES module interop object');
    assert.equal(optionalNetInfo(() => netInfo), netInfo, 'a CommonJS export');
    assert.equal(optionalNetInfo(() => {
      throw new Error("Cannot find module '@react-native-community/netinfo'");
    }), null, 'not installed');
    assert.equal(optionalNetInfo(() => ({ default: {} })), null, 'not NetInfo');
    assert.equal(optionalNetInfo(), null, 'Node has no require in an ES module: nothing found');
  });

  test('the React Native adapter follows the NetInfo it is given, works without one, and close() stops following', () => {
    const netInfo = fakeNetInfo();
    const base = { apiUrl: 'http://api.test', auth: { currentUser: null }, app: { options: {} }, appState: fakeAppState() };
    const withNetInfo = createNativeClient({ ...base, netInfo });
    assert.equal(netInfo.subscribers, 1);
    withNetInfo.close();
    assert.equal(netInfo.subscribers, 0);
    createNativeClient({ ...base }).close(); // not installed here: no NetInfo, no error
    createNativeClient({ ...base, netInfo: null }).close();
    assert.throws(() => createNativeClient({ ...base, netInfo: {} }), TypeError);
  });

  test('the browser: offline says offline, online checks the leases, and stopping removes both', () => {
    const win = new EventTarget();
    const doc = new EventTarget();
    const client = recorder();
    const stop = followPageLifecycle(client, win, doc);
    win.dispatchEvent(new Event('offline'));
    win.dispatchEvent(new Event('online'));
    stop();
    win.dispatchEvent(new Event('offline'));
    assert.deepEqual(client.calls, ['offline', 'wake']);
  });
});

describe('offline and back (emulators)', () => {
  let config;
  const cleanups = [];
  before(async () => {
    config = await loadConfig();
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  /** A network the test can cut: while down, every request fails at once, as fetch does with no network. */
  function cuttableNetwork() {
    const net = { up: true };
    net.fetch = (url, init) => (net.up ? fetch(url, init) : Promise.reject(new TypeError('fetch failed')));
    return net;
  }

  async function observer(room) {
    const user = await newUser(config);
    const client = createNodeClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    const a = await client.join(room, { displayName: 'Ada' });
    const rosters = [];
    a.on('roster', () => rosters.push(namesOf(a)));
    return { a, rosters };
  }

  /** Grace's client on a cuttable network; `make` builds it from the options (an adapter). */
  async function grace(make, extra = {}) {
    const user = await newUser(config);
    const net = cuttableNetwork();
    const rec = recordingFetch(net.fetch);
    const client = make({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, fetch: rec.fetch, random: () => 0.5, ...extra });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { client, net, rec, user };
  }

  /** Records a room's status events and its errors. */
  function watch(room) {
    const statuses = [];
    const errors = [];
    room.on('status', ({ status, reason }) => statuses.push({ status, reason, errors: errors.length }));
    room.on('error', ({ error, during }) => errors.push({ code: error.code, during, status: room.status }));
    return { statuses, errors };
  }

  test('the browser goes offline and back within the lease: offline at once, then a heartbeat of the same lease', async () => {
    const room = roomName('offline-within');
    const { a, rosters } = await observer(room);
    const win = new EventTarget();
    const doc = new EventTarget();
    const g = await grace((options) => {
      const client = createNodeClient(options);
      client._addCloser(followPageLifecycle(client, win, doc)); // what the browser adapter does
      return client;
    });
    const r = await g.client.join(room, { displayName: 'Grace' });
    const seen = watch(r);
    const generation = r.generation;

    g.net.up = false;
    win.dispatchEvent(new Event('offline'));
    assert.equal(r.status, 'offline', 'the browser said so: no request had to fail first');
    assert.deepEqual(seen.statuses, [{ status: 'offline', reason: 'platform', errors: 0 }]);
    // It keeps trying meanwhile (and those tries fail, the network is down).
    await until('a heartbeat was tried while offline', () => seen.errors.length > 0, config.heartbeatSeconds * 1000 + SLACK_MS);
    assert.deepEqual(seen.errors[0], { code: 'network', during: 'heartbeat', status: 'offline' });
    assert.ok(r.leaseExpiresAt.getTime() > g.client.serverNow().getTime(), 'too slow: the lease ran out before the test brought the network back');

    const mark = g.rec.calls.length;
    g.net.up = true;
    win.dispatchEvent(new Event('online'));
    await until('Grace is joined again', () => r.status === 'joined', SLACK_MS);
    assert.deepEqual(seen.statuses.map(({ status, reason }) => [status, reason]), [['offline', 'platform'], ['joined', 'online']]);
    assert.equal(r.generation, generation, 'the same lease: a heartbeat, no join');
    const back = g.rec.calls.slice(mark);
    assert.deepEqual([back[0].action, back[0].status], ['heartbeat', 200], `calls after the network came back: ${JSON.stringify(back)}`);
    assert.equal(g.rec.of('join').length, 1, 'joined once');
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
    const first = rosters.findIndex((names) => names.includes('Grace'));
    assert.ok(rosters.slice(first).every((names) => names.includes('Grace')), `Ada saw Grace go: ${JSON.stringify(rosters)}`);
  });

  test('NetInfo goes offline beyond the lease: back, the client joins at once with a new generation', async () => {
    const room = roomName('offline-beyond');
    const { a } = await observer(room);
    const netInfo = fakeNetInfo();
    const g = await grace((options) => createNativeClient({ ...options, appState: fakeAppState(), netInfo }));
    netInfo.report({ isConnected: true, isInternetReachable: true });
    const r = await g.client.join(room, { displayName: 'Grace' });
    const seen = watch(r);
    const generation = r.generation;
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);

    g.net.up = false;
    netInfo.report({ isConnected: false, isInternetReachable: false });
    assert.equal(r.status, 'offline');
    await until('the sweeper removes Grace', () => !namesOf(a).includes('Grace'), config.leaseSeconds * 1000 + SWEEP_MS + SLACK_MS);
    assert.ok(r.leaseExpiresAt.getTime() <= g.client.serverNow().getTime(), 'by the client\'s own clock too, the lease is over');

    const mark = g.rec.calls.length;
    g.net.up = true;
    netInfo.report({ isConnected: true, isInternetReachable: true });
    await until('Grace is joined again', () => r.status === 'joined', SLACK_MS);
    assert.ok(r.generation > generation, `generation ${r.generation} after ${generation}: a new lease`);
    assert.deepEqual(seen.statuses.map(({ status, reason }) => [status, reason]), [['offline', 'platform'], ['joined', 'rejoin']]);
    const back = g.rec.calls.slice(mark);
    assert.deepEqual([back[0].action, back[0].status], ['join', 200], `the first call back is the join, no heartbeat that could only earn a 409: ${JSON.stringify(back)}`);
    assert.ok(!g.rec.calls.some((c) => c.status === 409), 'no 409 was needed');
    await until('Ada sees Grace again', () => namesOf(a).includes('Grace'), 10_000);
  });

  test('without a platform signal, offlineAfterFailures unanswered requests in a row make a room offline; an answer ends it', async () => {
    const room = roomName('offline-failures');
    const { a } = await observer(room);
    const g = await grace(createNodeClient, { offlineAfterFailures: 2 });
    const r = await g.client.join(room, { displayName: 'Grace' });
    const seen = watch(r);

    g.net.up = false;
    await until('Grace is offline', () => r.status === 'offline', config.leaseSeconds * 1000 + SLACK_MS);
    // The first failure (the lease still had two thirds left) did not do it; the second did.
    assert.deepEqual(seen.errors.map((e) => [e.code, e.status]), [['network', 'joined'], ['network', 'joined']]);
    assert.deepEqual(seen.statuses, [{ status: 'offline', reason: 'network', errors: 2 }]);

    g.net.up = true;
    await until('the next try is answered and Grace is joined', () => r.status === 'joined', config.heartbeatSeconds * 1000 + SLACK_MS);
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
  });

  // The SDK, offline, raises a listener's first snapshot from its cache,
  // and then, back online, says nothing when the server only confirms it:
  // no document changed. A room's listeners wait for the server's word on
  // the summary (no summary: the roster's listeners start), so they must
  // hear that confirmation, or a join made while Firestore's stream was
  // down (a blip, a broken stream in backoff) never shows a roster.
  test('listeners started while Firestore is offline show the roster once it is back', async () => {
    const room = roomName('offline-firestore');
    const { a } = await observer(room);
    const g = await grace(createNodeClient);
    const firestore = getFirestore(g.user.app, config.database);
    await disableNetwork(firestore);
    const r = await g.client.join(room, { displayName: 'Grace' }); // the API is up; Firestore is not
    // The summary's first snapshot, from the cache: Grace's listener is
    // told it with this one, which listens to the same document after it.
    const first = await new Promise((resolve, reject) => {
      const stop = onSnapshot(doc(firestore, 'rooms', room, 'summary', 'current'), (snap) => {
        stop();
        resolve(snap);
      }, reject);
    });
    assert.equal(first.metadata.fromCache, true, 'the first snapshot came from the server: nothing was forced');
    assert.deepEqual(namesOf(r), [], 'a roster before Firestore is back');
    await enableNetwork(firestore);
    await until('Grace sees Ada and herself', () => namesOf(r).join() === 'Ada,Grace', 10_000);
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
  });
});
