// What the hook tests against the running stack share (scripts/test-web:
// the API on a named database with short leases, the emulators): users
// with recorded API calls, and a second participant, a plain Node client,
// who watches the room, so that "no ghost" or "joined" is what another
// participant sees, not what the hook believes.
import { createRoomleaseClient } from '@roomlease/client/node';
import { newUser, recordingFetch, stackSuite } from '../../js/test/helpers.mjs';

/**
 * Join requests the hooks made: all joins but those the client's lease
 * loop sent after a heartbeat was answered 409 (a lease lost on a slow
 * machine is the client's business, not a second mount's).
 */
export const hookJoins = (rec) => rec.of('join').length - rec.of('heartbeat').filter((c) => c.status === 409).length;

export const sameNames = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** For a describe(): the stack suite, and users and observers cleaned up after it. */
export function reactStack() {
  const suite = stackSuite();
  const { cleanups } = suite;

  /**
   * A user with a Node client whose API calls are recorded (`rec`),
   * signed in unless `signIn` is false; `fetch` is the network under the
   * recorder, `clientOptions` go to the client.
   */
  async function user({ fetch, clientOptions, signIn = true } = {}) {
    const u = await newUser(suite.config, { signIn });
    const rec = recordingFetch(fetch);
    const client = createRoomleaseClient({
      apiUrl: suite.config.apiUrl, auth: u.auth, app: u.app, firestoreEmulator: u.firestoreEmulator, fetch: rec.fetch, ...clientOptions,
    });
    cleanups.push(async () => {
      client.close();
      await u.close();
    });
    return { ...u, client, rec };
  }

  /** A second participant who watches the room with the plain client. */
  async function observer(roomId) {
    const u = await user();
    const room = await u.client.join(roomId, { displayName: 'Observer' });
    cleanups.push(() => room.leave().catch(() => {}));
    return room;
  }

  return { suite, cleanups, user, observer };
}
