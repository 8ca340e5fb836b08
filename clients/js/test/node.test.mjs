// @roomlease/client in Node against the emulators and roomlease-dev (see
// helpers.mjs): the lease loop and the listeners, end to end. Every test
// asserts an outcome the server or another user observes, not just what
// the client believes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient } from '@roomlease/client/node';
import { RoomleaseError, newerRevision } from '@roomlease/client';
import { SLACK_MS, SWEEP_MS, holdableTimers, loadConfig, namesOf, newUser, recordingFetch, roomName, until } from './helpers.mjs';
import { ownerDocument, roomDocExists } from '../../../tests/lib/room-doc.mjs';

// Revisions are ordered, not counted: a jump is normal (the server may
// stop counting by one), and a lower revision arriving late (from the other
// channel: a listener behind an API answer) must not move the client back.
test('the revision kept is the highest seen, whatever the step', () => {
  assert.equal(newerRevision(null, 3), 3);
  assert.equal(newerRevision(3, 17), 17, 'a jump of many is accepted as it is');
  assert.equal(newerRevision(17, 4), 17, 'a late, lower revision is ignored');
  assert.equal(newerRevision(17, null), 17);
});

describe('@roomlease/client in Node', () => {
  let config;
  const cleanups = [];

  /** A user with a client; options override the client's (fetch, timers, now, random). */
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

  before(async () => {
    config = await loadConfig();
  });

  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  test('two users join and each roster listener shows both; revisions only increase', async () => {
    const room = roomName('node-join');
    const ada = await clientFor('Ada');
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const revisions = [];
    a.on('revision', ({ revision }) => revisions.push(revision));
    assert.equal(a.status, 'joined');
    assert.ok(Number.isSafeInteger(a.generation) && a.generation > 0, `generation ${a.generation}`);
    const g = await grace.client.join(room, { displayName: 'Grace' });
    for (const [who, r] of [['Ada', a], ['Grace', g]]) {
      await until(`${who} sees Ada and Grace`, () => namesOf(r).join() === 'Ada,Grace', 10_000);
    }
    assert.deepEqual(a.participants.filter((p) => p.isSelf).map((p) => p.participantId), [ada.user.uid]);
    await until('Ada saw a revision after Grace joined', () => revisions.length > 0, 5_000);
    for (let i = 1; i < revisions.length; i++) assert.ok(revisions[i] > revisions[i - 1], `revisions ${revisions}`);
    // The listener's revision and the API's consistent read agree on order.
    const seen = a.revision;
    const snap = await a.refresh();
    assert.ok(Number.isSafeInteger(snap.revision), `GET revision ${snap.revision}`);
    assert.equal(a.revision, Math.max(seen, snap.revision), 'the client keeps the highest revision seen');
    assert.deepEqual(snap.participants.map((p) => p.displayName).sort(), ['Ada', 'Grace']);
  });

  test('heartbeats come at renewAt, a margin after it, with the lease token', async () => {
    // The server's renewAt is one interval before the lease end (the
    // default ROOMLEASE_RENEW_WHEN_LEFT), so a beat is asked for about
    // lease − interval after an answer, plus the margin (250 ms) and its
    // jitter (random() = 0.5 × 0.2 of it), less the time the answer took.
    const timers = holdableTimers();
    const { asked } = timers;
    const ada = await clientFor('Ada', { random: () => 0.5, heartbeatJitter: 0.2, timers });
    const room = await ada.client.join(roomName('node-beat'), { displayName: 'Ada' });
    assert.ok(room.renewAt instanceof Date, 'the join answered renewAt');
    assert.equal(room.leaseExpiresAt - room.renewAt, config.heartbeatSeconds * 1000);
    const beats = () => ada.rec.of('heartbeat').filter((c) => c.status === 200);
    const period = (config.leaseSeconds - config.heartbeatSeconds) * 1000;
    await until('five heartbeats', () => beats().length >= 5, 5 * (period + 300) + SLACK_MS);
    const expected = period + 275;
    assert.ok(asked.length >= 5, `timers asked: ${asked}`);
    for (const ms of asked.slice(0, 5)) {
      assert.ok(ms <= expected + 100 && ms > expected - 500, `the client scheduled a beat ${ms} ms ahead; want about ${expected}`);
    }
    for (const c of beats()) assert.ok(c.body?.leaseToken, 'a heartbeat without the lease token');
    const at = beats().slice(0, 5).map((c) => c.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    console.log(`heartbeat gaps ${gaps.join(', ')} ms (scheduled about ${expected})`);
    for (const gap of gaps) {
      assert.ok(gap >= period - 30, `a heartbeat came after ${gap} ms, before renewAt (${period} ms)`);
      // What matters on a loaded machine: the next beat lands inside the lease.
      assert.ok(gap < config.leaseSeconds * 1000, `a heartbeat came after ${gap} ms: the lease was at risk`);
    }
  });

  test('a lease that ran out gets 409 on the next heartbeat and the client rejoins with a new generation', async () => {
    const room = roomName('node-409');
    const ada = await clientFor('Ada');
    const timers = holdableTimers();
    const grace = await clientFor('Grace', { timers });
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
    const firstGeneration = g.generation;
    const statuses = [];
    g.on('status', ({ status }) => statuses.push(status));

    // Grace's device sleeps: her timers stop firing, so her lease runs out
    // and the sweeper removes her while her client still thinks it is joined.
    timers.hold();
    await until('the sweeper removes Grace from Ada\'s roster', () => !namesOf(a).includes('Grace'),
      (config.leaseSeconds * 1000) + SWEEP_MS + SLACK_MS);
    assert.equal(g.status, 'joined', 'while asleep the client had no way to notice');

    // It wakes: the overdue heartbeat runs, gets 409, and the client joins again.
    timers.release();
    await until('Grace is joined with a new generation', () => g.status === 'joined' && g.generation !== firstGeneration, 10_000);
    assert.ok(g.generation > firstGeneration, `generation ${g.generation} after ${firstGeneration}`);
    assert.ok(grace.rec.of('heartbeat').some((c) => c.status === 409), 'the rejoin must follow a 409');
    assert.deepEqual(statuses.slice(0, 2), ['rejoining', 'joined']);
    await until('Ada sees Grace again', () => namesOf(a).includes('Grace'), 10_000);
    // The new lease is live: heartbeats with the new generation succeed.
    const after409 = grace.rec.of('heartbeat').length;
    await until('a heartbeat of the new generation succeeds',
      () => grace.rec.of('heartbeat').slice(after409).some((c) => c.status === 200), 5_000);
  });

  test('a listener cut off while the lease holds is started again by the next heartbeat', async () => {
    const room = roomName('node-relisten');
    const ada = await clientFor('Ada');
    // Not held: only to see the delays the client asks for.
    const timers = holdableTimers();
    const grace = await clientFor('Grace', { timers });
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Grace sees Ada', () => namesOf(g).join() === 'Ada,Grace', 10_000);
    const generation = g.generation;

    // Grace's roster entry goes for a moment (only the server can do that;
    // her session, a subcollection, stays). Her roster listener is refused,
    // and her client asks for an early heartbeat (a delay of 0).
    const entry = ownerDocument(config, `rooms/${room}/participants/${grace.user.uid}`);
    const { fields } = await entry.get();
    const asked = timers.asked.length;
    await entry.delete();
    await until('Ada sees Grace gone', () => namesOf(a).join() === 'Ada', 10_000);
    await until('Grace\'s client asks for an early heartbeat', () => timers.asked.slice(asked).includes(0), 10_000);
    await entry.put(fields);

    // Her lease never ended, so her heartbeats succeed and no rejoin
    // restarts the listeners: only the heartbeat path can. Without it her
    // roster would stay as it was, whoever joins.
    const carol = await clientFor('Carol');
    await carol.client.join(room, { displayName: 'Carol' });
    await until('Grace sees Carol', () => namesOf(g).join() === 'Ada,Carol,Grace', 10_000);
    assert.equal(g.status, 'joined');
    assert.equal(g.generation, generation, 'no rejoin: the same lease throughout');
    assert.ok(!grace.rec.of('heartbeat').some((c) => c.status !== null && c.status !== 200), 'every heartbeat succeeded');
    assert.equal(grace.rec.of('join').length, 1, 'joined once');
  });

  test('background to foreground after the lease ended: resume heartbeats, gets 409, rejoins', async () => {
    const room = roomName('node-bg');
    const ada = await clientFor('Ada');
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('Ada sees Grace', () => namesOf(a).includes('Grace'), 10_000);
    const firstGeneration = g.generation;

    grace.client.pauseAll(); // what the React Native adapter does on 'background' with background: 'pause'
    assert.equal(g.status, 'paused');
    await until('Ada no longer sees Grace', () => !namesOf(a).includes('Grace'), (config.leaseSeconds * 1000) + SWEEP_MS + SLACK_MS);
    await until('Grace\'s own listeners tell her the lease is gone', () => g.status === 'expired', 5_000);
    assert.deepEqual(g.participants, [], 'an expired client shows no roster it may no longer read');

    const beatsBefore = grace.rec.of('heartbeat').length;
    await grace.client.resumeAll();
    await until('Grace rejoined', () => g.status === 'joined' && g.generation > firstGeneration, 10_000);
    assert.equal(grace.rec.of('heartbeat')[beatsBefore]?.status, 409, 'resume heartbeats first and learns of the expiry from the server');
    await until('Ada sees Grace again', () => namesOf(a).includes('Grace'), 10_000);
  });

  test('the server clock is estimated from leaseExpiresAt, whatever the device clock says', async () => {
    const skew = 90 * 60 * 1000; // the device clock is 90 minutes fast
    const ada = await clientFor('Ada', { now: () => Date.now() + skew });
    assert.ok(Math.abs(ada.client.serverNow().getTime() - Date.now() - skew) < 1000, 'before any answer: the device clock');
    const r = await ada.client.join(roomName('node-clock'), { displayName: 'Ada' });
    // roomlease-dev and this test share the machine's real clock.
    const error = ada.client.serverNow().getTime() - Date.now();
    console.log(`server clock estimate off by ${error} ms; offset ${ada.client.clockOffsetMs} ms`);
    assert.ok(Math.abs(error) < 1000, `serverNow() is ${error} ms off the real clock`);
    assert.ok(Math.abs(ada.client.clockOffsetMs + skew) < 1000, `offset ${ada.client.clockOffsetMs}`);
    // The lease end, judged on the estimated server clock, is about a lease away.
    const left = r.leaseExpiresAt.getTime() - ada.client.serverNow().getTime();
    assert.ok(left > 0 && left <= config.leaseSeconds * 1000 + 1000, `lease ends in ${left} ms`);
  });

  test('leave removes at once; the last leave counts down from the reply, and reads nothing after', async () => {
    const room = roomName('node-leave');
    const ada = await clientFor('Ada', { emptyRoomGraceSeconds: config.emptyRoomGraceSeconds });
    const grace = await clientFor('Grace');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    await until('both see both', () => namesOf(a).length === 2 && namesOf(g).length === 2, 10_000);

    assert.deepEqual(await g.leave(), { removed: true });
    // Faster than any lease expiry could: the lease has a heartbeat's worth left at least.
    const { ms } = await until('Ada sees Grace gone', () => !namesOf(a).includes('Grace'), (config.leaseSeconds - config.heartbeatSeconds) * 1000);
    console.log(`leave reached the other listener after ${ms} ms`);
    assert.equal(g.status, 'left');
    assert.deepEqual(g.room, { exists: null, visible: false, state: null, cleanupAfter: null, estimated: false }, 'others are still there: not ours to see');

    const infos = [];
    const errors = [];
    a.on('room', (info) => infos.push(info));
    a.on('error', (e) => errors.push(e));
    const leftAt = Date.now();
    assert.deepEqual(await a.leave(), { removed: true });
    const callsAtLeave = ada.rec.calls.length;
    // Every listener was stopped with the leave (before the rules could
    // refuse it): none is left to fire permission-denied later.
    assert.deepEqual(Object.entries(a._listeners).filter(([, stop]) => stop !== null).map(([name]) => name), [], 'listeners still attached');
    assert.equal(infos.length, 1, `room infos after the last leave: ${JSON.stringify(infos)}`);
    const [info] = infos;
    // The server's cleanupAfter from the reply, not the client's estimate.
    assert.equal(info.state, 'suspected_empty');
    assert.equal(info.visible, false, 'after a leave the room is no longer watched');
    assert.equal(info.estimated, false, 'cleanupAfter comes from the leave reply');
    const due = info.cleanupAfter.getTime() - leftAt;
    assert.ok(Math.abs(due - config.emptyRoomGraceSeconds * 1000) < 1500, `countdown of ${due} ms for a grace of ${config.emptyRoomGraceSeconds} s`);

    // The server tears the room down (checked on the emulator as its owner),
    // and meanwhile the client neither asks the API nor reports a listener
    // failure: it has let go of the room.
    const { ms: tornMs } = await until('the room document is gone on the server', async () => !(await roomDocExists(config, room)),
      config.emptyRoomGraceSeconds * 1000 + SWEEP_MS + SLACK_MS, 200);
    const tornAfter = Date.now() - leftAt;
    assert.ok(tornAfter >= config.emptyRoomGraceSeconds * 1000 - 1000, `torn down ${tornAfter} ms after the leave, before the grace`);
    assert.deepEqual(ada.rec.calls.slice(callsAtLeave).map((c) => c.action), [], 'API calls after the leave');
    assert.deepEqual(errors.map((e) => e.during), [], 'errors after the leave');
    assert.equal(infos.length, 1, 'no room event after the leave reply');
    console.log(`countdown ${due} ms; torn down on the server ${tornMs} ms after the last leave (grace ${config.emptyRoomGraceSeconds} s)`);
  });

  test('the per-user caps reject join() with a 409 RoomleaseError naming the cap', async () => {
    // One user, eleven tabs (clients with their own session ids) in one room.
    const user = await newUser(config);
    cleanups.push(() => user.close());
    const tab = (i) => {
      const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, sessionId: `cap-tab-${i}` });
      cleanups.push(async () => client.close());
      return client;
    };
    const room = roomName('node-caps');
    for (let i = 0; i < 10; i++) await tab(i).join(room);
    const eleventh = tab(10);
    await assert.rejects(eleventh.join(room), (err) => {
      assert.ok(err instanceof RoomleaseError, `${err}`);
      assert.equal(err.status, 409);
      assert.equal(err.code, 'too_many_sessions');
      return true;
    });
    assert.equal(eleventh.rooms.get(room)?.isFinished ?? true, true, 'the refused room is closed, not retried');
  });
});
