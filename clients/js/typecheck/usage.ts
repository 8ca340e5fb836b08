// Compiled (never run) by scripts/build-web with tsc --noEmit: the package's
// declarations must resolve through its "exports" and accept what the
// README and docs/clients.md show. Not part of the published package.
import { initializeApp } from 'firebase/app';
import { getAuth } from 'firebase/auth';
import { getFirestore, type Firestore } from 'firebase/firestore';
import { ReCaptchaEnterpriseProvider, getToken, initializeAppCheck } from 'firebase/app-check';
import { createRoomleaseClient as browserClient } from '@roomlease/client/browser';
import { createRoomleaseClient as nodeClient } from '@roomlease/client/node';
import { createRoomleaseClient as nativeClient, followNetInfo, type AppStateLike, type NetInfoLike } from '@roomlease/client/react-native';
import { RoomleaseError, newerRevision, type Room, type RoomInfo, type RoomStatus } from '@roomlease/client';
import type { Departure, Participant, ParticipantsPage, RoomMode, RoomleaseErrorCode, ServerConfig } from '@roomlease/client';

// State is generic: a room typed with the app's shape checks setState and
// the participants' state against it.
type Status = { colour: string; status?: 'busy' | 'free' };

async function state(): Promise<void> {
  const client = nodeClient({ apiUrl: 'http://127.0.0.1:8081', auth, app: initializeApp({ projectId: 'demo-roomlease' }, 'state') });
  const room: Room<Status> = await client.join<Status>('standup', { displayName: 'Ada', state: { colour: 'red' } });
  const { revision }: { state: Status; revision: number } = await room.setState({ colour: 'blue', status: 'busy' });
  // @ts-expect-error: not the room's state shape
  await room.setState({ colour: 3 });
  room.setAway(true);
  client.setAwayAll(false);
  const colours: (string | undefined)[] = room.participants.map((p: Participant<Status>) => p.state.colour);
  const away: boolean[] = room.participants.map((p) => p.away);
  const photos: (string | undefined)[] = room.participants.map((p) => p.photoURL);
  room.on('participant-joined', ({ participant }) => participant.state.status);
  room.on('participant-updated', ({ participant }) => participant.away);
  room.on('participant-left', ({ participant, reason }) => `${participant.displayName} ${reason}`);
  room.on('sync', ({ participants, count, mode }) => `${participants.length} of ${count} (${mode})`);
  room.on('mode', ({ mode, previous }) => mode === 'large' && previous === 'roster');
  const mode: RoomMode = room.mode;
  const count: number = room.count;
  const page: ParticipantsPage = await room.listParticipants({ pageSize: 500 });
  const next: ParticipantsPage | null = page.nextPageToken ? await room.listParticipants({ pageToken: page.nextPageToken }) : null;
  void mode;
  void count;
  void next;
  room.on('recently-left', ({ recentlyLeft }) => recentlyLeft.map((d: Departure) => d.leftAt?.getTime()));
  const gone: string[] = room.recentlyLeft.map((d) => d.reason);
  const untyped: Room = await client.join('other');
  await untyped.setState({ anything: [1, 2] });
  void revision;
  void colours;
  void away;
  void photos;
  void gone;
}
void state;

const app = initializeApp({ projectId: 'demo-roomlease' });
const auth = getAuth(app);

async function browser(): Promise<void> {
  const client = browserClient({ apiUrl: 'http://127.0.0.1:8081', auth, app, storage: null });
  const room: Room = await client.join('standup', { displayName: 'Ada' });
  const stop = room.on('roster', ({ participants, revision }) => {
    const names: string[] = participants.map((p) => p.displayName);
    const r: number | null = revision;
    void names;
    void r;
  });
  room.on('room', (info: RoomInfo) => info.cleanupAfter?.getTime());
  room.on('revision', ({ revision, previous }) => newerRevision(previous, revision));
  room.on('status', ({ status }) => {
    const s: RoomStatus = status;
    void s;
  });
  room.on('error', ({ error }) => (error instanceof RoomleaseError ? error.code : error.message));
  await room.setTyping(true);
  const seq: number | null = await room.markRead(3);
  const { removed }: { removed: boolean } = await room.leave();
  void seq;
  void removed;
  stop();
  const now: Date = client.serverNow();
  void now;
  client.close();
}

// The README's quick start: the server names its emulators, if any.
async function quickStart(): Promise<void> {
  const { emulators }: ServerConfig = await (await fetch('http://127.0.0.1:8081/v1/config')).json();
  const url: string | undefined = emulators?.auth?.url;
  void url;
  nodeClient({ apiUrl: 'x', auth, app, firestoreEmulator: emulators?.firestore });
}
void quickStart;

