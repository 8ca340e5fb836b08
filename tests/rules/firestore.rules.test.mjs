// Security rules tests: every path a client might touch, allowed and denied,
// against the Firestore emulator (FIRESTORE_EMULATOR_HOST). Run by
// scripts/test-web; on its own:
//   FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 node --test tests/rules/
//
// The tests use a project of their own so that clearing data between tests
// never touches what the API or the browser tests wrote.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  assertFails,
  assertSucceeds,
  initializeTestEnvironment,
} from '@firebase/rules-unit-testing';
import {
  collection,
  collectionGroup,
  deleteDoc,
  doc,
  getDoc,
  getDocs,
  onSnapshot,
  query,
  serverTimestamp,
  setDoc,
  setLogLevel,
  Timestamp,
  updateDoc,
  where,
} from 'firebase/firestore';

// Denied writes are the point of most tests; keep the SDK from logging each.
setLogLevel('silent');

const PROJECT = process.env.RULES_TEST_PROJECT || 'demo-roomlease-rules';
const RULES = fileURLToPath(new URL('../../firestore/firestore.rules', import.meta.url));

function emulator() {
  const hostPort = process.env.FIRESTORE_EMULATOR_HOST;
  if (!hostPort) {
    throw new Error('FIRESTORE_EMULATOR_HOST is not set: start the Firestore emulator (scripts/test-web does)');
  }
  const i = hostPort.lastIndexOf(':');
  return { host: hostPort.slice(0, i), port: Number(hostPort.slice(i + 1)) };
}

// Two rooms: "standup" with alice and bob on the roster, "retro" with carol.
// "quiet" is empty, waiting out its grace period. dave is signed in but in no
// room.
const later = Timestamp.fromMillis(Date.UTC(2100, 0, 1));

function roomDoc(roomId, state) {
  return {
    roomId,
    state,
    generation: 1,
    teardownReported: false,
    emptySince: state === 'suspected_empty' ? later : null,
    cleanupAfter: state === 'suspected_empty' ? later : null,
    createdAt: later,
    updatedAt: later,
    expireAt: later,
  };
}

function entry(roomId, uid) {
  return { roomId, participantId: uid, displayName: uid, joinedAt: later, sessionCount: 1, expireAt: later };
}

async function seed(testEnv) {
  await testEnv.withSecurityRulesDisabled(async (ctx) => {
    const db = ctx.firestore();
    await setDoc(doc(db, 'rooms/standup'), roomDoc('standup', 'active'));
    await setDoc(doc(db, 'rooms/retro'), roomDoc('retro', 'active'));
    await setDoc(doc(db, 'rooms/quiet'), roomDoc('quiet', 'suspected_empty'));
    for (const [room, uid] of [['standup', 'alice'], ['standup', 'bob'], ['retro', 'carol']]) {
      await setDoc(doc(db, `rooms/${room}/participants/${uid}`), entry(room, uid));
      await setDoc(doc(db, `rooms/${room}/participants/${uid}/sessions/tab-1`), {
        roomId: room, participantId: uid, sessionId: 'tab-1', generation: 1,
        leaseExpiresAt: later, createdAt: later, expireAt: later,
      });
      await setDoc(doc(db, `rooms/${room}/receipts/${uid}`), {
        participantId: uid, lastReadSeq: 3, updatedAt: later, expireAt: later,
      });
    }
    for (const room of ['standup', 'retro']) {
      await setDoc(doc(db, `rooms/${room}/rosterRevisions/3`), { roomId: room, changes: 2, expireAt: later });
      await setDoc(doc(db, `rooms/${room}/recentlyLeft/erin`), {
        roomId: room, participantId: 'erin', displayName: 'Erin', leftAt: later, reason: 'left', expireAt: later,
      });
    }
    await setDoc(doc(db, 'rooms/standup/typing/bob'), {
      participantId: 'bob', displayName: 'bob', expiresAt: later, expireAt: later,
    });
    await setDoc(doc(db, 'rooms/retro/typing/carol'), {
      participantId: 'carol', displayName: 'carol', expiresAt: later, expireAt: later,
    });
    await setDoc(doc(db, 'roomPolicies/standup'), { allowedUsers: ['alice', 'bob'], maxParticipants: 5 });
    // lobby opts in to public occupancy; hall's policy says no.
    await setDoc(doc(db, 'roomPolicies/lobby'), { publicOccupancy: true });
    await setDoc(doc(db, 'roomPolicies/hall'), { publicOccupancy: false, maxParticipants: 500 });
    for (const room of ['standup', 'lobby', 'hall']) {
      await setDoc(doc(db, `rooms/${room}/summary/current`), { roomId: room, count: 2, revision: 2, sample: [{ participantId: 'erin' }], expireAt: later });
      await setDoc(doc(db, `rooms/${room}/summary/occupancy`), { roomId: room, count: 2, revision: 2, expireAt: later });
    }
    await setDoc(doc(db, 'rooms/lobby'), roomDoc('lobby', 'active'));
    await setDoc(doc(db, 'rooms/lobby/participants/erin'), entry('lobby', 'erin'));
    await setDoc(doc(db, 'rooms/hall'), roomDoc('hall', 'active'));
    await setDoc(doc(db, 'rooms/hall/participants/erin'), entry('hall', 'erin'));
    await setDoc(doc(db, 'roomleaseUsers/alice'), { rooms: { standup: later, retro: later }, expireAt: later });
    await setDoc(doc(db, 'elsewhere/thing'), { x: 1 });
  });
}

