// A chat room's presence: who is here, who is typing, and leaving.
// roomlease carries presence, not messages: the draft box only drives the
// typing signal (an app sends its messages through its own backend).
import { useState } from 'react';
import { useParticipants, useRoom, useTyping } from '@roomlease/react';

export function App() {
  const params = new URLSearchParams(location.search);
  const [name, setName] = useState(params.get('name') || '');
  const [roomId, setRoomId] = useState(params.get('room') || 'lobby');
  const [inRoom, setInRoom] = useState(false);
  if (inRoom) return <ChatRoom roomId={roomId} name={name} onClose={() => setInRoom(false)} />;
  return (
    <form onSubmit={(e) => { e.preventDefault(); setInRoom(true); }}>
      <input data-testid="name" placeholder="Your name" value={name} onChange={(e) => setName(e.target.value)} required />
      <input data-testid="room" placeholder="Room" value={roomId} onChange={(e) => setRoomId(e.target.value)} required />
      <button data-testid="join" type="submit">Join</button>
    </form>
  );
}

function ChatRoom({ roomId, name, onClose }) {
  // Joins while mounted (once, StrictMode or not), leaves after unmount.
  const { status, me, error, leave } = useRoom(roomId, { displayName: name });
  return (
    <section>
      <p className="bar">
        Room <b>{roomId}</b> · <span data-testid="status" data-status={status}>{status}</span>
        {me && <> as <b>{me.displayName}</b></>}
      </p>
      {error && <p className="error" data-testid="error">{error.message}</p>}
      {status === 'left' ? (
        <button data-testid="back" onClick={onClose}>Back</button>
      ) : (
        <>
          <Roster roomId={roomId} />
          <Draft roomId={roomId} />
          <button data-testid="leave" onClick={() => leave()}>Leave</button>
        </>
      )}
    </section>
  );
}

function Roster({ roomId }) {
  const participants = useParticipants(roomId);
  return (
    <ul data-testid="roster">
      {participants.map((p) => (
        <li key={p.participantId} data-testid="participant" data-name={p.displayName}>
          {p.displayName}{p.isSelf && ' (you)'}{p.away && ' · away'}
        </li>
      ))}
    </ul>
  );
}

function Draft({ roomId }) {
  const { typing, setTyping } = useTyping(roomId);
  const [draft, setDraft] = useState('');
  const names = typing.map((t) => t.displayName || 'Someone');
  return (
    <>
      <p className="typing" data-testid="typing" data-names={names.join(',')}>
        {names.length > 0 && `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} typing…`}
      </p>
      <form className="bar" onSubmit={(e) => { e.preventDefault(); setDraft(''); setTyping(false); }}>
        <input
          data-testid="draft"
          placeholder="Say something"
          value={draft}
          onChange={(e) => { setDraft(e.target.value); setTyping(e.target.value !== ''); }}
        />
        <button type="submit">Send</button>
      </form>
    </>
  );
}
