// @roomlease/client: the platform-free core. Apps usually import an adapter
// instead: '@roomlease/client/browser', '/react-native' or '/node'. The core
// is what they share; use it directly to supply every platform piece
// yourself (session ids, timers, fetch, clock).
import { RoomleaseClient } from './client.js';

export { RoomleaseClient } from './client.js';
export { Room } from './room.js';
export { RoomleaseError } from './api.js';
export { isValidSessionId, memorySessionIds, newSessionId } from './session-ids.js';
export { newerRevision } from './revision.js';

/** @param {import('../types/index').ClientOptions} options */
export function createRoomleaseClient(options) {
  return new RoomleaseClient(options);
}
