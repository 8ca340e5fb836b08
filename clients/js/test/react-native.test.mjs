// The React Native adapter without a device: a fake AppState (the same
// addEventListener('change') contract as React Native's) and an in-memory
// async storage in place of AsyncStorage. The mapping from AppState to the
// client is checked on its own, then end to end against the emulators.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient, followAppState, storedSessionIds } from '@roomlease/client/react-native';
import { createRoomleaseClient as createNodeClient } from '@roomlease/client/node';
import { SLACK_MS, SWEEP_MS, loadConfig, namesOf, newUser, recordingFetch, roomName, until } from './helpers.mjs';

function fakeAppState(initial = 'active') {
  const subs = new Set();
  return {
    currentState: initial,
    addEventListener(type, fn) {
      assert.equal(type, 'change');
      subs.add(fn);
      return { remove: () => subs.delete(fn) };
    },
    change(state) {
      this.currentState = state;
      for (const fn of [...subs]) fn(state);
    },
    get subscribers() {
      return subs.size;
    },
  };
}

function asyncStorage() {
  const map = new Map();
  return {
    map,
    getItem: async (k) => (map.has(k) ? map.get(k) : null),
    setItem: async (k, v) => {
      map.set(k, v);
    },
  };
}

describe('React Native adapter: AppState to client calls', () => {
  const recorder = () => {
    const calls = [];
    return {
      calls,
      pauseAll: () => calls.push('pause'),
      resumeAll: () => calls.push('resume'),
      wakeAll: () => calls.push('wake'),
      goAway: () => calls.push('away'),
      setAwayAll: (away) => calls.push(away ? 'set-away' : 'set-present'),
    };
  };
  // Every policy says away in the background (kept, the heartbeat carries
  // it and the longer lease holds; paused or left, there is none to carry it).
  const table = [
    ['keep: background says away, coming back says present and checks the lease', 'keep', ['background', 'active'], ['set-away', 'set-present', 'wake']],
    ['pause: background pauses, coming back resumes', 'pause', ['background', 'active'], ['set-away', 'pause', 'set-present', 'resume']],
    ['leave: background leaves, coming back joins again', 'leave', ['background', 'active'], ['set-away', 'away', 'set-present', 'resume']],
    ['inactive (iOS app switcher) is transient and ignored', 'leave', ['inactive', 'active'], []],
    ['iOS passing through inactive on the way out and back in', 'pause', ['inactive', 'background', 'inactive', 'active'], ['set-away', 'pause', 'set-present', 'resume']],
    ['a repeated background is one transition', 'leave', ['background', 'background', 'active', 'active'], ['set-away', 'away', 'set-present', 'resume']],
  ];
  for (const [name, policy, states, want] of table) {
    test(name, () => {
      const app = fakeAppState();
      const client = recorder();
      const stop = followAppState(client, app, policy);
      for (const s of states) app.change(s);
      stop();
      assert.deepEqual(client.calls, want);
      assert.equal(app.subscribers, 0, 'stopping removes the AppState subscription');
    });
  }

  test('the session id is kept in the injected storage across launches', async () => {
    const storage = asyncStorage();
    const first = storedSessionIds(storage);
    await first.ready();
    assert.equal(storage.map.get('roomlease.sessionId'), first.id);
    const relaunch = storedSessionIds(storage);
    await relaunch.ready();
    assert.equal(relaunch.id, first.id);
    storage.map.set('roomlease.sessionId', '__bad__');
    const repaired = storedSessionIds(storage);
    await repaired.ready();
    assert.notEqual(repaired.id, '__bad__');
    assert.equal(storage.map.get('roomlease.sessionId'), repaired.id);
  });
});

describe('React Native adapter end to end (emulators)', () => {
  let config;
  const cleanups = [];
  before(async () => {
    config = await loadConfig();
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  async function observer(room) {
    const user = await newUser(config);
    const client = createNodeClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return client.join(room, { displayName: 'Ada' });
  }

  async function phone(background, storage) {
    const user = await newUser(config);
    const appState = fakeAppState();
    const rec = recordingFetch();
    const client = createRoomleaseClient({
      apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, fetch: rec.fetch, appState, storage, background,
    });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { client, appState, rec, user };
  }

  test("background: 'leave' removes the user at once; active joins again with the stored session id", async () => {
    const room = roomName('rn-leave');
    const a = await observer(room);
    const storage = asyncStorage();
    const p = await phone('leave', storage);
    const g = await p.client.join(room, { displayName: 'Grace' });
    assert.equal(g.sessionId, storage.map.get('roomlease.sessionId'), 'the join used the stored id');
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
    const first = g.generation;

    p.appState.change('background');
    assert.equal(g.status, 'away');
    // Before her lease could have ended by itself: the leave did it.
    await until('Ada sees Grace leave', () => !namesOf(a).includes('Grace'), (config.leaseSeconds - config.heartbeatSeconds) * 1000);
    assert.ok(p.rec.of('leave').length === 1, 'one leave was sent');

    p.appState.change('active');
    await until('Grace is back with a new generation', () => g.status === 'joined' && g.generation > first, 10_000);
    assert.equal(g.sessionId, storage.map.get('roomlease.sessionId'));
    await until('Ada sees Grace again', () => namesOf(a).includes('Grace'), 10_000);
  });

  test("background: 'pause' lets the lease run out; active heartbeats, gets 409 and rejoins", async () => {
    const room = roomName('rn-pause');
    const a = await observer(room);
    const p = await phone('pause');
    const g = await p.client.join(room, { displayName: 'Grace' });
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
    const first = g.generation;

    p.appState.change('background');
    await until('the sweeper removes Grace', () => !namesOf(a).includes('Grace'), config.leaseSeconds * 1000 + SWEEP_MS + SLACK_MS);
    const beats = p.rec.of('heartbeat').length;
    p.appState.change('active');
    await until('Grace rejoined', () => g.status === 'joined' && g.generation > first, 10_000);
    assert.equal(p.rec.of('heartbeat')[beats]?.status, 409, 'coming back starts with a heartbeat, answered 409');
    await until('Ada sees Grace again', () => namesOf(a).includes('Grace'), 10_000);
  });
});
