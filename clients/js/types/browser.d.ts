// Types for @roomlease/client/browser.
import type { ClientOptions, RoomleaseClient } from './index';
export { Room, RoomleaseClient, RoomleaseError } from './index';
export type * from './index';

export interface BrowserOptions extends ClientOptions {
  /** Where the per-tab session id is kept (default sessionStorage; null: memory only). */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
}

export declare function createRoomleaseClient(options: BrowserOptions): RoomleaseClient;
