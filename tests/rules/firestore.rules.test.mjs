// Security rules tests: every path a client might touch, allowed and denied,
// against the Firestore emulator (FIRESTORE_EMULATOR_HOST). Run by
// scripts/test-web; on its own:
//   FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 node --test tests/rules/
//
// The tests use a project of their own so that clearing data between tests
// never touches what the API or the browser tests wrote.
import { after, before, beforeEach, describe, test } from 'node:test';
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
    }
    await setDoc(doc(db, 'rooms/standup/typing/bob'), {
      participantId: 'bob', displayName: 'bob', expiresAt: later, expireAt: later,
    });
    await setDoc(doc(db, 'rooms/retro/typing/carol'), {
      participantId: 'carol', displayName: 'carol', expiresAt: later, expireAt: later,
    });
    await setDoc(doc(db, 'roomPolicies/standup'), { allowedUsers: ['alice', 'bob'], maxParticipants: 5 });
    await setDoc(doc(db, 'roomleaseUsers/alice'), { rooms: { standup: later, retro: later }, expireAt: later });
    await setDoc(doc(db, 'elsewhere/thing'), { x: 1 });
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
    });
    test('rosters, typing or receipts across rooms (collection group)', async () => {
      const db = as('alice');
      await assertFails(getDocs(collectionGroup(db, 'participants')));
      await assertFails(getDocs(collectionGroup(db, 'typing')));
      await assertFails(getDocs(collectionGroup(db, 'receipts')));
      await assertFails(getDocs(collectionGroup(db, 'rosterRevisions')));
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

  describe('a signed-in user who is not a participant', () => {
    test('may not read an active room or anything in it', async () => {
      const db = as('dave');
      await assertFails(getDoc(doc(db, 'rooms/standup')));
      await assertFails(getDocs(collection(db, 'rooms/standup/participants')));
      await assertFails(getDoc(doc(db, 'rooms/standup/participants/alice')));
      await assertFails(getDocs(collection(db, 'rooms/standup/typing')));
      await assertFails(getDoc(doc(db, 'rooms/standup/typing/bob')));
      await assertFails(getDocs(collection(db, 'rooms/standup/receipts')));
      await assertFails(getDoc(doc(db, 'rooms/standup/receipts/alice')));
      await assertFails(getDocs(collection(db, 'rooms/standup/rosterRevisions')));
      await assertFails(getDoc(doc(db, 'rooms/standup/participants/alice/sessions/tab-1')));
    });
    test('may get an empty room\'s document, to watch its grace period and teardown', async () => {
      const snap = await assertSucceeds(getDoc(doc(as('dave'), 'rooms/quiet')));
      if (snap.data().state !== 'suspected_empty') throw new Error('unexpected room data');
    });
    test('may get a room document that does not exist (a torn-down room)', async () => {
      const snap = await assertSucceeds(getDoc(doc(as('dave'), 'rooms/gone')));
      if (snap.exists()) throw new Error('room should not exist');
    });
    test('may not read the empty room\'s subcollections', async () => {
      await assertFails(getDocs(collection(as('dave'), 'rooms/quiet/participants')));
      await assertFails(getDocs(collection(as('dave'), 'rooms/quiet/typing')));
      await assertFails(getDocs(collection(as('dave'), 'rooms/quiet/receipts')));
    });
    test('loses access the moment their roster entry is removed', async () => {
      await testEnv.withSecurityRulesDisabled((ctx) => deleteDoc(doc(ctx.firestore(), 'rooms/standup/participants/bob')));
      await assertFails(getDoc(doc(as('bob'), 'rooms/standup')));
      await assertFails(getDocs(collection(as('bob'), 'rooms/standup/participants')));
      await assertSucceeds(getDocs(collection(as('alice'), 'rooms/standup/participants')));
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
