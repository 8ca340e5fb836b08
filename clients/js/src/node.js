// The Node adapter: bots, recorders, scripts and tests. A Node process has
// no page or app lifecycle, so nothing is hooked: the session id lives in
// memory for the life of the client, heartbeats run on plain timers, and the
// process calls room.leave() (or lets the lease end) itself.
import { RoomleaseClient } from './client.js';

export { RoomleaseClient } from './client.js';
export { Room } from './room.js';
export { RoomleaseError } from './api.js';

/** @param {import('../types/index').ClientOptions} options */
export function createRoomleaseClient(options) {
  return new RoomleaseClient(options);
}
