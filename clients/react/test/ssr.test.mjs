// Server rendering: the package imports in Node with no DOM, and the hooks
// render their server snapshot without joining anything or calling the
// API. Needs no stack: the client here has a fetch that fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { initializeApp, deleteApp } from 'firebase/app';
import { getAuth } from 'firebase/auth';
import { createRoomleaseClient } from '@roomlease/client/node';
import * as bindings from '@roomlease/react';

const { RoomleaseProvider, useParticipants, useRoom, useTyping } = bindings;

test('the package imports where there is no DOM', () => {
  assert.equal(typeof globalThis.window, 'undefined');
  assert.equal(typeof globalThis.document, 'undefined');
  assert.deepEqual(Object.keys(bindings).sort(),
    ['RoomleaseProvider', 'useParticipants', 'useRoom', 'useRoomleaseClient', 'useTyping']);
});

test('renderToString gives the server snapshot and calls nothing', async () => {
  const app = initializeApp({ apiKey: 'demo-api-key', projectId: 'demo-roomlease' }, 'ssr');
  const calls = [];
  const client = createRoomleaseClient({
    apiUrl: 'http://127.0.0.1:1', auth: getAuth(app), app,
    fetch: async (url) => {
      calls.push(url);
      throw new Error('a server render must not call the API');
    },
  });
  try {
    function Page() {
      const room = useRoom('standup', { displayName: 'Ada' });
      const none = useRoom(null);
      const participants = useParticipants('standup');
      const { typing } = useTyping('standup');
      return h('p', null, `${room.status} ${none.status} ${room.participants.length} ${participants.length} ${typing.length} ${room.me}`);
    }
    const html = renderToString(h(RoomleaseProvider, { client }, h(Page)));
    assert.equal(html, '<p>joining idle 0 0 0 null</p>');
    assert.deepEqual(calls, []);
    assert.equal(client.rooms.size, 0, 'nothing joined');
  } finally {
    client.close();
    await deleteApp(app);
  }
});

test('a hook without a provider says what is missing', () => {
  function Page() {
    useRoom('standup');
    return null;
  }
  assert.throws(() => renderToString(h(Page)), /useRoom needs a <RoomleaseProvider client=\{…\}> above it/);
  assert.throws(() => renderToString(h(RoomleaseProvider, {}, null)), /RoomleaseProvider needs client/);
});
