// A first join that fails, against the running stack, tried as a new user
// would: one that finds no user signed in yet, no network or a 503 comes
// in by itself while mounted (showing each error meanwhile); one the
// server refuses for good stops and says why; leave() stops the retries.
// Where order matters the test holds a request (or the client's timers)
// until it has seen the state in between.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useRoom } from '@roomlease/react';
import { storeFor } from '../src/store.js';
import {
  SLACK_MS, holdableTimers, namesOf, roomName, until,
} from '../../js/test/helpers.mjs';
import { render, renderHook } from './render.mjs';
import {
  gate, hookJoins, isJoin, reactStack, sameNames, settled, tree,
} from './stack.mjs';

describe('a first join that fails, against the stack', () => {
  const { user, observer } = reactStack();

  test('a first join that finds no network, then a 503, is retried while mounted, showing each error meanwhile', { timeout: 90_000 }, async () => {
    const roomId = roomName('react-retry');
    const watcher = await observer(roomId);
    // Each join waits for its own gate; the first then fails as a dropped
    // connection does, the second as an overloaded API answers, the third
    // reaches the server.
    const gates = [gate(), gate(), gate()];
    let joins = 0;
    const ada = await user({
      fetch: async (url, init) => {
        if (!isJoin(url)) return fetch(url, init);
        const n = joins++;
        await gates[Math.min(n, 2)].opened;
        if (n === 0) throw new TypeError('fetch failed');
        if (n === 1) {
          return new Response(JSON.stringify({ error: { code: 'unavailable', message: 'the store is busy' } }), {
            status: 503, headers: { 'Content-Type': 'application/json' },
          });
        }
        return fetch(url, init);
      },
    });
    const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));

    await until('the first join is on its way', () => ada.rec.of('join').length === 1, SLACK_MS);
    gates[0].open();
    await until('the hook shows the network error, still joining', () => probe.value?.error?.code === 'network', SLACK_MS);
    assert.equal(probe.value.status, 'joining');
    await until('the hook tries again', () => ada.rec.of('join').length === 2, SLACK_MS * 2);
    // Held at its gate: what shows meanwhile is the last failure's.
    assert.equal(probe.value.status, 'joining');
    assert.equal(probe.value.error?.code, 'network');
    gates[1].open();
    await until('the hook shows the 503, still joining', () => probe.value?.error?.code === 'unavailable', SLACK_MS);
    assert.equal(probe.value.status, 'joining');
    assert.equal(probe.value.error.status, 503);
    await until('the hook tries a third time', () => ada.rec.of('join').length === 3, SLACK_MS * 3);
    gates[2].open();
    await until('the hook is joined, with no error', () => probe.value?.status === 'joined' && probe.value.error === null, SLACK_MS);
    await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
    assert.equal(ada.rec.of('join').length, 3, 'three joins: two failed, one held');

    probe.unmount();
    await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    assert.equal(ada.rec.of('leave').length, 1);
  });

  test('rendered before sign-in, the hook joins as soon as the user signs in, not at its next retry', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-signin');
    const watcher = await observer(roomId);
    // The client's timers are held: the retry they would run cannot be
    // what joins, so the join must come from the sign-in.
    const timers = holdableTimers();
    timers.hold();
    const ada = await user({ signIn: false, clientOptions: { timers } });
    try {
      const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));
      await until('the hook shows that nobody is signed in, still joining', () => probe.value?.error?.code === 'unauthenticated', SLACK_MS);
      assert.equal(probe.value.status, 'joining');
      assert.equal(ada.rec.of('join').length, 0, 'no join was sent without a user');
      assert.equal(timers.asked.length, 1, `one retry is scheduled: ${JSON.stringify(timers.asked)}`);
      // Its time comes while held: released later, it must not join again.
      await until('the retry came due', () => timers.queued === 1, SLACK_MS);

      await ada.signIn();
      await until('the hook is joined', () => probe.value?.status === 'joined' && probe.value.error === null, SLACK_MS);
      assert.equal(hookJoins(ada.rec), 1);
      const handle = storeFor(ada.client).handle(roomId);
      const following = handle._offs.length;
      // Released at once, so that the heartbeats keep the lease from here.
      timers.release();
      // What a stale retry would do (join the Room the client holds, and
      // follow it a second time) takes no request: it is done by now.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(handle._offs.length, following, 'the Room is followed once');
      await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
      probe.unmount();
      await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
      assert.equal(hookJoins(ada.rec), 1, 'the retry the timers held did not join again');
    } finally {
      timers.release();
      timers.dispose();
    }
  });

  test('a signed-in user whose token the server refuses is retried with backoff, not at every word from Auth', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-refused-token');
    const timers = holdableTimers();
    timers.hold();
    const ada = await user({
      clientOptions: { timers },
      fetch: async (url, init) => (isJoin(url)
        ? new Response(JSON.stringify({ error: { code: 'unauthenticated', message: 'token revoked' } }), {
          status: 401, headers: { 'Content-Type': 'application/json' },
        })
        : fetch(url, init)),
    });
    try {
      const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada' }));
      await until('the 401 shows, a retry scheduled', () => probe.value?.error?.status === 401 && timers.asked.length === 1, SLACK_MS);
      const handle = storeFor(ada.client).handle(roomId);
      const retry = handle._retryTimer;
      assert.notEqual(retry, null);
      // Auth calls every new listener back with the user it has; once this
      // one is called, any listener the handle added has been called too.
      await new Promise((resolve) => {
        const off = ada.auth.onAuthStateChanged(() => {
          off();
          resolve();
        });
      });
      assert.equal(handle._retryTimer, retry, 'still waiting for the backoff, not joining again at once');
      assert.equal(probe.value.status, 'joining');
      probe.unmount();
    } finally {
      timers.release();
      timers.dispose();
    }
  });

  test('leave() while the join waits for its retry stops it; mounting again joins', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-retry-leave');
    const watcher = await observer(roomId);
    // The first join is answered 503; the client's timers are held, so the
    // retry stays scheduled until leave() comes.
    const timers = holdableTimers();
    timers.hold();
    let joins = 0;
    const ada = await user({
      clientOptions: { timers },
      fetch: async (url, init) => {
        if (isJoin(url) && joins++ === 0) {
          return new Response(JSON.stringify({ error: { code: 'unavailable', message: 'busy' } }), {
            status: 503, headers: { 'Content-Type': 'application/json' },
          });
        }
        return fetch(url, init);
      },
    });
    try {
      const seen = {};
      const r = render(tree(ada.client, roomId, seen, 'a'));
      await until('the 503 shows, a retry scheduled', () => seen.value?.error?.code === 'unavailable' && timers.asked.length === 1, SLACK_MS * 2);
      const handle = storeFor(ada.client).handle(roomId);
      assert.deepEqual(await seen.value.leave(), { removed: false });
      await until('the hook says left', () => seen.value.status === 'left', SLACK_MS);
      // The run is over: it settles with no Room, without the held retry.
      assert.equal(await settled('the run is over', handle.joined, SLACK_MS), null);
      timers.release();

      r.update(tree(ada.client, roomId, seen, null));
      await until('the store let the room go', () => storeFor(ada.client).handle(roomId) === null, SLACK_MS);
      await storeFor(ada.client).leaving(roomId);
      assert.equal(ada.rec.of('leave').length, 0, 'nothing was joined, so nothing is left');
      r.update(tree(ada.client, roomId, seen, 'b'));
      await until('the new mount is joined', () => seen.value?.status === 'joined', SLACK_MS);
      await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
      r.unmount();
      await until('the observer sees Ada gone', () => sameNames(namesOf(watcher), ['Observer']), SLACK_MS);
    } finally {
      timers.release();
      timers.dispose();
    }
  });

  test('a join the server refuses for good ends closed and says why, without retrying', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-final');
    const timers = holdableTimers();
    const ada = await user({ clientOptions: { timers } });
    try {
      // A control character: the server answers 400 invalid_argument, and
      // asking again would get the same answer.
      const probe = renderHook(ada.client, () => useRoom(roomId, { displayName: 'Ada\u0007' }));
      await until('the hook shows the refusal', () => probe.value?.status === 'closed', SLACK_MS);
      assert.equal(probe.value.error?.code, 'invalid_argument');
      assert.equal(probe.value.error.status, 400);
      assert.equal(ada.rec.of('join').length, 1);
      assert.deepEqual(timers.asked, [], 'no retry was scheduled');
      probe.unmount();
    } finally {
      timers.dispose();
    }
  });
});
