// Types for @roomlease/client/browser.
import type { ClientOptions, RoomleaseClient } from './index.js';
export { Room, RoomleaseClient, RoomleaseError } from './index.js';
export type * from './index.js';

export type BrowserOptions = ClientOptions & {
  /** Where the per-tab session id is kept (default sessionStorage; null: memory only). */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
};

export declare function createRoomleaseClient(options: BrowserOptions): RoomleaseClient;
