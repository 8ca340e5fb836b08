// A room handle's lifecycle against the running stack, tried as a new user
// would: a first join that fails (no user yet, no network, a 503) comes in
// by itself while mounted; one the server refuses for good stops and says
// why; a component mounted again after leave() joins again, also within
// the same commit; and a reader hook with no useRoom for its room says so.
// Where order matters the test holds a request (or the client's timers)
// until it has seen the state in between.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StrictMode, createElement as h } from 'react';
import { RoomleaseProvider, useParticipants, useRoom, useTyping } from '@roomlease/react';
import { storeFor } from '../src/store.js';
import {
  SLACK_MS, holdableTimers, namesOf, roomName, until,
} from '../../js/test/helpers.mjs';
import { render, renderHook } from './render.mjs';
import { hookJoins, reactStack, sameNames } from './stack.mjs';

/** A promise and the function that settles it: a request held until the test lets it go. */
function gate() {
  let open;
  const opened = new Promise((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const isJoin = (url) => new URL(url).pathname.endsWith('/join');

/** What `promise` resolves to, failing (rather than hanging) if it has not settled within `ms`. */
async function settled(what, promise, ms) {
  let out = null;
  promise.then((value) => {
    out = { value };
  }, (error) => {
    out = { error };
  });
  await until(what, () => out, ms);
  if (out.error) throw out.error;
  return out.value;
}

describe('a room handle\'s lifecycle against the stack', () => {
  const { user, observer } = reactStack();

  function Part({ roomId, seen }) {
    seen.value = useRoom(roomId, { displayName: 'Ada' });
    return null;
  }
  const tree = (client, roomId, seen, key) => h(StrictMode, null, h(RoomleaseProvider, { client },
    key === null ? null : h(Part, { key, roomId, seen })));

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
      await until('the observer sees Ada', () => sameNames(namesOf(watcher), ['Ada', 'Observer']), SLACK_MS);
      assert.equal(hookJoins(ada.rec), 1);
      const handle = storeFor(ada.client).handle(roomId);
      const following = handle._offs.length;
      timers.release();
      // What a stale retry would do (join the Room the client holds, and
      // follow it a second time) takes no request: it is done by now.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(handle._offs.length, following, 'the Room is followed once');
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

  /** console.warn's @roomlease/react messages while `fn` runs. */
  async function warnings(fn) {
    const seen = [];
    const warn = console.warn;
    console.warn = (...args) => {
      if (String(args[0]).startsWith('@roomlease/react')) seen.push(String(args[0]));
      else warn(...args);
    };
    try {
      await fn(seen);
    } finally {
      console.warn = warn;
    }
    return seen;
  }

  test('useParticipants and useTyping with no useRoom for their room warn once in development and join nothing', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-reader');
    const ada = await user();
    const got = {};
    function Roster() {
      got.participants = useParticipants(roomId);
      got.typing = useTyping(roomId);
      return null;
    }
    const seen = await warnings(async (warned) => {
      const r = render(h(StrictMode, null, h(RoomleaseProvider, { client: ada.client }, h(Roster))));
      await until('a warning', () => warned.length > 0, SLACK_MS);
      r.unmount();
    });
    assert.equal(seen.length, 1, `one warning for the room: ${seen}`);
    assert.ok(seen[0].includes(`useParticipants("${roomId}")`) || seen[0].includes(`useTyping("${roomId}")`), seen[0]);
    assert.ok(seen[0].includes(`useRoom("${roomId}")`), seen[0]);
    assert.deepEqual(got.participants, []);
    assert.deepEqual(got.typing.typing, []);
    assert.equal(ada.rec.calls.length, 0, 'nothing was asked of the API');
  });

  test('a reader hook under a useRoom for its room does not warn, though its effect runs first', { timeout: 60_000 }, async () => {
    const roomId = roomName('react-reader-held');
    const ada = await user();
    const got = {};
    function Roster() {
      got.participants = useParticipants(roomId);
      return null;
    }
    function Page() {
      got.room = useRoom(roomId, { displayName: 'Ada' });
      return h(Roster);
    }
    const seen = await warnings(async () => {
      const r = render(h(StrictMode, null, h(RoomleaseProvider, { client: ada.client }, h(Page))));
      await until('the reader lists Ada', () => (got.participants || []).some((p) => p.displayName === 'Ada'), SLACK_MS * 2);
      r.unmount();
    });
    assert.deepEqual(seen, []);
  });
});
