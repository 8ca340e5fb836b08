// Joining again after leave(), against the running stack: a component
// mounted again with a new key joins again, also when the remount comes
// within the same commit as the unmount (the store then hands back the
// same, finished handle), and then only once the leave has answered.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { storeFor } from '../src/store.js';
import { SLACK_MS, namesOf, roomName, until } from '../../js/test/helpers.mjs';
import { render } from './render.mjs';
import {
  gate, hookJoins, isJoin, reactStack, sameNames, settled, tree,
} from './stack.mjs';

describe('joining again after leave(), against the stack', () => {
  const { user, observer } = reactStack();

  test('after leave(), a component mounted again with a new key joins again', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-rekey');
    const watcher = await observer(roomId);
    const ada = await user();
    const seen = {};
    const r = render(tree(ada.client, roomId, seen, 'a'));
    await until('joined', () => seen.value?.status === 'joined', SLACK_MS * 2);
    await seen.value.leave();
    await until('left', () => seen.value.status === 'left', SLACK_MS);
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);

    r.update(tree(ada.client, roomId, seen, null));
    await until('the store let the room go', () => storeFor(ada.client).handle(roomId) === null, SLACK_MS);
    r.update(tree(ada.client, roomId, seen, 'b'));
    await until('the new mount is joined', () => seen.value?.status === 'joined', SLACK_MS);
    await until('the observer sees Ada back', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
    assert.equal(hookJoins(ada.rec), 2);
    assert.equal(ada.rec.of('leave').length, 1);
    r.unmount();
    await until('the observer sees Ada gone again', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
  });

  test('after leave(), a new key in the same commit (the store hands back the left handle) joins again, once the leave has answered', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-rekey-commit');
    const watcher = await observer(roomId);
    // The leave is held, so that the new mount comes while it is in flight.
    const leaveGate = gate();
    const order = [];
    const ada = await user({
      fetch: async (url, init) => {
        const action = new URL(url).pathname.split('/')[4];
        if (action === 'join') order.push('join');
        if (action !== 'leave') return fetch(url, init);
        await leaveGate.opened;
        const res = await fetch(url, init);
        order.push('leave answered');
        return res;
      },
    });
    const seen = {};
    const r = render(tree(ada.client, roomId, seen, 'a'));
    await until('joined', () => seen.value?.status === 'joined', SLACK_MS * 2);
    const first = seen.value.room;
    const leaving = seen.value.leave();
    await until('left, the leave on its way', () => seen.value.status === 'left' && ada.rec.of('leave').length === 1, SLACK_MS);

    // One commit unmounts key a (its cleanup releases the handle) and
    // mounts key b (its effect acquires it before the release's timer).
    r.update(tree(ada.client, roomId, seen, 'b'));
    await until('the new mount is joining', () => seen.value?.status === 'joining', SLACK_MS);
    assert.ok(storeFor(ada.client)._leaving.has(roomId), 'the new join waits for the leave in flight');
    leaveGate.open();
    assert.deepEqual(await leaving, { removed: true });
    await until('the new mount is joined', () => seen.value?.status === 'joined', SLACK_MS);
    assert.notEqual(seen.value.room, first, 'a new Room');
    await until('the observer sees Ada back', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
    assert.deepEqual(order.slice(0, 3), ['join', 'leave answered', 'join'], 'the new join went out after the leave answered');
    assert.equal(hookJoins(ada.rec), 2);
    r.unmount();
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    assert.equal(ada.rec.of('leave').length, 2);
  });

  test('leave() while the join is in flight, then a new key in the same commit: the late join is left, then the room joined again', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-rekey-inflight');
    const watcher = await observer(roomId);
    const joinGate = gate();
    let joins = 0;
    const ada = await user({
      fetch: async (url, init) => {
        if (isJoin(url) && joins++ === 0) await joinGate.opened;
        return fetch(url, init);
      },
    });
    const seen = {};
    const r = render(tree(ada.client, roomId, seen, 'a'));
    await until('the first join is on its way', () => ada.rec.of('join').length === 1, SLACK_MS);
    const leaving = seen.value.leave();
    await until('the hook says left', () => seen.value.status === 'left', SLACK_MS);
    // The new mount takes the same handle, finished, before the first
    // join has answered: that join belongs to the leave, not to the new run.
    r.update(tree(ada.client, roomId, seen, 'b'));
    await until('the new mount is joining', () => seen.value?.status === 'joining', SLACK_MS);
    joinGate.open();
    assert.deepEqual(await settled('the leave is answered', leaving, SLACK_MS), { removed: true }, 'the late join\'s lease was given back');
    await until('the new mount is joined', () => seen.value?.status === 'joined', SLACK_MS);
    await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
    assert.equal(hookJoins(ada.rec), 2);
    assert.equal(ada.rec.of('leave').length, 1);
    r.unmount();
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
  });
});
