// useRoom in a large room, against the stack (scripts/test-web), whose
// summarizer writes large rooms' summaries: the hook's snapshot says
// `mode` 'large' and the summary's `count`, and the reader hook shows the
// same participants, without the app doing anything. The room's policy
// sets its threshold to 3, so that three users make it large.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useParticipants, useRoom } from '@roomlease/react';
import { SLACK_MS, roomName, until } from '../../js/test/helpers.mjs';
import { ownerDocument } from '../../../tests/lib/room-doc.mjs';
import { renderHook } from './render.mjs';
import { reactStack } from './stack.mjs';

describe('@roomlease/react in a large room', () => {
  const { suite, user, observer } = reactStack();

  test('useRoom shows mode large and the summary\'s count once the room is large', { timeout: 120_000 }, async () => {
    const roomId = roomName('react-large');
    await ownerDocument(suite.config, `roomPolicies/${roomId}`).put({
      largeRoomThreshold: { integerValue: '3' }, updatedAt: { timestampValue: new Date().toISOString() },
    });
    await observer(roomId);
    await observer(roomId);
    const ada = await user();
    const probe = renderHook(ada.client, () => {
      const room = useRoom(roomId, { displayName: 'Ada' });
      return { room, participants: useParticipants(roomId) };
    });
    await until('Ada\'s hook is joined', () => probe.value?.room.status === 'joined', SLACK_MS);
    // The summarizer reads its list of large rooms every 15 s.
    await until('the hook says large', () => probe.value.room.mode === 'large', 16_000 + SLACK_MS);
    await until('the hook counts three', () => probe.value.room.count === 3, SLACK_MS);
    const { room, participants } = probe.value;
    assert.equal(room.room.mode, 'large');
    assert.equal(room.room._listeners.roster, null, 'the roster listener is off');
    assert.equal(room.me?.isSelf, true, 'me stays known');
    assert.equal(room.me?.displayName, 'Ada');
    assert.equal(participants, room.participants, 'useParticipants reads the same list');
    assert.equal(participants.length, 3, 'the sample holds all three');
    probe.unmount();
  });
});
