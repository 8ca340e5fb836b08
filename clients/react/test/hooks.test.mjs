// The hooks against the running stack (scripts/test-web: the API on a named
// database with short leases, the emulators): joining once, leaving once,
// sharing, renaming. Each test watches the room from a second user
// (stack.mjs). Failed joins are in join-failures.test.mjs, joining again
// after leave() in rejoin.test.mjs, reader hooks alone in readers.test.mjs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StrictMode, createElement as h } from 'react';
import { getFirestore, connectFirestoreEmulator } from 'firebase/firestore';
import { createRoomleaseClient } from '@roomlease/client/node';
import { RoomleaseProvider, useParticipants, useRoom, useTyping } from '@roomlease/react';
import { storeFor } from '../src/store.js';
import {
  SLACK_MS, namesOf, newUser, recordingFetch, roomName, until,
} from '../../js/test/helpers.mjs';
import { render, renderHook } from './render.mjs';
import { hookJoins, reactStack, sameNames } from './stack.mjs';

describe('@roomlease/react against the stack', () => {
  const { suite, cleanups, user, observer } = reactStack();

  test('a StrictMode double mount joins once; the real unmount leaves once and leaves no ghost', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-strict');
    const watcher = await observer(roomId);
    const ada = await user();
    const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));

    await until('Ada\'s hook is joined and sees both', () => probe.value?.status === 'joined'
      && sameNames(probe.value.participants.map((p) => p.displayName), ['Ada', 'Observer']), SLACK_MS * 2);
    // StrictMode really did mount, unmount and mount again: otherwise this
    // test would prove nothing.
    assert.equal(probe.mounts, 2, 'StrictMode mounts effects twice');
    assert.equal(probe.unmounts, 1);
    assert.equal(probe.value.me?.displayName, 'Ada');
    assert.equal(probe.value.me?.isSelf, true);
    assert.equal(hookJoins(ada.rec), 1, `one join request: ${JSON.stringify(ada.rec.calls)}`);
    assert.equal(ada.rec.of('leave').length, 0, 'no leave while mounted');
    await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);

    probe.unmount();
    await until('Ada\'s leave was answered', () => ada.rec.of('leave').some((c) => c.status === 200), SLACK_MS);
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    assert.equal(hookJoins(ada.rec), 1, 'still one join');
    assert.equal(ada.rec.of('leave').length, 1, 'one leave');
    assert.equal(storeFor(ada.client).handle(roomId), null, 'the store holds nothing for the room');
  });

  test('a room unmounted while its join is in flight is left once the join answers', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-inflight');
    const watcher = await observer(roomId);
    // Ada's join reaches the server only when the test lets it go.
    let letJoinGo;
    const joinGate = new Promise((resolve) => { letJoinGo = resolve; });
    const gated = async (url, init) => {
      if (new URL(url).pathname.endsWith('/join')) await joinGate;
      return fetch(url, init);
    };
    const ada = await user({ fetch: gated });
    const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));
    await until('the join is on its way', () => ada.rec.of('join').length === 1, SLACK_MS);
    assert.equal(probe.value.status, 'joining');

    probe.unmount();
    await until('the store let the room go', () => storeFor(ada.client).handle(roomId) === null, SLACK_MS);
    assert.equal(ada.rec.of('leave').length, 0, 'nothing to leave before the join answers');
    letJoinGo();
    await until('Ada\'s leave was answered', () => ada.rec.of('leave').some((c) => c.status === 200), SLACK_MS);
    await until('the observer does not see Ada', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    assert.equal(hookJoins(ada.rec), 1);
    assert.equal(ada.rec.of('leave').length, 1);
    // Nothing was left behind on the client either: no heartbeats go on.
    assert.ok([...ada.client.rooms.values()].every((room) => room.isFinished), 'the Room is finished');
  });

  test('mounted again while the last mount\'s join is in flight, the room ends up joined, not left', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-remount');
    const watcher = await observer(roomId);
    let letJoinGo;
    const joinGate = new Promise((resolve) => { letJoinGo = resolve; });
    let gated = true;
    const ada = await user({
      fetch: async (url, init) => {
        if (gated && new URL(url).pathname.endsWith('/join')) await joinGate;
        return fetch(url, init);
      },
    });
    const first = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));
    await until('the first join is on its way', () => ada.rec.of('join').length === 1, SLACK_MS);
    first.unmount();
    await until('the store let the room go', () => storeFor(ada.client).handle(roomId) === null, SLACK_MS);
    // The client still holds that Room (joining): a new mount must not
    // take it over, since the first mount's leave is about to end it.
    const second = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));
    await until('the second mount holds the room', () => storeFor(ada.client).handle(roomId) !== null, SLACK_MS);
    gated = false;
    letJoinGo();
    await until('the first mount\'s leave was answered', () => ada.rec.of('leave').some((c) => c.status === 200), SLACK_MS);
    await until('the second mount is joined', () => second.value?.status === 'joined', SLACK_MS);
    await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
    assert.equal(ada.rec.of('join').length, 2, 'the second mount joined after the leave');
    assert.equal(ada.rec.of('leave').length, 1);
    second.unmount();
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
  });

  test('two components share one join; the room is left after the last of them unmounts', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-shared');
    const watcher = await observer(roomId);
    const ada = await user();
    const seen = {};
    function Part({ name }) {
      seen[name] = useRoom(roomId, { displayName: 'Ada' });
      return null;
    }
    const tree = (names) => h(StrictMode, null, h(RoomleaseProvider, { client: ada.client }, names.map((n) => h(Part, { key: n, name: n }))));
    const r = render(tree(['a', 'b']));
    await until('both see the room joined', () => seen.a?.status === 'joined' && seen.b?.status === 'joined', SLACK_MS * 2);
    assert.equal(seen.a.room, seen.b.room, 'one Room');

    r.update(tree(['b']));
    // Typing from the one still mounted reaches the observer: the lease
    // outlived the other's unmount (a leave would have ended it first).
    await seen.b.setTyping(true);
    await until('the observer sees Ada typing', () => watcher.typing.some((t) => t.displayName === 'Ada'), SLACK_MS);
    assert.equal(ada.rec.of('leave').length, 0, 'no leave while one component holds the room');

    r.unmount();
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    assert.equal(hookJoins(ada.rec), 1);
    assert.equal(ada.rec.of('leave').length, 1);
  });

  test('useParticipants and useTyping follow the room a useRoom holds; typing lists others only', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-small');
    const watcher = await observer(roomId);
    const ada = await user();
    const seen = { renders: 0 };
    function Roster() {
      seen.participants = useParticipants(roomId);
      seen.typing = useTyping(roomId);
      seen.renders++;
      return null;
    }
    function Page() {
      seen.room = useRoom(roomId, { displayName: 'Ada' });
      return h(Roster);
    }
    const r = render(h(StrictMode, null, h(RoomleaseProvider, { client: ada.client }, h(Page))));
    await until('useParticipants lists both', () => sameNames((seen.participants || []).map((p) => p.displayName), ['Ada', 'Observer']), SLACK_MS * 2);
    assert.equal(seen.participants, seen.room.participants, 'the same array as useRoom\'s');

    await watcher.setTyping(true);
    await until('Ada sees the observer typing', () => seen.typing.typing.some((t) => t.displayName === 'Observer'), SLACK_MS);
    await seen.typing.setTyping(true);
    await until('the observer sees Ada typing', () => watcher.typing.some((t) => t.displayName === 'Ada'), SLACK_MS);
    // Ada's own signal is on the room, but not in what the hooks call typing.
    await until('Ada\'s Room has her own signal', () => seen.room.room.typing.some((t) => t.isSelf), SLACK_MS);
    assert.ok(seen.typing.typing.every((t) => !t.isSelf), 'typing lists others only');
    assert.ok(seen.room.typing.every((t) => !t.isSelf));

    await watcher.setTyping(false);
    await until('the observer\'s typing is gone', () => seen.typing.typing.length === 0, SLACK_MS);
    r.unmount();
  });

  test('leave() from the hook leaves at once; unmounting afterwards sends no second leave', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-leave');
    const watcher = await observer(roomId);
    const ada = await user();
    const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));
    await until('joined', () => probe.value?.status === 'joined', SLACK_MS * 2);
    await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);

    const { removed } = await probe.value.leave();
    assert.equal(removed, true);
    await until('the hook says left, with an empty roster', () => probe.value?.status === 'left' && probe.value.participants.length === 0, SLACK_MS);
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    probe.unmount();
    await until('the store let the room go', () => storeFor(ada.client).handle(roomId) === null, SLACK_MS);
    await storeFor(ada.client).leaving(roomId);
    assert.equal(ada.rec.of('leave').length, 1, 'one leave');
  });

  test('a changed displayName renames; a null room id joins nothing', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-rename');
    const watcher = await observer(roomId);
    const ada = await user();
    let name = 'Ada';
    let id = roomId;
    const use = () => useRoom(id, { displayName: name });
    const probe = renderHook(ada.client, use);
    await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS * 2);

    name = 'Ada L.';
    probe.rerender(() => useRoom(id, { displayName: name }));
    await until('the observer sees the new name', () => sameNames(namesOf(watcher), ['Ada L.', 'Observer']), SLACK_MS);
    assert.equal(ada.rec.of('leave').length, 0, 'a rename is no leave');

    id = null;
    probe.rerender(() => useRoom(id, { displayName: name }));
    await until('the hook is idle', () => probe.value?.status === 'idle', SLACK_MS);
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    probe.unmount();
  });

  test('a join the client refuses shows in status and error', { timeout: 60_000 }, async () => {
    // A Firestore instance on "(default)" while the server keeps its rooms
    // in a named database: the client refuses before joining anything.
    const { config } = suite;
    const u = await newUser(config, { openFirestore: false });
    const firestore = getFirestore(u.app);
    connectFirestoreEmulator(firestore, u.firestoreEmulator.host, u.firestoreEmulator.port);
    const rec = recordingFetch();
    const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: u.auth, firestore, fetch: rec.fetch });
    cleanups.push(async () => {
      client.close();
      await u.close();
    });
    const roomId = roomName('react-refused');
    const probe = renderHook(client, () => useRoom(roomId, { displayName: 'Ada' }));
    await until('the hook shows the refusal', () => probe.value?.error, SLACK_MS);
    assert.equal(probe.value.status, 'closed');
    assert.equal(probe.value.error.code, 'wrong_database');
    assert.ok(probe.value.error.message.includes(`"${config.database}"`), probe.value.error.message);
    assert.equal(rec.of('join').length, 0, 'nothing was joined');
    probe.unmount();
  });
});
