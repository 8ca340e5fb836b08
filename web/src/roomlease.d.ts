// Types for roomlease.js, the roomlease web client. See docs/clients.md.
import type { Auth } from 'firebase/auth';
import type { Firestore } from 'firebase/firestore';

export interface ClientOptions {
  /** Base URL of the roomlease API, e.g. "https://presence.example.com". */
  apiUrl: string;
  /** A Firebase Auth instance with a signed-in user before `join`. */
  auth: Auth;
  /** The Firestore instance listeners read from. */
  firestore: Firestore;
  /** Fraction by which a heartbeat interval may be shortened at random (default 0.2). */
  heartbeatJitter?: number;
  /** How often a continued `setTyping(true)` is re-sent, in seconds (default 2). */
  typingRefreshSeconds?: number;
  /** Overrides fetch (tests). */
  fetch?: typeof fetch;
  /** Where the per-tab session id is kept (default sessionStorage; null: memory only). */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** A fixed session id instead of the stored one. */
  sessionId?: string;
}

export type RoomStatus =
  | 'joining' // first join in flight
  | 'joined' // holding a lease, heartbeating
  | 'rejoining' // the server answered 409: joining again with a new generation
  | 'left' // left on purpose (or the page was hidden for good)
  | 'crashed' // simulateCrash(): heartbeats stopped, nothing sent
  | 'expired' // after a simulated crash, the server removed this user from the roster
  | 'denied' // the room's policy refused this user
  | 'closed'; // close(): stopped without leaving

export type RoomState = 'active' | 'suspected_empty' | 'deleted';

export interface RoomInfo {
  /** false once the room was torn down; null when it can no longer be seen. */
  exists: boolean | null;
  /** false when the rules no longer let this user read the room (left an occupied room). */
  visible: boolean;
  state?: RoomState;
  generation?: number | null;
  revision?: number | null;
  participantCount?: number;
  peakParticipants?: number;
  /** Server time at which an empty room may be torn down; null while active. */
  cleanupAfter?: Date | null;
  updatedAt?: Date | null;
}

export interface Participant {
  participantId: string;
  displayName: string;
  /** Live tabs or app instances of this user. */
  sessionCount: number;
  joinedAt: Date | null;
  isSelf: boolean;
}

export interface TypingSignal {
  participantId: string;
  displayName: string;
  /** Server time at which the signal lapses. */
  expiresAt: Date | null;
  isSelf: boolean;
}

export interface RoomEvents {
  status: { status: RoomStatus; reason?: string };
  room: RoomInfo;
  roster: { participants: Participant[]; revision: number | null };
  typing: { typing: TypingSignal[] };
  receipts: { receipts: Record<string, number> };
  lease: { leaseExpiresAt: Date; generation: number };
  gap: { from: number; to: number };
  error: { error: RoomleaseError | Error; during: string };
}

export interface RoomSnapshot {
  roomId: string;
  state: 'active' | 'suspected_empty';
  revision: number;
  participants: { participantId: string; displayName: string; sessionCount: number; joinedAt: string }[];
}

export declare class RoomleaseError extends Error {
  constructor(status: number, code: string, message: string);
  /** HTTP status; 0 when the API could not be reached. */
  status: number;
  /** The API's error code (e.g. "stale_generation"), or "network". */
  code: string;
}

export declare class Room {
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
  status: RoomStatus;
  room: RoomInfo | null;
  /** The room's revision as last seen (room document or join). */
  revision: number | null;
  participants: Participant[];
  /** Unexpired typing signals, including this user's own (isSelf). */
  typing: TypingSignal[];
  /** Read positions by participant id. */
  receipts: Record<string, number>;
  lastReadSeq: number | null;
  readonly isFinished: boolean;

  on<K extends keyof RoomEvents>(type: K, fn: (detail: RoomEvents[K]) => void): () => void;
  setTyping(typing: boolean): Promise<void>;
  markRead(seq: number): Promise<number | null>;
  refresh(): Promise<RoomSnapshot>;
  leave(): Promise<{ removed: boolean }>;
  simulateCrash(): void;
  resume(): Promise<void>;
  close(): void;
}

export declare class RoomleaseClient {
  constructor(options: ClientOptions);
  readonly apiUrl: string;
  readonly sessionId: string;
  readonly clockOffsetMs: number;
  readonly rooms: Map<string, Room>;
  serverNow(): Date;
  join(roomId: string, opts?: { displayName?: string }): Promise<Room>;
  close(): void;
}

export declare function createRoomleaseClient(options: ClientOptions): RoomleaseClient;
