// @roomlease/client's state, away, participant events and recently-left
// list, against the emulators and roomlease-dev (see helpers.mjs): each
// test checks what another user's client sees.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient } from '@roomlease/client/node';
import { holdableTimers, loadConfig, newUser, recordingFetch, roomName, until } from './helpers.mjs';

describe('@roomlease/client state, away and events', () => {
  let config;
  const cleanups = [];

  async function clientFor(name, options = {}) {
    const user = await newUser(config);
    const rec = recordingFetch();
    const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, fetch: rec.fetch, ...options });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { name, user, client, rec };
  }

  const entry = (room, uid) => room.participants.find((p) => p.participantId === uid);

  before(async () => {
    config = await loadConfig();
  });

  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  test('state joined with and set later shows on another user\'s roster; 2 KiB is refused and changes nothing', async () => {
    const room = roomName('js-state');
    const ada = await clientFor('Ada');
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada', state: { colour: 'red' } });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Grace sees Ada red', () => entry(g, ada.user.uid)?.state.colour === 'red', 10_000);
    // Each client's listener delivers on its own: wait for Ada's too.
    await until('Ada sees Grace', () => entry(a, grace.user.uid), 10_000);
    assert.deepEqual(entry(a, grace.user.uid).state, {}, 'no state is {}');
    assert.equal(entry(g, ada.user.uid).away, false);

    const res = await a.setState({ colour: 'blue' });
    assert.deepEqual(res.state, { colour: 'blue' });
    await until('Grace sees Ada blue', () => entry(g, ada.user.uid)?.state.colour === 'blue', 10_000);

    const before = (await g.refresh()).revision;
    await assert.rejects(a.setState({ colour: 'x'.repeat(2048) }), (err) => [413, 400].includes(err.status), '2 KiB of state');
    const read = await g.refresh();
    assert.equal(read.revision, before, 'a refused state moves no revision');
    assert.equal(read.participants.find((p) => p.participantId === ada.user.uid).state.colour, 'blue');
    assert.deepEqual(a.state, { colour: 'blue' }, 'the state kept for rejoins is the last accepted one');
  });

  test('a setState under a superseded generation joins again and the state lands', async () => {
    const room = roomName('js-state-stale');
    // Ada's heartbeat loop is held, so that it is setState, not a heartbeat
    // that meets the 409 first and rejoins.
    const timers = holdableTimers();
    cleanups.push(async () => timers.dispose());
    const ada = await clientFor('Ada', { timers });
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    const old = a.generation;
    timers.hold();
    // Another join of the same session id (a duplicated tab, a late retry)
    // supersedes this generation.
    await ada.client._api.call('POST', a._path('join'), { sessionId: a.sessionId });
    await a.setState({ colour: 'green' });
    assert.ok(a.generation > old, `generation ${a.generation} after ${old}: no rejoin`);
    assert.equal(a.status, 'joined');
    assert.ok(ada.rec.of('state').some((c) => c.status === 409), 'the first setState got 409');
    // Rejoined: Ada's heartbeats go on, so that her fresh lease (3 s here)
    // cannot lapse on a stalled machine before Grace's listener sees her.
    timers.release();
    await until('Grace sees Ada green', () => entry(g, ada.user.uid)?.state.colour === 'green', 10_000);
  });

  test('away shows on the other roster once, heartbeats at once, adopts the longer interval, and never drops the user', async () => {
    const room = roomName('js-away');
    const ada = await clientFor('Ada');
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Grace sees Ada', () => !!entry(g, ada.user.uid), 10_000);
    const present = a.heartbeatSeconds;
    const updates = [];
    const left = [];
    g.on('participant-updated', ({ participant }) => updates.push(participant));
    g.on('participant-left', (e) => left.push(e));
    const beats = ada.rec.of('heartbeat').length;
    const revision = (await g.refresh()).revision;

    ada.client.setAwayAll(true);
    await until('a heartbeat went at once', () => ada.rec.of('heartbeat').length > beats, 5_000);
    await until('Grace sees Ada away', () => entry(g, ada.user.uid)?.away === true, 10_000);
    await until('Ada adopted the away interval', () => a.heartbeatSeconds > present, 5_000);
    // The away reply's fresh lease is the away one: sampled with it, the
    // estimated server clock stays that of this machine's server.
    assert.ok(Math.abs(ada.client.clockOffsetMs) < 5_000, `server clock estimated ${ada.client.clockOffsetMs} ms off after going away`);
    assert.equal((await g.refresh()).revision, revision + 1, 'away is one visible change');
    ada.client.setAwayAll(true); // unchanged: nothing sent, nothing changes
    await a._beat();
    assert.equal((await g.refresh()).revision, revision + 1, 'an unchanged away changes nothing');
    assert.equal(updates.filter((p) => p.participantId === ada.user.uid && p.away).length, 1, 'one update to away');

    ada.client.setAwayAll(false);
    await until('Grace sees Ada back', () => entry(g, ada.user.uid)?.away === false, 10_000);
    await until('Ada back on the regular interval', () => a.heartbeatSeconds === present, 5_000);
    assert.deepEqual(left, [], 'Ada never dropped off');
  });

  test('events: sync, joined, updated, left with its reason; the leaver shows in recentlyLeft until back', async () => {
    const room = roomName('js-events');
    const ada = await clientFor('Ada');
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const events = [];
    for (const type of ['sync', 'participant-joined', 'participant-updated', 'participant-left']) {
      a.on(type, (e) => events.push({ type, uid: e.participant?.participantId, reason: e.reason, state: e.participant?.state }));
    }
    await until('Ada synced', () => a.participants.length === 1, 10_000);
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Ada sees Grace join', () => events.some((e) => e.type === 'participant-joined' && e.uid === grace.user.uid), 10_000);
    await g.setState({ status: 'busy' });
    await until('Ada sees Grace updated', () => events.some((e) => e.type === 'participant-updated' && e.state?.status === 'busy'), 10_000);
    await g.leave();
    await until('Ada sees Grace leave', () => events.some((e) => e.type === 'participant-left' && e.uid === grace.user.uid), 10_000);
    assert.equal(events.find((e) => e.type === 'participant-left').reason, 'left');
    await until('Grace in Ada\'s recentlyLeft with reason left',
      () => a.recentlyLeft.some((r) => r.participantId === grace.user.uid && r.reason === 'left' && r.displayName === 'Grace'), 10_000);
    assert.ok(!a.recentlyLeft.some((r) => r.participantId === ada.user.uid));

    const g2 = await grace.client.join(room, { displayName: 'Grace' });
    await until('Grace back: no longer recently left', () => !a.recentlyLeft.some((r) => r.participantId === grace.user.uid), 10_000);
    assert.equal(g2.status, 'joined');
    assert.equal(events.filter((e) => e.type === 'sync').length, 1, 'one sync for the listener\'s start');
  });

  test('a crashed participant leaves with reason expired once the lease ends, and shows in recentlyLeft so', async () => {
    const room = roomName('js-expired');
    const ada = await clientFor('Ada');
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const left = [];
    a.on('participant-left', (e) => left.push({ uid: e.participant?.participantId, reason: e.reason }));
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Ada sees Grace', () => entry(a, grace.user.uid), 10_000);
    // Grace's device dies: no heartbeat and no leave. The sweeper removes
    // her session when the lease ends, so the reason is "expired".
    g.pause();
    await until('Ada sees Grace go', () => left.some((e) => e.uid === grace.user.uid), 30_000);
    assert.deepEqual(left, [{ uid: grace.user.uid, reason: 'expired' }]);
    await until('Grace in Ada\'s recentlyLeft with reason expired',
      () => a.recentlyLeft.some((r) => r.participantId === grace.user.uid && r.reason === 'expired'), 10_000);
    assert.equal(a.status, 'joined', 'Ada herself stayed');
  });

  test('recentlyLeft keeps departures for the server\'s window, unless the app sets its own', async () => {
    const server = Number(process.env.ROOMLEASE_E2E_RECENTLY_LEFT_SECONDS);
    assert.ok(server > 0 && server !== 120, 'scripts/test-web runs the API with a window other than the default');
    const room = roomName('js-recent-window');
    const ada = await clientFor('Ada');
    await ada.client.join(room, { displayName: 'Ada' });
    assert.equal(ada.client.recentlyLeftSeconds, server);
    const own = await clientFor('Grace', { recentlyLeftSeconds: 30 });
    await own.client.join(room, { displayName: 'Grace' });
    assert.equal(own.client.recentlyLeftSeconds, 30);
  });
});
