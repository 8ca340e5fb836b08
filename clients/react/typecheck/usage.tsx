// Compiled (never run) by scripts/build-web with tsc --noEmit: the
// package's declarations must resolve through its "exports" and accept what
// its README shows. Not part of the published package.
import { StrictMode } from 'react';
import { initializeApp } from 'firebase/app';
import { getAuth } from 'firebase/auth';
import { createRoomleaseClient } from '@roomlease/client/browser';
import type { Participant, TypingSignal } from '@roomlease/client';
import {
  RoomleaseProvider, useParticipants, useRoom, useRoomleaseClient, useTyping,
  type RoomHookStatus, type UseRoomResult,
} from '@roomlease/react';

const app = initializeApp({ projectId: 'demo-roomlease' });
const client = createRoomleaseClient({ apiUrl: 'http://127.0.0.1:8081', auth: getAuth(app), app });

type Mood = { mood: 'busy' | 'free' };

function Chat({ roomId }: { roomId: string }) {
  const { status, participants, me, typing, setTyping, leave, error, setState, state, mode, count }: UseRoomResult<Mood> =
    useRoom<Mood>(roomId, { displayName: 'Ada', state: { mood: 'free' } });
  const many: string = mode === 'large' ? `${participants.length} of ${count}` : String(count);
  void many;
  const s: RoomHookStatus = status;
  const moods: ('busy' | 'free' | undefined)[] = participants.map((p) => p.state.mood);
  void setState({ mood: 'busy' });
  // @ts-expect-error: not the room's state shape
  void setState({ mood: 3 });
  void state?.mood;
  void s;
  void moods;
  // As the README shows a join being tried again, and one that gave up.
  if (status === 'joining' && error) return <p>Connecting… (trying again: {error.message})</p>;
  if (status === 'denied' || status === 'closed') return <p>Could not join: {error?.message ?? status}</p>;
  return (
    <div>
      <p>{me?.displayName} {status} {error?.message}</p>
      <ul>{participants.map((p) => <li key={p.participantId}>{p.displayName}</li>)}</ul>
      <p>{typing.map((t: TypingSignal) => t.displayName).join(', ')}</p>
      <input onChange={(e) => void setTyping(e.target.value !== '')} />
      <button onClick={() => void leave().then(({ removed }) => removed)}>Leave</button>
      <Roster roomId={roomId} />
    </div>
  );
}

function Roster({ roomId }: { roomId: string }) {
  const participants: Participant[] = useParticipants(roomId);
  const { typing, setTyping } = useTyping(roomId);
  const idle = useRoom(null).status === 'idle';
  const c = useRoomleaseClient();
  void c.sessionId;
  void setTyping(true);
  return <span>{participants.length} {typing.length} {String(idle)}</span>;
}

export const app1 = (
  <StrictMode>
    <RoomleaseProvider client={client}>
      <Chat roomId="standup" />
    </RoomleaseProvider>
  </StrictMode>
);
// @ts-expect-error: the provider needs a client
export const app2 = <RoomleaseProvider><Chat roomId="x" /></RoomleaseProvider>;
