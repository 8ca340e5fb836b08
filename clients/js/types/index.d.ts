// Types for @roomlease/client, the platform-free core. See README.md.
import type { FirebaseApp } from 'firebase/app';
import type { Auth } from 'firebase/auth';
import type { Firestore } from 'firebase/firestore';

/** Where a client's session id comes from (one per tab or app instance). */
export interface SessionIds {
  /** The current id; may change until ready() settles (a duplicated tab). */
  readonly id: string;
  /** Settles once the id is final; the client awaits it before the first join. */
  ready(): Promise<void>;
  close(): void;
}

/**
 * Timers the heartbeat, the countdowns and every request's deadline run on.
 * `kind` is 'deadline' for a request's timeout (so a test can tell it from
 * the heartbeat schedule); an implementation may ignore it.
 */
export interface Timers {
  set(fn: () => void, ms: number, kind?: 'deadline'): unknown;
  clear(id: unknown): void;
  dispose?(): void;
}

/** Where the Firestore emulator listens, for local runs. */
export interface FirestoreEmulator {
  host: string;
  port: number;
}

/**
 * Where the listeners read: the Firebase `app`, from which the client opens
 * the Firestore database the server names (GET /v1/config); or a Firestore
 * instance the app opened itself, which must be that database (otherwise
 * `join` rejects with `wrong_database`).
 */
export type FirestoreSource =
  | { app: FirebaseApp; firestore?: Firestore }
  | { app?: FirebaseApp; firestore: Firestore };

export interface BaseClientOptions {
  /** Base URL of the roomlease API, e.g. "https://presence.example.com". */
  apiUrl: string;
  /** A Firebase Auth instance with a signed-in user before `join`. */
  auth: Pick<Auth, 'currentUser'>;
  /**
   * Connects the database the client opens from `app` to the Firestore
   * emulator (local runs; a no-op if the app already connected it there).
   * Not applied to a `firestore` instance the app passed.
   */
  firestoreEmulator?: FirestoreEmulator;
  /** Fraction by which a heartbeat interval may be shortened at random (default 0.2). */
  heartbeatJitter?: number;
  /** How often a continued `setTyping(true)` is re-sent, in seconds (default 2). */
  typingRefreshSeconds?: number;
  /** How long a departure shows in `room.recentlyLeft`, in seconds; unset: the server's ROOMLEASE_RECENTLY_LEFT, from GET /v1/config. */
  recentlyLeftSeconds?: number;
  /**
   * The longest any request waits for its answer, in ms (default 10 000),
   * from the tokens to the last byte; then it is aborted and fails with
   * code `timeout`. A heartbeat waits at most half the lease it has left
   * (at least 1 s, at most this), so that its retry still fits in the lease.
   */
  requestTimeoutMs?: number;
  /**
   * How many lease requests in a row (heartbeats, rejoins) may go
   * unanswered (`network`, `timeout`) before a room's status is `offline`
   * (default 3). Once the lease has run out by the client's own clock, one
   * is enough.
   */
  offlineAfterFailures?: number;
  /**
   * The server's empty-room grace, in seconds, if the app knows it: lets the
   * last one to leave show a countdown should the leave reply lack
   * `cleanupAfter` (the server's emptiness check after the leave did not
   * answer). Without it, such a leave shows an empty room without countdown.
   */
  emptyRoomGraceSeconds?: number | null;
  /** fetch to call the API with (default: the global fetch). */
  fetch?: typeof fetch;
  /** The device clock in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Random numbers in [0, 1) for jitter and backoff (default Math.random). */
  random?: () => number;
  /** Timers (default setTimeout; the browser adapter uses a worker). */
  timers?: Timers;
  /** Session ids (default: a random id in memory, or `sessionId`). */
  sessionIds?: SessionIds;
  /** A fixed session id. */
  sessionId?: string;
  /**
   * Supplies the Firebase App Check token sent with every request (header
   * `X-Firebase-AppCheck`), for a server with App Check on. Pass Firebase's
   * `(force) => getToken(appCheck, force)`; it is called per request
   * (Firebase caches the token) and with `true` once after the server
   * answers 401 `app_check_failed`.
   */
  appCheckToken?: (forceRefresh: boolean) => Promise<string | { token: string } | null | undefined>;
}

export type ClientOptions = BaseClientOptions & FirestoreSource;

