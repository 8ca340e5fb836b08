// The browser adapter: one session id per tab in sessionStorage with the
// duplicate-tab check (session-id.js), heartbeat timers in a worker so that
// hidden tabs stay on time (ticker.js), and the page lifecycle
// (page-lifecycle.js): keepalive leave on pagehide, rejoin from the
// back/forward cache, a lease check when the tab is shown or back online,
// and the `offline` status as soon as the browser loses its network.
import { RoomleaseClient } from '../client.js';
import { followPageLifecycle } from './page-lifecycle.js';
import { TabSessionId } from './session-id.js';
import { createTicker } from './ticker.js';

export { RoomleaseClient } from '../client.js';
export { Room } from '../room.js';
export { RoomleaseError } from '../api.js';

/**
 * @param {import('../../types/browser').BrowserOptions} options
 */
export function createRoomleaseClient(options) {
  const { storage, ...rest } = options || {};
  const client = new RoomleaseClient({
    ...rest,
    sessionIds: rest.sessionIds || new TabSessionId(storage, rest.sessionId),
    timers: rest.timers || createTicker(),
  });
  client._addCloser(followPageLifecycle(client));
  return client;
}
