// useParticipants and useTyping join nothing: in development they warn
// when no useRoom holds their room, and only then.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StrictMode, createElement as h } from 'react';
import { RoomleaseProvider, useParticipants, useRoom, useTyping } from '@roomlease/react';
import { SLACK_MS, roomName, until } from '../../js/test/helpers.mjs';
import { render } from './render.mjs';
import { reactStack } from './stack.mjs';

describe('reader hooks without a useRoom, against the stack', () => {
  const { user } = reactStack();

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
