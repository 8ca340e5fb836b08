// Types for @roomlease/client/node.
import type { ClientOptions, RoomleaseClient } from './index.js';
export { Room, RoomleaseClient, RoomleaseError } from './index.js';
export type * from './index.js';

export declare function createRoomleaseClient(options: ClientOptions): RoomleaseClient;
