// Changes the server held over the user's state budget
// (ROOMLEASE_STATE_RATE_LIMIT, docs/api.md "The state budget"), against the
// emulators and roomlease-dev (see helpers.mjs): a held join's state is sent
// again after retryAfterSeconds, and a held away toggle with a heartbeat
// soon after, so that another user's roster comes to show what the app
// asked for. The budget is spent just before the request that is to be
// held goes out (the fetch below), and each test checks the server's reply
// said held, so none passes without the held case having happened. It works
// with whatever budget the server has; the slower it refills, the wider the
// window (scripts/test-web's default, one change a second, leaves a second).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient } from '@roomlease/client/node';
import { holdableTimers, newUser, recordingFetch, roomName, stackSuite, until } from './helpers.mjs';

describe('@roomlease/client and changes held over the state budget', () => {
  const suite = stackSuite();
  const { cleanups } = suite;

  function clientOf(user, options = {}) {
    const rec = recordingFetch(options.fetch);
    const client = createRoomleaseClient({
      apiUrl: suite.config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, ...options, fetch: rec.fetch,
    });
    cleanups.push(() => client.close());
    return { client, rec };
  }

  async function userOf() {
    const u = await newUser(suite.config);
    cleanups.push(() => u.close());
    return u;
  }

  /** POSTs `state` for `room`'s session until the server answers 429: the user's budget is spent. */
  async function spendBudget(room, state) {
    for (let i = 0; i < 100; i++) {
      try {
        await room.client._api.call('POST', room._path('state'), { sessionId: room.sessionId, generation: room.generation, state });
      } catch (err) {
        if (err.status === 429) return;
        throw err;
      }
    }
    throw new Error('the state budget never ran out: is ROOMLEASE_STATE_RATE_LIMIT 0?');
  }

  /**
   * A fetch that, before the first request `match` picks goes out, runs
   * `before()` (spending the budget), and keeps that request's reply in
   * `reply`.
   */
  function armedFetch(match, before) {
    const armed = { reply: null };
    armed.fetch = async (url, init) => {
      const picked = !armed.reply && match(new URL(url).pathname, init?.body ? JSON.parse(init.body) : null);
      if (picked) armed.reply = 'pending';
      if (picked) await before();
      const res = await fetch(url, init);
      if (picked) armed.reply = await res.clone().json();
      return res;
    };
    return armed;
  }

  const entry = (room, uid) => room.participants.find((p) => p.participantId === uid);
  const stored = async (observer, uid) => (await observer.refresh()).participants.find((p) => p.participantId === uid);

  test('a join held over the state budget sends its state again after retryAfterSeconds, and the roster comes to show it', async () => {
    const roomId = roomName('js-held-join');
    const ada = await userOf();
    const grace = clientOf(await userOf());
    // The first tab: joined red, then reloaded (closed without leaving),
    // its session's lease still live.
    const tab1 = clientOf(ada, { sessionId: 'tab-1' });
    const r1 = await tab1.client.join(roomId, { displayName: 'Ada', state: { colour: 'red' } });
    const g = await grace.client.join(roomId, { displayName: 'Grace' });
    await until('Grace sees Ada red', () => entry(g, ada.uid)?.state.colour === 'red', 10_000);

    // The reloaded tab, same session id, joins blue: a visible change of
    // the live session, held since the budget was just spent.
    const armed = armedFetch((path) => path.endsWith('/join'), async () => {
      await spendBudget(r1, { colour: 'red' });
      tab1.client.close();
    });
    const timers = holdableTimers();
    cleanups.push(async () => timers.dispose());
    const tab2 = clientOf(ada, { sessionId: 'tab-1', fetch: armed.fetch, timers });
    timers.hold();
    const r2 = await tab2.client.join(roomId, { displayName: 'Ada', state: { colour: 'blue' } });
    assert.equal(armed.reply.held, true, `the join was not held: ${JSON.stringify(armed.reply)}`);
    const wait = armed.reply.retryAfterSeconds;
    assert.ok(wait >= 1, `retryAfterSeconds ${wait}`);
    assert.equal(r2.status, 'joined', 'a held join is joined');
    assert.deepEqual(r2.state, { colour: 'blue' }, 'the state kept is the one the app asked for');
    assert.equal((await stored(g, ada.uid)).state.colour, 'red', 'the held join kept the stored state');
    assert.ok(timers.asked.includes(wait * 1000), `no re-send after ${wait} s among ${JSON.stringify(timers.asked)}`);
    assert.equal(tab2.rec.of('state').length, 0, 'nothing is sent before retryAfterSeconds');

    timers.release();
    await until('Grace sees Ada blue', () => entry(g, ada.uid)?.state.colour === 'blue', 15_000);
    // The listener may deliver before the reply arrives.
    await until('the re-send was answered', () => tab2.rec.of('state')[0]?.status, 10_000);
    const sent = tab2.rec.of('state');
    assert.equal(sent.length, 1, 'the state went once');
    assert.equal(sent[0].status, 200);
    assert.deepEqual(sent[0].body.state, { colour: 'blue' });
    assert.equal((await stored(g, ada.uid)).state.colour, 'blue');
    timers.dispose();
  });

  test('a join held over the state budget keeps the stored away mode, and a heartbeat no later than retryAfterSeconds says present', async () => {
    const roomId = roomName('js-held-join-away');
    const ada = await userOf();
    const grace = clientOf(await userOf());
    // The first tab went away (a hidden page), then reloaded: its session
    // holds the away lease, two minutes.
    const tab1 = clientOf(ada, { sessionId: 'tab-away' });
    const r1 = await tab1.client.join(roomId, { displayName: 'Ada' });
    const g = await grace.client.join(roomId, { displayName: 'Grace' });
    tab1.client.setAwayAll(true);
    await until('Grace sees Ada away', () => entry(g, ada.uid)?.away === true, 10_000);

    // The reloaded tab is shown: it joins present, over the budget.
    const armed = armedFetch((path) => path.endsWith('/join'), async () => {
      await spendBudget(r1, {});
      tab1.client.close();
    });
    const tab2 = clientOf(ada, { sessionId: 'tab-away', fetch: armed.fetch });
    const r2 = await tab2.client.join(roomId, { displayName: 'Ada' });
    assert.equal(armed.reply.held, true, `the join was not held: ${JSON.stringify(armed.reply)}`);
    assert.equal(r2.away, false, 'the mode the app asked for is kept');
    // The held join gave the away lease and interval (50 s by default): a
    // heartbeat by that schedule would leave Ada away far beyond this wait.
    assert.ok(armed.reply.heartbeatSeconds > 15, `held join's heartbeat ${armed.reply.heartbeatSeconds} s: too short to tell`);
    await until('Grace sees Ada present', () => entry(g, ada.uid)?.away === false, 10_000);
    assert.equal((await stored(g, ada.uid)).away, false);
  });

  test('a rename held over the state budget joins again after retryAfterSeconds, and the roster comes to show the new name', async () => {
    const roomId = roomName('js-held-rename');
    const ada = await userOf();
    const grace = clientOf(await userOf());
    let a = null;
    const armed = armedFetch((path, body) => path.endsWith('/join') && body?.displayName === 'Ada Lovelace', () => spendBudget(a, {}));
    const tab = clientOf(ada, { fetch: armed.fetch });
    a = await tab.client.join(roomId, { displayName: 'Ada' });
    const g = await grace.client.join(roomId, { displayName: 'Grace' });
    await until('Grace sees Ada', () => entry(g, ada.uid)?.displayName === 'Ada', 10_000);
    assert.equal(await tab.client.join(roomId, { displayName: 'Ada Lovelace' }), a, 'the same Room, renamed');
    assert.equal(armed.reply.held, true, `the rename was not held: ${JSON.stringify(armed.reply)}`);
    assert.equal((await stored(g, ada.uid)).displayName, 'Ada', 'the held join kept the stored name');
    await until('Grace sees Ada Lovelace', () => entry(g, ada.uid)?.displayName === 'Ada Lovelace', 10_000);
    const renames = tab.rec.of('join').filter((c) => c.body?.displayName === 'Ada Lovelace');
    assert.ok(renames.length >= 2, `the rename went again: ${renames.length} joins`);
    assert.equal(a.status, 'joined');
  });

  test('an away toggle held over the state budget goes again with a heartbeat soon after, not at the away interval', async () => {
    const roomId = roomName('js-held-away');
    const ada = await userOf();
    const grace = clientOf(await userOf());
    let a = null;
    let present = Infinity;
    const armed = armedFetch((path, body) => path.endsWith('/heartbeat') && body?.away === false && a?.heartbeatSeconds > present,
      () => spendBudget(a, {}));
    const tab = clientOf(ada, { fetch: armed.fetch });
    a = await tab.client.join(roomId, { displayName: 'Ada' });
    present = a.heartbeatSeconds;
    const g = await grace.client.join(roomId, { displayName: 'Grace' });
    tab.client.setAwayAll(true);
    await until('Grace sees Ada away', () => entry(g, ada.uid)?.away === true, 10_000);
    await until('Ada on the away interval', () => a.heartbeatSeconds > present, 5_000);

    // Back at the page: the toggle's heartbeat goes at once, over the budget.
    tab.client.setAwayAll(false);
    await until('the toggle was answered', () => armed.reply && armed.reply !== 'pending', 10_000);
    assert.equal(armed.reply.away, true, `the toggle was not held: ${JSON.stringify(armed.reply)}`);
    assert.equal(a.away, false, 'the mode the app asked for is kept');
    assert.equal(a.status, 'joined');
    // The away heartbeat interval (50 s by default) is far beyond this wait.
    assert.ok(a.heartbeatSeconds > 15, `away heartbeat ${a.heartbeatSeconds} s: too short to tell`);
    await until('Grace sees Ada back', () => entry(g, ada.uid)?.away === false, 10_000);
    await until('Ada back on the regular interval', () => a.heartbeatSeconds === present, 5_000);
  });
});
