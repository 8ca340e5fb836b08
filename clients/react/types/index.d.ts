// Types for @roomlease/react.
import type { ReactElement, ReactNode } from 'react';
import type {
  DefaultState, Departure, Participant, Room, RoomleaseClient, RoomleaseError, RoomMode, RoomStatus, TypingSignal,
} from '@roomlease/client';

/**
 * The client's statuses, and `idle`: no room id was given, nothing is
 * joined. A first join that failed for a reason that passes (no user
 * signed in yet, no network, a 5xx, a 429) stays `joining`, with `error`,
 * and is tried again with backoff while mounted; one that a retry cannot
 * fix shows `denied` (403) or `closed`, with `error` saying which.
 */
export type RoomHookStatus = RoomStatus | 'idle';

export interface RoomleaseProviderProps {
  /** A client from @roomlease/client (/browser, /react-native or /node). The app creates and closes it. */
  client: RoomleaseClient;
  children?: ReactNode;
}

/** Makes the client available to the hooks below it. */
export declare function RoomleaseProvider(props: RoomleaseProviderProps): ReactElement;

/** The client of the nearest RoomleaseProvider; throws without one. */
export declare function useRoomleaseClient(): RoomleaseClient;

export interface UseRoomOptions<S extends object = DefaultState> {
  /** Sent with the join; a later change renames this user in the room. */
  displayName?: string;
  /** This user's state at the join; change it later with setState. */
  state?: S;
}

/** What a room shows: one immutable snapshot per change. */
export interface RoomView<S extends object = DefaultState> {
  status: RoomHookStatus;
  /**
   * The live roster, this user included (isSelf); [] until the first roster
   * arrives. In a large room (`mode` 'large'), the summary's sample and this user.
   */
  participants: Participant<S>[];
  /** 'large' while the room has a summary, which the client then follows instead of the roster. */
  mode: RoomMode;
  /** How many are in the room: the roster's length, or a large room's summary count; 0 before the join. */
  count: number;
  /** This user's own roster entry, or null. */
  me: Participant<S> | null;
  /** Others' unexpired typing signals (this user's own is not listed). */
  typing: TypingSignal[];
  /** Who left within recentlyLeftSeconds and is not back, newest first. */
  recentlyLeft: Departure[];
  /** Read positions by participant id. */
  receipts: Record<string, number>;
  /** The highest roster revision seen; compare by order only. */
  revision: number | null;
  /** This user's state as last accepted. */
  state: S | null;
  /** Whether this session's heartbeats say away. */
  away: boolean;
  /**
   * While `joining`: the last failed try (retried meanwhile). With `denied`
   * or `closed`: the refusal that ended the join. Once joined: the last
   * failed request until the lease is next renewed.
   */
  error: RoomleaseError | Error | null;
  /** The client's Room, once joined: everything the hooks do not cover. */
  room: Room<S> | null;
}

export interface RoomActions<S extends object = DefaultState> {
  /** Says whether this user is typing; call it on every keystroke. A no-op before the join. */
  setTyping(typing: boolean): Promise<void>;
  /** Replaces this user's state (waits for the join). */
  setState(state: S): Promise<{ state: S; revision: number }>;
  /** Records this user's read position (waits for the join). */
  markRead(seq: number): Promise<number | null>;
  /**
   * Leaves the room now (status `left`) for every component sharing it,
   * and stops a join still being retried; unmounting leaves too. A
   * component mounted for the room afterwards joins again.
   */
  leave(): Promise<{ removed: boolean }>;
}

export type UseRoomResult<S extends object = DefaultState> = RoomView<S> & RoomActions<S>;

/**
 * Joins roomId while the component is mounted: every component asking for
 * the same room shares one join, StrictMode's double mount included, and
 * the room is left once the last one unmounts. A null, undefined or empty
 * roomId joins nothing (status `idle`). A failed join is retried while
 * mounted unless a retry cannot fix it (see RoomHookStatus).
 */
export declare function useRoom<S extends object = DefaultState>(
  roomId: string | null | undefined,
  options?: UseRoomOptions<S>,
): UseRoomResult<S>;

/**
 * The roster of a room that a useRoom in the tree holds (joins nothing); []
 * until then. Warns in development when no useRoom holds the room.
 */
export declare function useParticipants<S extends object = DefaultState>(roomId: string | null | undefined): Participant<S>[];

/**
 * Others typing in a room that a useRoom in the tree holds, and setTyping
 * for this user. Joins nothing; warns in development as useParticipants does.
 */
export declare function useTyping(roomId: string | null | undefined): {
  typing: TypingSignal[];
  setTyping(typing: boolean): Promise<void>;
};
