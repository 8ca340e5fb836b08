// @roomlease/client in a large room, against the emulators and
// roomlease-dev (see helpers.mjs), whose summarizer writes large rooms'
// summaries: the Room switches to the summary by itself (its roster
// listeners stop), shows the count and the changes from it, and goes back
// to the roster when the room has shrunk. The room's policy sets its
// threshold to 3, so that four users make it large.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoomleaseClient } from '@roomlease/client/node';
import { namesOf, newUser, recordingFetch, roomName, SLACK_MS, stackSuite, until } from './helpers.mjs';
import { ownerDocument } from '../../../tests/lib/room-doc.mjs';

// The summarizer reads its list of large rooms every 15 s
// (summarize.ListEvery) and refreshes a summary once a second after that.
const SUMMARY_MS = 16_000 + SLACK_MS;
const ROSTER = ['roster', 'recentlyLeft', 'revision'];

describe('@roomlease/client in a large room', () => {
  const suite = stackSuite();

  async function clientFor(name) {
    const user = await newUser(suite.config);
    const rec = recordingFetch();
    const client = createRoomleaseClient({
      apiUrl: suite.config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator, fetch: rec.fetch,
    });
    suite.cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { name, user, client, rec };
  }

  async function join(who, roomId, options = {}) {
    return who.client.join(roomId, { displayName: who.name, ...options });
  }

  /** Every event of the types named, in order, with the room's mode when it came. */
  function record(room, types) {
    const seen = [];
    for (const type of types) room.on(type, (detail) => seen.push({ type, mode: room.mode, ...detail }));
    return seen;
  }

  const running = (room, names) => names.filter((n) => room._listeners[n]);

  test('four users make the room large: the summary replaces the roster listeners, and a shrunk room goes back to them', { timeout: 180_000 }, async () => {
    const roomId = roomName('js-large');
    await ownerDocument(suite.config, `roomPolicies/${roomId}`).put({
      largeRoomThreshold: { integerValue: '3' }, updatedAt: { timestampValue: new Date().toISOString() },
    });
    const obs = await clientFor('Obs');
    const o = await join(obs, roomId);
    const events = record(o, ['mode', 'sync', 'participant-joined', 'participant-left']);
    const rosters = record(o, ['roster']);
    await until('Obs sees itself on the roster', () => o.participants.some((p) => p.isSelf), 10_000);
    assert.equal(o.mode, 'roster');
    assert.deepEqual(running(o, ROSTER), ROSTER, 'a small room is followed through its roster');
    assert.equal(o.count, 1);

    const others = [];
    for (const name of ['Ada', 'Grace', 'Linus']) {
      const who = await clientFor(name);
      others.push({ ...who, room: await join(who, roomId) });
    }
    await until('Obs switches to the summary', () => o.mode === 'large', SUMMARY_MS);
    await until('the summary counts four', () => o.count === 4, 10_000);
    assert.equal((await o.refresh()).participants.length, 4, 'the server has four');
    assert.deepEqual(running(o, ROSTER), [], 'the roster, recently-left and revision listeners are off');
    assert.ok(o._listeners.self, 'the own entry is listened to instead');
    assert.deepEqual(namesOf(o), ['Ada', 'Grace', 'Linus', 'Obs'], 'the sample holds all four');
    const me = o.participants.find((p) => p.isSelf);
    assert.equal(me?.participantId, obs.user.uid);
    const switched = events.findIndex((e) => e.type === 'mode');
    assert.deepEqual(events[switched], { type: 'mode', mode: 'large', previous: 'roster' });
    assert.ok(events.slice(switched).some((e) => e.type === 'sync' && e.mode === 'large' && e.count >= 3), 'the switch is a sync');
    const last = rosters.at(-1);
    assert.equal(last.mode, 'large');
    assert.equal(last.count, o.count);

    // A user who joins the room once it is large never reads the roster.
    const eve = await clientFor('Eve');
    const e = await join(eve, roomId);
    await until('Eve sees the summary', () => e.mode === 'large', 10_000);
    assert.equal(e._listenerStarts.roster, undefined, 'the roster listener never started for Eve');
    assert.ok(e.participants.some((p) => p.isSelf && p.participantId === eve.user.uid), 'Eve sees herself');
    await until('Obs counts five', () => o.count === 5, 10_000);
    await until('Obs is told Eve joined', () => events.some((x) => x.type === 'participant-joined' && x.participant.participantId === eve.user.uid), 10_000);
    assert.ok(o.revision >= o._summary.revision, 'the revision follows the summary');

    // A departure, from the summary.
    const [ada] = others;
    await ada.room.leave();
    await until('Obs is told Ada left', () => events.some((x) => x.type === 'participant-left' && x.participant.participantId === ada.user.uid), 10_000);
    await until('Ada is recently left', () => o.recentlyLeft.some((d) => d.participantId === ada.user.uid), 10_000);
    await until('Obs counts four again', () => o.count === 4, 10_000);

    // Down to one (half the threshold is 1.5): the summary goes away.
    for (const who of others.slice(1)) await who.room.leave();
    await e.leave();
    await until('Obs is back on the roster', () => o.mode === 'roster', 10_000 + SLACK_MS);
    assert.deepEqual(namesOf(o), ['Obs']);
    assert.equal(o.count, 1);
    assert.deepEqual(running(o, ROSTER), ROSTER, 'the roster listeners run again');
    assert.equal(o._listeners.self, null, 'the own entry\'s listener stopped');
    const back = events.findLastIndex((x) => x.type === 'mode');
    assert.deepEqual(events[back], { type: 'mode', mode: 'roster', previous: 'large' });
    assert.ok(events.slice(back).some((x) => x.type === 'sync' && x.mode === 'roster'), 'the way back is a sync');
    assert.ok(rosters.every((r) => r.participants.length > 0), 'no roster shown empty on the way');

    // The roster again: state, which no summary carries, shows.
    const frank = await clientFor('Frank');
    await join(frank, roomId, { state: { colour: 'red' } });
    await until('Obs sees Frank red', () => o.participants.find((p) => p.participantId === frank.user.uid)?.state.colour === 'red', 10_000);
    assert.equal(o.count, 2);
    assert.ok(events.some((x) => x.type === 'participant-joined' && x.mode === 'roster' && x.participant.participantId === frank.user.uid));
  });

  test('a small room whose policy says publicOccupancy has a roster-mode summary, and its clients stay on the roster', { timeout: 120_000 }, async () => {
    const roomId = roomName('js-public');
    // The default threshold (500): the summary exists only for the opt-in.
    await ownerDocument(suite.config, `roomPolicies/${roomId}`).put({
      publicOccupancy: { booleanValue: true }, updatedAt: { timestampValue: new Date().toISOString() },
    });
    const obs = await clientFor('Obs');
    const o = await join(obs, roomId);
    const events = record(o, ['mode', 'participant-joined']);
    const users = [obs];
    for (const name of ['Ada', 'Grace']) {
      const who = await clientFor(name);
      users.push({ ...who, room: await join(who, roomId) });
    }
    await until('Obs sees the roster-mode summary', () => o._summaryMode === 'roster', SUMMARY_MS);
    const doc = await ownerDocument(suite.config, `rooms/${roomId}/summary/current`).get();
    assert.equal(doc.fields.mode.stringValue, 'roster', 'the summary the server wrote is a roster-mode one');
    assert.equal(o.mode, 'roster', 'a roster-mode summary is no large room');
    assert.deepEqual(running(o, ROSTER), ROSTER, 'the roster listeners still run');
    assert.equal(o._listeners.self, null, 'no own-entry listener');
    await until('Obs sees all three', () => o.participants.length === 3, 10_000);
    assert.deepEqual(namesOf(o), ['Ada', 'Grace', 'Obs']);
    assert.deepEqual(o.participants.map((p) => p.participantId).sort(), users.map((u) => u.user.uid).sort());
    assert.equal(o.count, 3);
    assert.deepEqual(events.filter((e) => e.type === 'mode'), [], 'no switch');

    // The roster, not the summary, is still the source: state, which no
    // summary carries, shows, and a join is told in roster mode.
    const frank = await clientFor('Frank');
    await join(frank, roomId, { state: { colour: 'red' } });
    await until('Obs sees Frank red', () => o.participants.find((p) => p.participantId === frank.user.uid)?.state.colour === 'red', 10_000);
    assert.ok(events.some((x) => x.type === 'participant-joined' && x.mode === 'roster' && x.participant.participantId === frank.user.uid));
    assert.equal(o.mode, 'roster');
    assert.equal(o._summaryMode, 'roster');
    assert.deepEqual(running(o, ROSTER), ROSTER);
  });

  test('in a large room, a user outside the summary\'s sample sees the count and its own exact entry', { timeout: 240_000 }, async () => {
    const roomId = roomName('js-outside');
    await ownerDocument(suite.config, `roomPolicies/${roomId}`).put({
      largeRoomThreshold: { integerValue: '3' }, updatedAt: { timestampValue: new Date().toISOString() },
    });
    // The sample holds the 20 who joined first (presence.SummarySample,
    // by joinedAt): 21 join before Zed.
    const SAMPLE = 20;
    const fillers = await Promise.all(Array.from({ length: SAMPLE + 1 }, (_, i) => clientFor(`U${String(i).padStart(2, '0')}`)));
    for (const who of fillers) who.room = await join(who, roomId);
    const zed = await clientFor('Zed');
    const z = await join(zed, roomId, { state: { colour: 'blue' } });
    const total = fillers.length + 1;
    await until('Zed sees the summary', () => z.mode === 'large', SUMMARY_MS);
    await until(`Zed counts ${total}`, () => z.count === total, 10_000);

    // The premise: Zed is not in the summary's sample.
    const doc = await ownerDocument(suite.config, `rooms/${roomId}/summary/current`).get();
    assert.equal(doc.fields.mode.stringValue, 'large');
    assert.equal(Number(doc.fields.count.integerValue), total);
    const sampled = (doc.fields.sample.arrayValue.values || []).map((v) => v.mapValue.fields.participantId.stringValue);
    assert.equal(sampled.length, SAMPLE, 'a full sample');
    assert.ok(!sampled.includes(zed.user.uid), 'Zed is outside the sample');

    // What largeParticipants promises: the sample's entries and, added to
    // them, the own entry as read from its own document, in join order.
    await until('Zed shows the sample and itself', () => z.participants.length === SAMPLE + 1, 10_000);
    assert.equal(z.count, total);
    const mine = z.participants.filter((p) => p.isSelf);
    assert.equal(mine.length, 1, 'one own entry');
    const [me] = mine;
    assert.equal(me.participantId, zed.user.uid);
    assert.equal(me.displayName, 'Zed');
    assert.deepEqual(me.state, { colour: 'blue' }, 'exact, from the own document: no sample carries state');
    assert.equal(me.sessionCount, 1);
    assert.equal(z.participants.at(-1), me, 'the last to join is last');
    assert.deepEqual(z.participants.filter((p) => !p.isSelf).map((p) => p.participantId), sampled, 'the others are the sample');
    assert.deepEqual(running(z, ROSTER), [], 'no roster listener for it');
    assert.ok(z._listeners.self, 'the own entry is listened to');
  });

  test('listParticipants pages through the whole roster', { timeout: 60_000 }, async () => {
    const roomId = roomName('js-pages');
    const users = [];
    for (const name of ['Ada', 'Grace', 'Linus']) {
      const who = await clientFor(name);
      users.push({ ...who, room: await join(who, roomId) });
    }
    const [ada] = users;
    const ids = [];
    let page = await ada.room.listParticipants({ pageSize: 2 });
    assert.equal(page.participants.length, 2);
    // What types/index.d.ts declares as ParticipantsPage, no more.
    assert.deepEqual(Object.keys(page).sort(), ['nextPageToken', 'participants', 'revision', 'roomId']);
    ids.push(...page.participants.map((p) => p.participantId));
    assert.ok(page.nextPageToken, 'a second page');
    page = await ada.room.listParticipants({ pageSize: 2, pageToken: page.nextPageToken });
    ids.push(...page.participants.map((p) => p.participantId));
    assert.equal(page.nextPageToken, undefined, 'the last page');
    assert.deepEqual(ids, users.map((u) => u.user.uid).sort());
    assert.ok(ada.room.revision >= page.revision);
    assert.ok(ada.rec.of('participants').every((c) => c.status === 200));
  });
});