// What a client sees of a failure, with the room id taken out (it is the
// one thing an outsider chose).
const seen = (room, err) => `${err?.code}: ${String(err?.message).replaceAll(room, 'ROOM')}`;

// Listens to ref and resolves with its first event, a snapshot or an error.
// `later` collects what arrives after that; next() waits for the next one.
function listen(ref) {
  return new Promise((resolve) => {
    const later = [];
    let waiting = null;
    let first = null;
    const deliver = (event) => {
      if (!first) {
        first = event;
        resolve({ first, later, next, stop });
        return;
      }
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(event);
        return;
      }
      later.push(event);
    };
    const next = () => (later.length ? Promise.resolve(later.shift()) : new Promise((r) => { waiting = r; }));
    const stop = onSnapshot(ref, (snap) => deliver({ kind: 'snapshot', snap }), (error) => deliver({ kind: 'error', error }));
  });
}

describe('firestore.rules', () => {
  let testEnv;
  const as = (uid) => testEnv.authenticatedContext(uid).firestore();
  const anon = () => testEnv.unauthenticatedContext().firestore();

  before(async () => {
    testEnv = await initializeTestEnvironment({
      projectId: PROJECT,
      firestore: { ...emulator(), rules: readFileSync(RULES, 'utf8') },
    });
  });
  after(async () => {
    await testEnv?.cleanup();
  });
  beforeEach(async () => {
    await testEnv.clearFirestore();
    await seed(testEnv);
  });

  describe('a participant of the room may read', () => {
    test('the room document', async () => {
      const snap = await assertSucceeds(getDoc(doc(as('alice'), 'rooms/standup')));
      // The room document no longer carries the revision (it lives in the
      // shards since the crowds change); check a field the seed does write.
      if (snap.data().state !== 'active' || snap.data().generation !== 1) throw new Error('unexpected room data');
    });
    test('one roster entry, their own or another', async () => {
      await assertSucceeds(getDoc(doc(as('alice'), 'rooms/standup/participants/alice')));
      await assertSucceeds(getDoc(doc(as('alice'), 'rooms/standup/participants/bob')));
    });
    test('the whole roster (what a listener queries)', async () => {
      const snap = await assertSucceeds(getDocs(collection(as('alice'), 'rooms/standup/participants')));
      if (snap.size !== 2) throw new Error(`roster has ${snap.size} entries, want 2`);
    });
    test('typing signals, one or all', async () => {
      await assertSucceeds(getDoc(doc(as('alice'), 'rooms/standup/typing/bob')));
      await assertSucceeds(getDocs(collection(as('alice'), 'rooms/standup/typing')));
    });
    test('read receipts, one or all', async () => {
      await assertSucceeds(getDoc(doc(as('bob'), 'rooms/standup/receipts/alice')));
      await assertSucceeds(getDocs(collection(as('bob'), 'rooms/standup/receipts')));
    });
    test('who recently left, one or all', async () => {
      await assertSucceeds(getDoc(doc(as('bob'), 'rooms/standup/recentlyLeft/erin')));
      await assertSucceeds(getDocs(collection(as('bob'), 'rooms/standup/recentlyLeft')));
    });
    test('the revision shards a listener adds up', async () => {
      await assertSucceeds(getDocs(collection(as('bob'), 'rooms/standup/rosterRevisions')));
      await assertSucceeds(getDoc(doc(as('bob'), 'rooms/standup/rosterRevisions/3')));
    });
    test('a document that does not exist yet in their room', async () => {
      await assertSucceeds(getDoc(doc(as('alice'), 'rooms/standup/typing/alice')));
    });
  });

  describe('a participant may not read', () => {
    test('sessions, not even their own', async () => {
      await assertFails(getDoc(doc(as('alice'), 'rooms/standup/participants/alice/sessions/tab-1')));
      await assertFails(getDocs(collection(as('alice'), 'rooms/standup/participants/alice/sessions')));
      await assertFails(getDoc(doc(as('alice'), 'rooms/standup/participants/bob/sessions/tab-1')));
    });
    test('claims on places, not even their own', async () => {
      await assertFails(getDoc(doc(as('alice'), 'rooms/standup/joinClaims/alice~tab-1')));
      await assertFails(getDocs(collection(as('alice'), 'rooms/standup/joinClaims')));
      await assertFails(getDocs(collectionGroup(as('alice'), 'joinClaims')));
    });
    test('sessions across rooms (collection group)', async () => {
      await assertFails(getDocs(collectionGroup(as('alice'), 'sessions')));
      await assertFails(getDocs(query(collectionGroup(as('alice'), 'sessions'), where('roomId', '==', 'standup'))));
    });
    test('another room they are not in: its active room document, roster, typing, receipts', async () => {
      const db = as('alice');
      await assertFails(getDoc(doc(db, 'rooms/retro')));
      await assertFails(getDoc(doc(db, 'rooms/retro/participants/carol')));
      await assertFails(getDocs(collection(db, 'rooms/retro/participants')));
      await assertFails(getDoc(doc(db, 'rooms/retro/typing/carol')));
      await assertFails(getDocs(collection(db, 'rooms/retro/typing')));
      await assertFails(getDoc(doc(db, 'rooms/retro/receipts/carol')));
      await assertFails(getDocs(collection(db, 'rooms/retro/receipts')));
      await assertFails(getDocs(collection(db, 'rooms/retro/rosterRevisions')));
      await assertFails(getDoc(doc(db, 'rooms/retro/recentlyLeft/erin')));
      await assertFails(getDocs(collection(db, 'rooms/retro/recentlyLeft')));
    });
    test('rosters, typing or receipts across rooms (collection group)', async () => {
      const db = as('alice');
      await assertFails(getDocs(collectionGroup(db, 'participants')));
      await assertFails(getDocs(collectionGroup(db, 'typing')));
      await assertFails(getDocs(collectionGroup(db, 'receipts')));
      await assertFails(getDocs(collectionGroup(db, 'rosterRevisions')));
      await assertFails(getDocs(collectionGroup(db, 'recentlyLeft')));
    });
    test('the list of rooms', async () => {
      await assertFails(getDocs(collection(as('alice'), 'rooms')));
      await assertFails(getDocs(query(collection(as('alice'), 'rooms'), where('state', '==', 'suspected_empty'))));
    });
    test('room policies, not even their own room\'s', async () => {
      await assertFails(getDoc(doc(as('alice'), 'roomPolicies/standup')));
      await assertFails(getDocs(collection(as('alice'), 'roomPolicies')));
    });
    test('the per-user document of the rooms cap, not even their own', async () => {
      await assertFails(getDoc(doc(as('alice'), 'roomleaseUsers/alice')));
      await assertFails(getDocs(collection(as('alice'), 'roomleaseUsers')));
      await assertFails(getDoc(doc(as('dave'), 'roomleaseUsers/alice')));
    });
    test('anything outside rooms/', async () => {
      await assertFails(getDoc(doc(as('alice'), 'elsewhere/thing')));
    });
  });

  describe('an outsider learns nothing about a room, whatever its state', () => {
    // dave is signed in and on no roster. "gone" has never existed, "quiet"
    // is empty (suspected_empty, nobody on its roster), "standup" is active.
    // Each read must fail, and fail the same way, for all three: any
    // difference (an allowed read, another code, another message) tells an
    // outsider whether someone is in a room.
    const rooms = ['gone', 'quiet', 'standup'];
    const paths = (room) => ({
      doc: [`rooms/${room}`, `rooms/${room}/participants/alice`, `rooms/${room}/typing/bob`,
        `rooms/${room}/receipts/alice`, `rooms/${room}/rosterRevisions/3`, `rooms/${room}/recentlyLeft/erin`,
        `rooms/${room}/summary/current`, `rooms/${room}/summary/occupancy`],
      collection: [`rooms/${room}/participants`, `rooms/${room}/typing`, `rooms/${room}/receipts`,
        `rooms/${room}/rosterRevisions`, `rooms/${room}/recentlyLeft`],
    });

    test('a get of the room document or anything in it is denied identically', async () => {
      const db = as('dave');
      for (const kind of ['doc', 'collection']) {
        for (let i = 0; i < paths('x')[kind].length; i++) {
          const answers = [];
          for (const room of rooms) {
            const path = paths(room)[kind][i];
            const err = await assertFails(kind === 'doc' ? getDoc(doc(db, path)) : getDocs(collection(db, path)));
            answers.push(seen(room, err));
          }
          assert.equal(answers[0].split(':')[0], 'permission-denied', answers[0]);
          assert.deepEqual(answers.slice(1), [answers[0], answers[0]], `${kind} ${paths('ROOM')[kind][i]}: ${answers.join(' | ')}`);
        }
      }
    });

    test('a listener on the room document fails at once, identically, and no join makes it speak again', async () => {
      const db = as('dave');
      const events = {};
      for (const room of rooms) {
        const { first, later } = await listen(doc(db, `rooms/${room}`));
        assert.equal(first.kind, 'error', `${room}: the first event was a ${first.kind}`);
        events[room] = { first: seen(room, first.error), later };
      }
      assert.equal(events.gone.first, events.quiet.first);
      assert.equal(events.gone.first, events.standup.first);
      assert.match(events.gone.first, /^permission-denied/);
      // Someone joins the absent and the empty room (the server's writes).
      await testEnv.withSecurityRulesDisabled(async (ctx) => {
        const fs = ctx.firestore();
        await setDoc(doc(fs, 'rooms/gone'), roomDoc('gone', 'active'));
        await setDoc(doc(fs, 'rooms/gone/participants/carol'), entry('gone', 'carol'));
        await setDoc(doc(fs, 'rooms/quiet'), roomDoc('quiet', 'active'));
        await setDoc(doc(fs, 'rooms/quiet/participants/carol'), entry('quiet', 'carol'));
      });
      // A listener that had been told nothing is told nothing now. (A
      // settled listener gets no callback; a fresh one proves the change
      // landed and is still denied the same way.)
      for (const room of ['gone', 'quiet']) {
        const { first } = await listen(doc(db, `rooms/${room}`));
        assert.equal(seen(room, first.error), events.standup.first, `${room} after a join`);
        assert.deepEqual(events[room].later, [], `${room}: the first listener heard more after the join`);
      }
    });

    test('a listener on the roster fails at once, identically', async () => {
      const db = as('dave');
      const answers = [];
      for (const room of rooms) {
        const { first } = await listen(collection(db, `rooms/${room}/participants`));
        assert.equal(first.kind, 'error', `${room}: the first event was a ${first.kind}`);
        answers.push(seen(room, first.error));
      }
      assert.deepEqual(answers.slice(1), [answers[0], answers[0]], answers.join(' | '));
    });

    test('a listener on the summary fails at once, identically, unless the room opts in', async () => {
      const db = as('dave');
      const answers = [];
      // hall has a policy, and a summary, but no opt-in: as good as absent.
      for (const room of [...rooms, 'hall']) {
        const { first } = await listen(doc(db, `rooms/${room}/summary/occupancy`));
        assert.equal(first.kind, 'error', `${room}: the first event was a ${first.kind}`);
        answers.push(seen(room, first.error));
      }
      assert.deepEqual(answers.slice(1), [answers[0], answers[0], answers[0]], answers.join(' | '));
    });

    test('a participant of another room is an outsider here too', async () => {
      // carol is in retro; that gives her nothing in the others.
      for (const room of rooms) await assertFails(getDoc(doc(as('carol'), `rooms/${room}`)));
    });
  });

  describe('a room that opts in to public occupancy (publicOccupancy: true)', () => {
    test('anyone signed in may get and listen to its occupancy summary', async () => {
      const snap = await assertSucceeds(getDoc(doc(as('dave'), 'rooms/lobby/summary/occupancy')));
      assert.equal(snap.data().count, 2);
      const { first, stop } = await listen(doc(as('dave'), 'rooms/lobby/summary/occupancy'));
      stop();
      assert.equal(first.kind, 'snapshot', String(first.error));
    });
    test('its occupancy may be listened to before the room exists (the policy already says so)', async () => {
      await testEnv.withSecurityRulesDisabled((ctx) => setDoc(doc(ctx.firestore(), 'roomPolicies/atrium'), { publicOccupancy: true }));
      const snap = await assertSucceeds(getDoc(doc(as('dave'), 'rooms/atrium/summary/occupancy')));
      assert.equal(snap.exists(), false);
    });
    test('but not the summary with names, nor anything else: room document, roster, shards, typing, departures', async () => {
      await assertFails(getDoc(doc(as('dave'), 'rooms/lobby/summary/current')));
      const db = as('dave');
      for (const path of ['rooms/lobby', 'rooms/lobby/participants/erin', 'rooms/lobby/rosterRevisions/3', 'rooms/lobby/typing/erin', 'rooms/lobby/recentlyLeft/erin']) {
        await assertFails(getDoc(doc(db, path)));
      }
      await assertFails(getDocs(collection(db, 'rooms/lobby/participants')));
      await assertFails(getDocs(collection(db, 'rooms/lobby/summary')));
    });
    test('nor its policy, and signed-out clients not even the summary', async () => {
      await assertFails(getDoc(doc(as('dave'), 'roomPolicies/lobby')));
      await assertFails(getDoc(doc(anon(), 'rooms/lobby/summary/occupancy')));
    });
    test('a participant may read the summary of their room, opt-in or not', async () => {
      await assertSucceeds(getDoc(doc(as('alice'), 'rooms/standup/summary/current')));
      await assertSucceeds(getDoc(doc(as('erin'), 'rooms/hall/summary/current')));
      await assertSucceeds(getDoc(doc(as('erin'), 'rooms/lobby/summary/current')));
    });
  });

  describe('a participant', () => {
    test('may get and listen to the room document, also while it is marked empty', async () => {
      const { first, stop } = await listen(doc(as('alice'), 'rooms/standup'));
      stop();
      assert.equal(first.kind, 'snapshot', String(first.error));
      assert.equal(first.snap.data().state, 'active');
      // A roster entry in a room marked empty (a join racing the emptiness
      // check, before the repair): the entry is what counts, not the state.
      await testEnv.withSecurityRulesDisabled((ctx) => setDoc(doc(ctx.firestore(), 'rooms/quiet/participants/dave'), entry('quiet', 'dave')));
      const snap = await assertSucceeds(getDoc(doc(as('dave'), 'rooms/quiet')));
      assert.equal(snap.data().state, 'suspected_empty');
    });

    test('loses access the moment their roster entry is removed', async () => {
      await testEnv.withSecurityRulesDisabled((ctx) => deleteDoc(doc(ctx.firestore(), 'rooms/standup/participants/bob')));
      await assertFails(getDoc(doc(as('bob'), 'rooms/standup')));
      await assertFails(getDocs(collection(as('bob'), 'rooms/standup/participants')));
      await assertSucceeds(getDocs(collection(as('alice'), 'rooms/standup/participants')));
    });

    test('is cut off while listening when their roster entry is removed', async () => {
      const db = as('bob');
      const roster = await listen(collection(db, 'rooms/standup/participants'));
      assert.equal(roster.first.kind, 'snapshot', String(roster.first.error));
      await testEnv.withSecurityRulesDisabled((ctx) => deleteDoc(doc(ctx.firestore(), 'rooms/standup/participants/bob')));
      const cut = await roster.next();
      assert.equal(cut.kind, 'error', `after the entry went: a ${cut.kind}`);
      assert.equal(cut.error.code, 'permission-denied');
      // A listener on the room document is re-checked when that document
      // changes (the emulator, like Firestore, does not re-run rules for a
      // change elsewhere): at the room's next change it fails instead of
      // showing the change. The client libraries detach on leave anyway.
      const room = await listen(doc(db, 'rooms/standup'));
      assert.equal(room.first.kind, 'error', 'the entry is gone: a fresh listener is denied');
      const kept = await listen(doc(as('alice'), 'rooms/standup'));
      assert.equal(kept.first.kind, 'snapshot');
      await testEnv.withSecurityRulesDisabled((ctx) => deleteDoc(doc(ctx.firestore(), 'rooms/standup/participants/alice')));
      await testEnv.withSecurityRulesDisabled((ctx) => setDoc(doc(ctx.firestore(), 'rooms/standup'), roomDoc('standup', 'suspected_empty')));
      const after = await kept.next();
      assert.equal(after.kind, 'error', `a former participant's room listener got a ${after.kind} of the change`);
      assert.equal(after.error.code, 'permission-denied');
      // And what they may still try afterwards is what any outsider gets.
      const again = await listen(doc(db, 'rooms/standup'));
      assert.equal(seen('standup', again.first.error), seen('standup', (await listen(doc(as('dave'), 'rooms/standup'))).first.error));
    });
  });

  describe('a signed-out client', () => {
    test('may read nothing', async () => {
      const db = anon();
      for (const path of ['rooms/standup', 'rooms/quiet', 'rooms/gone', 'rooms/standup/participants/alice',
        'rooms/standup/typing/bob', 'rooms/standup/receipts/alice',
        'rooms/standup/participants/alice/sessions/tab-1', 'roomPolicies/standup', 'elsewhere/thing']) {
        await assertFails(getDoc(doc(db, path)));
      }
      for (const path of ['rooms', 'rooms/standup/participants', 'rooms/standup/typing',
        'rooms/standup/receipts', 'roomPolicies']) {
        await assertFails(getDocs(collection(db, path)));
      }
    });
  });

  describe('no client may write', () => {
    // Each write is tried by a member of the room (the most privileged client
    // there is), by an outsider and by a signed-out client.
    const writers = [['member', () => as('alice')], ['outsider', () => as('dave')], ['signed out', anon]];
    const targets = [
      ['the room document', 'rooms/standup', { state: 'active' }],
      ['a new room', 'rooms/brand-new', roomDoc('brand-new', 'active')],
      ['their own roster entry', 'rooms/standup/participants/alice', { displayName: 'Mallory' }],
      ['another roster entry', 'rooms/standup/participants/bob', { displayName: 'Mallory' }],
      ['a session', 'rooms/standup/participants/alice/sessions/tab-1', { generation: 99 }],
      ['a typing signal', 'rooms/standup/typing/alice', { participantId: 'alice', expiresAt: serverTimestamp() }],
      ['a read receipt', 'rooms/standup/receipts/alice', { participantId: 'alice', lastReadSeq: 1000 }],
      ['a recent departure', 'rooms/standup/recentlyLeft/erin', { participantId: 'erin', reason: 'evicted' }],
      ['a claim on a place', 'rooms/standup/joinClaims/alice~tab-2', { roomId: 'standup', order: '0' }],
      ['a public room summary', 'rooms/lobby/summary/current', { count: 0 }],
      ['a public room occupancy', 'rooms/lobby/summary/occupancy', { count: 0 }],
      ['a room policy', 'roomPolicies/standup', { allowedUsers: ['alice', 'dave'] }],
      ['their per-user document', 'roomleaseUsers/alice', { rooms: {} }],
      ['anything else', 'elsewhere/thing', { x: 2 }],
    ];
    for (const [who, db] of writers) {
      for (const [what, path, data] of targets) {
        test(`${who}: create or overwrite ${what}`, async () => {
          await assertFails(setDoc(doc(db(), path), data));
          await assertFails(setDoc(doc(db(), path), data, { merge: true }));
        });
        test(`${who}: update ${what}`, async () => {
          await assertFails(updateDoc(doc(db(), path), data));
        });
        test(`${who}: delete ${what}`, async () => {
          await assertFails(deleteDoc(doc(db(), path)));
        });
      }
    }
    test('member: create a new session, typing signal or receipt of their own', async () => {
      const db = as('alice');
      await assertFails(setDoc(doc(db, 'rooms/standup/participants/alice/sessions/tab-2'), { generation: 1 }));
      await assertFails(setDoc(doc(db, 'rooms/standup/receipts/dave'), { lastReadSeq: 1 }));
    });
    test('outsider: put themselves on a roster', async () => {
      await assertFails(setDoc(doc(as('dave'), 'rooms/standup/participants/dave'), entry('standup', 'dave')));
      await assertFails(setDoc(doc(as('dave'), 'rooms/quiet/participants/dave'), entry('quiet', 'dave')));
    });
  });
});
