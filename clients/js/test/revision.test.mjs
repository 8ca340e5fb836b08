// The revision a listener adds up (src/revision.js) against the stack, and
// the arithmetic alone. In a room that carries its changes the listener
// reads no revision shard: the entries and departure records it receives
// anyway, and the room's retired count, add up to the server's revision.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getFirestore, Timestamp } from 'firebase/firestore';
import { createRoomleaseClient } from '@roomlease/client/node';
import { revisionOf, sumCarried, watchRevision } from '../src/revision.js';
import { loadConfig, newUser, roomName, SLACK_MS, until } from './helpers.mjs';

const T = (s) => new Timestamp(s, 500_000);

test('per user the larger of entry and record, of the lifetime only, plus the retired count', () => {
  const opened = T(100);
  const entries = [{ id: 'a', changes: 3, roomOpenedAt: T(100) }, { id: 'b', changes: 2, roomOpenedAt: T(100) }];
  const records = [{ id: 'c', changes: 4, roomOpenedAt: T(100) }, { id: 'd', changes: 9, roomOpenedAt: T(50) }, { id: 'e', changes: 1 },
    { id: '~retired', retired: 6 }];
  assert.equal(sumCarried(opened, entries, records), 3 + 2 + 4 + 6, 'a record of an earlier lifetime, or unstamped, counts nothing');
  // Bob's leave moved his 2 onto his record, 3: seen with both, it is 3, not 5.
  assert.equal(sumCarried(opened, entries, [...records, { id: 'b', changes: 3, roomOpenedAt: T(100) }]), 3 + 3 + 4 + 6);
  assert.equal(sumCarried(opened, entries, []), 5, 'no retired count is 0');
});

test('a revision is added up only from server snapshots, and from the shards in an older room', () => {
  const snap = (docs, fromCache = false) => ({ metadata: { fromCache }, docs: docs.map(({ id, ...d }) => ({ id, data: () => d })) });
  const room = (data) => ({ metadata: { fromCache: false }, exists: () => !!data, data: () => data });
  const carried = { room: room({ changesCarried: true, createdAt: T(1) }), participants: snap([{ id: 'a', changes: 5, roomOpenedAt: T(1) }]),
    recentlyLeft: snap([{ id: '~retired', retired: 2 }]) };
  assert.equal(revisionOf(carried), 7);
  assert.equal(revisionOf({ ...carried, participants: snap([], true) }), null, 'a snapshot from the cache may be partial');
  assert.equal(revisionOf({ ...carried, recentlyLeft: null }), null, 'not every part has arrived');
  assert.equal(revisionOf({ ...carried, room: room(null) }), null, 'no room, no revision');
  const older = { room: room({ createdAt: T(1) }), shards: snap([{ id: '0', changes: 4 }, { id: '1', changes: 6 }, { id: '2' }]) };
  assert.equal(revisionOf(older), 10, 'an older room adds up its shards');
  assert.equal(revisionOf({ ...older, shards: null }), null);
});

describe('the listener\'s revision against the stack', () => {
  let config;
  const cleanups = [];
  before(async () => {
    config = await loadConfig();
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  async function clientFor() {
    const user = await newUser(config);
    const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: user.auth, app: user.app, firestoreEmulator: user.firestoreEmulator });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { user, client };
  }

  test('equals the server\'s revision after a join, a state update, away, a leave and a return', async () => {
    const room = roomName('js-revision');
    const ada = await clientFor();
    const grace = await clientFor();
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const seen = [];
    const errors = [];
    const stop = watchRevision(getFirestore(ada.user.app, config.database), room, (n) => seen.push(n), (err) => errors.push(err));
    cleanups.push(async () => stop());
    const agree = async (what) => {
      const want = (await a.refresh()).revision;
      await until(`${what}: the listener adds up to the server's ${want} (saw ${seen.slice(-5)})`, () => seen.at(-1) === want, SLACK_MS);
      return want;
    };
    await agree('Ada alone');
    let g = await grace.client.join(room, { displayName: 'Grace' });
    const joined = await agree('Grace joined');
    await g.setState({ mood: 'busy' });
    await agree('Grace set her state');
    grace.client.setAwayAll(true);
    await until('Grace is away', () => a.participants.find((p) => p.displayName === 'Grace')?.away === true, SLACK_MS);
    await agree('Grace went away');
    await g.leave();
    const left = await agree('Grace left');
    assert.ok(left > joined, `the revision rose from ${joined} to ${left}`);
    g = await grace.client.join(room, { displayName: 'Grace' });
    await agree('Grace came back');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], `the listener's revisions went back: ${seen}`);
    assert.deepEqual(errors, []);
  });
});