export type RoomStatus =
  | 'joining' // first join in flight
  | 'joined' // holding a lease, heartbeating
  | 'rejoining' // the server answered 409 (or we came back): joining again with a new generation
  /**
   * The API cannot be reached: the platform said so (browser `offline`,
   * NetInfo), or lease requests went unanswered (`offlineAfterFailures` in a
   * row, or one after the lease ran out by the client's clock). The client
   * keeps trying; the first answer ends it: a heartbeat while the lease may
   * still be live (status `joined`, reason `online`, same generation), else
   * a join (`joined`, reason `rejoin`, a new generation).
   */
  | 'offline'
  | 'paused' // pause(): heartbeats stopped, listeners still open
  | 'expired' // while paused, the server let the lease go
  | 'away' // the page or app went away and left; resume() joins again
  | 'left' // left on purpose
  | 'denied' // the room's policy refused this user
  | 'closed'; // close(): stopped without leaving

export type RoomState = 'active' | 'suspected_empty' | 'deleted';

/**
 * The room as this client knows it. While joined, from the room document's
 * listener. After leave(), one last event, from the leave reply: then
 * `visible` is false and nothing more is learnt (outsiders cannot read a
 * room, and the API answers them 404 whether it exists or not). If that
 * leave emptied the room, `state` is 'suspected_empty' and `cleanupAfter`
 * says when the teardown is due: an estimate of the teardown, since a join
 * during the grace revives the room and a client that has left is not told.
 */
export interface RoomInfo {
  /** false when a listener saw the room document deleted; null when it cannot be seen. */
  exists: boolean | null;
  /** false once this user no longer sees the room: after any leave. */
  visible: boolean;
  state?: RoomState | null;
  /** The room's own generation (advances each time it becomes active again). */
  generation?: number | null;
  /** Server time from which an empty room may be torn down; null while active. */
  cleanupAfter?: Date | null;
  /** True when cleanupAfter is the client's own estimate (leave time + grace), not the server's value from the leave reply. */
  estimated?: boolean;
}

/** A participant's state: a JSON object, `{}` when none was set. */
export type DefaultState = Record<string, unknown>;

export interface Participant<S extends object = DefaultState> {
  participantId: string;
  /** From the verified token's name when it has one, else what the client sent. */
  displayName: string;
  /** The verified token's picture, if any. */
  photoURL?: string;
  /** The user's state (setState), `{}` when unset: what another client sent, so validate it. */
  state: Partial<S>;
  /** True when every live session of the user is away (hidden page, backgrounded app). */
  away: boolean;
  /** Live tabs or app instances of this user. */
  sessionCount: number;
  joinedAt: Date | null;
  isSelf: boolean;
}

/** Someone who left the roster within `recentlyLeftSeconds` and is not back. */
export interface Departure {
  participantId: string;
  displayName: string;
  photoURL?: string;
  /** Server time of the departure. */
  leftAt: Date | null;
  reason: 'left' | 'expired' | 'evicted' | (string & {});
}

export interface TypingSignal {
  participantId: string;
  displayName: string;
  /** Server time at which the signal lapses. */
  expiresAt: Date | null;
  isSelf: boolean;
}

export interface RoomEvents<S extends object = DefaultState> {
  /**
   * `reason` says what moved it: for `offline`, `platform` (the browser or
   * NetInfo said so), `network` or `timeout` (the last request's failure);
   * for `joined`, `join`, `rejoin`, `online` (back from offline, same
   * lease), `resume` or `rename`.
   */
  status: { status: RoomStatus; reason?: string };
  room: RoomInfo;
  /**
   * `revision` is the highest seen so far; it only increases, by any amount.
   * `count`: how many are in the room (in a large room the summary's, exact
   * at its revision, while `participants` is its sample and this user).
   */
  roster: { participants: Participant<S>[]; revision: number | null; count: number; mode: RoomMode };
  /**
   * The whole room anew, no per-user events for it: the roster listener
   * (re)started, the room switched mode, or a large room's summaries had a gap.
   */
  sync: { participants: Participant<S>[]; revision: number | null; count: number; mode: RoomMode };
  /** The room became large (the client follows its summary) or small again. */
  mode: { mode: RoomMode; previous: RoomMode };
  'participant-joined': { participant: Participant<S> };
  /** State, away, name or session count changed. */
  'participant-updated': { participant: Participant<S> };
  /** `reason` from the user's recently-left record when it arrived first, else 'left'. */
  'participant-left': { participant: Participant<S>; reason: Departure['reason'] };
  'recently-left': { recentlyLeft: Departure[] };
  revision: { revision: number; previous: number | null };
  typing: { typing: TypingSignal[] };
  receipts: { receipts: Record<string, number> };
  lease: { leaseExpiresAt: Date; generation: number };
  error: { error: RoomleaseError | Error; during: string };
}

/**
 * How a Room follows the room: 'roster' (every entry), or 'large' (the room
 * has a summary: a count, a sample and the changes, once a second at most).
 */