function node(): void {
  const client = nodeClient({ apiUrl: 'x', auth, app, firestoreEmulator: { host: '127.0.0.1', port: 8080 }, now: () => 0, random: () => 0.5, fetch });
  client.pauseAll();
  void client.resumeAll();
}

function native(appState: AppStateLike): void {
  const client = nativeClient({
    apiUrl: 'x',
    auth,
    app,
    appState,
    storage: { getItem: async () => null, setItem: async () => {} },
    background: 'leave',
  });
  client.goAway();
}

// The per-user caps, as docs/clients.md shows them handled.
async function caps(): Promise<string> {
  const client = nodeClient({ apiUrl: 'x', auth, app });
  try {
    await client.join('standup');
    return 'joined';
  } catch (err) {
    if (!(err instanceof RoomleaseError)) throw err;
    const code: RoomleaseErrorCode = err.code;
    switch (code) {
      case 'too_many_sessions':
        return 'close another tab of this room first';
      case 'too_many_rooms':
        return 'leave another room first';
      default:
        throw err;
    }
  }
}

// A request timeout, as the README shows it, and the code a request that
// got no answer fails with.
async function timeouts(): Promise<void> {
  const client = nodeClient({ apiUrl: 'x', auth, app, requestTimeoutMs: 5_000 });
  const timeout: number = client.requestTimeoutMs;
  void timeout;
  const room = await client.join('standup');
  room.on('error', ({ error }) => {
    const unanswered: boolean = error instanceof RoomleaseError && (error.code === 'timeout' || error.code === 'network');
    void unanswered;
  });
  client.close();
}
void timeouts;

// Every status an app must render, `offline` included (the switch is
// exhaustive, so a status missing from RoomStatus fails here), and the
// offline signals as docs/clients.md shows them.
function statusText(status: RoomStatus): string {
  switch (status) {
    case 'joining':
    case 'rejoining':
      return 'connecting…';
    case 'joined':
      return 'live';
    case 'offline':
      return 'offline: reconnecting…';
    case 'paused':
    case 'expired':
    case 'away':
    case 'left':
    case 'denied':
    case 'closed':
      return status;
    default: {
      const unknown: never = status;
      return unknown;
    }
  }
}

async function offline(appState: AppStateLike, netInfo: NetInfoLike): Promise<void> {
  const client = nodeClient({ apiUrl: 'x', auth, app, offlineAfterFailures: 2 });
  const room = await client.join('standup');
  room.on('status', ({ status, reason }) => {
    if (status === 'joined' && reason === 'online') void statusText(status);
  });
  client.goOffline();
  client.wakeAll();
  const native = nativeClient({ apiUrl: 'x', auth, app, appState, netInfo });
  const none = nativeClient({ apiUrl: 'x', auth, app, appState, netInfo: null });
  const stop: () => void = followNetInfo(native, netInfo);
  stop();
  none.close();
  native.close();
  client.close();
}
void offline;

void browser;
void caps;
void node;
void native;

// App Check as docs/clients.md shows it: Firebase's getToken passed as it is,
// and a 429's Retry-After read off the error.
async function withAppCheck(): Promise<void> {
  const appCheck = initializeAppCheck(app, { provider: new ReCaptchaEnterpriseProvider('site-key'), isTokenAutoRefreshEnabled: true });
  const client = browserClient({ apiUrl: 'http://127.0.0.1:8081', auth, app, storage: null, appCheckToken: (force) => getToken(appCheck, force) });
  const plain = nodeClient({ apiUrl: 'http://127.0.0.1:8081', auth, app, appCheckToken: async () => 'token' });
  const room = await client.join('standup');
  room.on('error', ({ error }) => {
    const wait: number | null = error instanceof RoomleaseError && error.code === 'rate_limited' ? error.retryAfterSeconds : null;
    void wait;
  });
  plain.close();
  client.close();
}
void withAppCheck;

// The database handshake as docs/clients.md shows it: an app that opened
// the database itself passes it, and a wrong one is refused, naming both.
async function ownDatabase(): Promise<string> {
  const client = nodeClient({ apiUrl: 'x', auth, firestore: getFirestore(app, 'roomlease') });
  const db: Firestore = await client.openFirestore();
  const name: string | null = client.database;
  void db;
  try {
    await client.join('standup');
    return name ?? '';
  } catch (err) {
    if (err instanceof RoomleaseError && err.code === 'wrong_database') {
      return `${err.clientDatabase?.database} is not ${err.serverDatabase?.database}`;
    }
    throw err;
  }
}
void ownDatabase;

// Listeners need a database to read: a client without app or firestore is a type error.
// @ts-expect-error neither app nor firestore
nodeClient({ apiUrl: 'x', auth });
