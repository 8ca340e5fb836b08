// Types for @roomlease/client/react-native.
import type { ClientOptions, RoomleaseClient, SessionIds } from './index.js';
export { Room, RoomleaseClient, RoomleaseError } from './index.js';
export type * from './index.js';

/** The part of React Native's AppState the adapter uses. */
export interface AppStateLike {
  currentState?: string | null;
  addEventListener(type: 'change', fn: (state: string) => void): { remove(): void } | undefined;
}

/** AsyncStorage or anything with the same two methods (sync or async). */
export interface StorageLike {
  getItem(key: string): Promise<string | null> | string | null;
  setItem(key: string, value: string): Promise<void> | void;
}

/** The part of NetInfo's state the adapter reads. */
export interface NetInfoStateLike {
  isConnected: boolean | null;
  isInternetReachable?: boolean | null;
}

/** The part of NetInfo (`@react-native-community/netinfo`) the adapter uses. */
export interface NetInfoLike {
  addEventListener(listener: (state: NetInfoStateLike) => void): () => void;
}

export type ReactNativeOptions = ClientOptions & {
  appState: AppStateLike;
  /** Keeps the app instance's session id across launches (default: memory only). */
  storage?: StorageLike;
  /** What going to the background does (default 'keep'). */
  background?: 'keep' | 'pause' | 'leave';
  /**
   * NetInfo, for the `offline` status as soon as the device loses its
   * connection (default: `@react-native-community/netinfo` if installed;
   * null: none). Without it, rooms go `offline` when requests fail.
   */
  netInfo?: NetInfoLike | null;
};

export declare function createRoomleaseClient(options: ReactNativeOptions): RoomleaseClient;
export declare function followAppState(client: RoomleaseClient, appState: AppStateLike, background: 'keep' | 'pause' | 'leave'): () => void;
export declare function followNetInfo(client: RoomleaseClient, netInfo: NetInfoLike): () => void;
export declare function storedSessionIds(storage?: StorageLike, fixedId?: string): SessionIds;