export type RoomMode = 'roster' | 'large';

/** One page of the whole roster (GET /v1/rooms/{roomId}/participants). */
export interface ParticipantsPage {
  roomId: string;
  /** The revision this page is at. */
  revision: number;
  participants: RoomSnapshot['participants'];
  /** Pass it as `pageToken` for the next page; absent after the last. */
  nextPageToken?: string;
}

export interface RoomSnapshot {
  roomId: string;
  state: 'active' | 'suspected_empty';
  revision: number;
  participants: { participantId: string; displayName: string; photoURL?: string; state: object; away: boolean; sessionCount: number; joinedAt: string }[];
  recentlyLeft?: { participantId: string; displayName: string; photoURL?: string; leftAt: string; reason: string }[];
}

/**
 * The API's error codes (README.md, "The API"), "network", "timeout", or
 * `http_<status>` for an answer without the documented body. Open-ended, so
 * that a newer server's codes still type-check. test/declarations.test.mjs
 * checks the named ones against the server's error table: every code the
 * server sends is named here, and every code named here is the server's or
 * one of the client's own (network, timeout, wrong_database).
 */
export type RoomleaseErrorCode =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'room_not_found'
  | 'not_found'
  | 'method_not_allowed'
  | 'stale_generation'
  | 'room_full'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'internal'
  /** Status 0: the request failed without an answer (no network, connection refused). */
  | 'network'
  /** Status 0: no answer within `requestTimeoutMs` (or a heartbeat's shorter bound); the request was aborted. */
  | 'timeout'
  /** 409: the user already holds the most live sessions allowed in this room (ROOMLEASE_MAX_SESSIONS_PER_USER). */
  | 'too_many_sessions'
  /** 409: the user is already in the most rooms allowed at once (ROOMLEASE_MAX_ROOMS_PER_USER). */
  | 'too_many_rooms'
  /** 401: App Check is enforced and the request's App Check token is missing or not valid. */
  | 'app_check_failed'
  /** 429: too many requests from this user on this instance; see retryAfterSeconds. */
  | 'rate_limited'
  /** 426: the server no longer serves this client's version (Roomlease-Client); upgrade @roomlease/client. */
  | 'client_too_old'
  /**
   * The client's own refusal (status 0): its listeners would read another
   * Firestore database than the server keeps its rooms in. The message
   * names both.
   */
  | 'wrong_database'
  | (string & {});

/** A Firestore database by its project and id. */
export interface DatabaseName {
  projectId: string;
  database: string;
}

export declare class RoomleaseError extends Error {
  constructor(status: number, code: string, message: string, retryAfterSeconds?: number | null);
  /** HTTP status; 0 when no answer is behind the error (`network`, `timeout`, `wrong_database`). */
  status: number;
  /** The API's error code (e.g. "stale_generation"), or "network" / "timeout". */
  code: RoomleaseErrorCode;
  /** The answer's Retry-After in seconds (always set on a 429 `rate_limited`), or null. */
  retryAfterSeconds: number | null;
  /** On `wrong_database`: where the server keeps its rooms. */
  serverDatabase?: DatabaseName;
  /** On `wrong_database`: where this client's listeners would have read. */
  clientDatabase?: DatabaseName;
}

/**
 * GET /v1/config: where to listen, and the server's timings. Checked
 * against the running server's reply by test/declarations.test.mjs.
 */
export interface ServerConfig {
  projectId: string;
  database: string;
  heartbeatSeconds: number;
  leaseSeconds: number;
  /** How long a departure stays in `recentlyLeft` (ROOMLEASE_RECENTLY_LEFT). */
  recentlyLeftSeconds: number;
  /**
   * Only from a server on the emulators (scripts/dev, the tests; a
   * deployment's reply has none), each part only for an emulator it uses:
   * where to connect the Firebase SDKs, as the README's quick start does.
   * The client itself reads none of it.
   */
  emulators?: {
    /** For connectFirestoreEmulator, and as it is the `firestoreEmulator` option. */
    firestore?: FirestoreEmulator;
    /** For connectAuthEmulator: `http://host:port`. */
    auth?: { url: string };
  };
}

