// Types for @roomlease/client/node.
import type { ClientOptions, RoomleaseClient } from './index';
export { Room, RoomleaseClient, RoomleaseError } from './index';
export type * from './index';

export declare function createRoomleaseClient(options: ClientOptions): RoomleaseClient;