export declare class Room<S extends object = DefaultState> {
  readonly client: RoomleaseClient;
  readonly roomId: string;
  readonly sessionId: string;
  displayName: string;
  participantId: string | null;
  generation: number | null;
  leaseSeconds: number | null;
  heartbeatSeconds: number | null;
  /** Server time at which the current lease ends. */
  leaseExpiresAt: Date | null;
  /** Server time at which the next heartbeat renews the lease (the server's `renewAt`); null from a server that does not say. */
  renewAt: Date | null;
  status: RoomStatus;
  room: RoomInfo | null;
  /** The highest revision seen (listener, join or refresh). Compare by order only. */
  revision: number | null;
  /** 'large' while the room has a summary: then `participants` is its sample and this user. */
  mode: RoomMode;
  /** How many are in the room: the roster's length, or a large room's summary count. */
  count: number;
  /**
   * The roster; in a large room the summary's sample (no state, sessionCount
   * 1) with this user's own entry, exact.
   */
  participants: Participant<S>[];
  /** Who left within recentlyLeftSeconds and is not back, newest first. */
  recentlyLeft: Departure[];
  /**
   * This user's state as last set here (sent again with a rejoin). After a
   * join the server held over the user's state budget, it is the state the
   * app asked for, which the roster shows once the client has sent it again
   * (POST …/state, after the reply's retryAfterSeconds).
   */
  state: S | null;
  /**
   * Whether this session's heartbeats say away: the mode the app asked for.
   * A toggle the server held waits, and goes again with a heartbeat soon after.
   */
  away: boolean;
  /** Unexpired typing signals, including this user's own (isSelf). */
  typing: TypingSignal[];
  /** Read positions by participant id. */
  receipts: Record<string, number>;
  lastReadSeq: number | null;
  readonly isFinished: boolean;

  on<K extends keyof RoomEvents<S>>(type: K, fn: (detail: RoomEvents<S>[K]) => void): () => void;
  /**
   * Replaces this user's state (a JSON object within the server's size
   * limit). A stale generation joins again with it. Rejects with 413
   * `payload_too_large` / 400 `invalid_argument` (too large or deep) and
   * 429 `rate_limited` (too fast); nothing is written then.
   */
  setState(state: S): Promise<{ state: S; revision: number }>;
  /** Says whether the user is away from this session; a change heartbeats at once. */
  setAway(away: boolean): void;
  setTyping(typing: boolean): Promise<void>;
  markRead(seq: number): Promise<number | null>;
  refresh(): Promise<RoomSnapshot>;
  /** One page of the whole roster through the API, in user id order (pageSize 1–500, default 100). */
  listParticipants(options?: { pageSize?: number; pageToken?: string }): Promise<ParticipantsPage>;
  leave(): Promise<{ removed: boolean }>;
  /** Stops heartbeating without leaving; listeners stay. */
  pause(): void;
  /** Heartbeats at once (rejoining on 409), or joins again after `away`. */
  resume(): Promise<void>;
  close(): void;
}

export declare class RoomleaseClient {
  constructor(options: ClientOptions);
  readonly apiUrl: string;
  /** The Firebase app the client opens the database from. */
  readonly app: FirebaseApp;
  /** The Firestore instance the listeners read: null until the first join or openFirestore(). */
  readonly firestore: Firestore | null;
  /** The server's database id ("(default)" or named): null until then too. */
  readonly database: string | null;
  readonly sessionId: string;
  readonly clockOffsetMs: number;
  /** The longest a request waits for its answer, in ms. */
  readonly requestTimeoutMs: number;
  readonly rooms: Map<string, Room>;
  /** The server's clock, estimated from API answers. */
  serverNow(): Date;
  /**
   * Asks the server which database holds its rooms (once) and opens it;
   * `join` does this first. Rejects with `wrong_database` when a
   * `firestore` passed in options is another database.
   */
  openFirestore(): Promise<Firestore>;
  /**
   * Joins a room. A join the server held over the user's state budget
   * resolves as any other (status `joined`); the client sends the state and
   * away flag it kept again once the budget has refilled, and joins again
   * for a held rename (a new `displayName` for a room already joined).
   */
  join<S extends object = DefaultState>(roomId: string, opts?: { displayName?: string; state?: S }): Promise<Room<S>>;
  /** Whether the user is away, in every room (the adapters call it from visibility and AppState). */
  setAwayAll(away: boolean): void;
  readonly away: boolean;
  pauseAll(): void;
  resumeAll(): Promise<void[]>;
  /** Checks every live room's lease now (tab shown, network back); ends `offline` if the API answers. */
  wakeAll(): void;
  /** The platform lost its network: every live room says `offline` now (the adapters call it). */
  goOffline(): void;
  /** Leaves every room without waiting (keepalive); resumeAll() joins again. */
  goAway(): void;
  close(): void;
}

export declare function createRoomleaseClient(options: ClientOptions): RoomleaseClient;
export declare function isValidSessionId(id: unknown): id is string;
export declare function newSessionId(): string;
export declare function memorySessionIds(fixedId?: string): SessionIds;
/** The larger of two revisions (null-safe): revisions are ordered, not counted. */
export declare function newerRevision(current: number | null, seen: number | null): number | null;
