// What the hook tests against the running stack share (scripts/test-web:
// the API on a named database with short leases, the emulators): users
// with recorded API calls, and a second participant, a plain Node client,
// who watches the room, so that "no ghost" or "joined" is what another
// participant sees, not what the hook believes.
import { StrictMode, createElement as h } from 'react';
import { createRoomleaseClient } from '@roomlease/client/node';
import { RoomleaseProvider, useRoom } from '@roomlease/react';
import { newUser, recordingFetch, stackSuite, until } from '../../js/test/helpers.mjs';

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

/** A promise and the function that settles it: a request held until the test lets it go. */
export function gate() {
  let open;
  const opened = new Promise((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

export const isJoin = (url) => new URL(url).pathname.endsWith('/join');

/** What `promise` resolves to, failing (rather than hanging) if it has not settled within `ms`. */
export async function settled(what, promise, ms) {
  let out = null;
  promise.then((value) => {
    out = { value };
  }, (error) => {
    out = { error };
  });
  await until(what, () => out, ms);
  if (out.error) throw out.error;
  return out.value;
}

function Part({ roomId, seen }) {
  seen.value = useRoom(roomId, { displayName: 'Ada' });
  return null;
}

/**
 * A StrictMode tree with one component that holds roomId under key `key`
 * (none for null); `seen.value` is what its useRoom returned.
 */
export const tree = (client, roomId, seen, key) => h(StrictMode, null, h(RoomleaseProvider, { client },
  key === null ? null : h(Part, { key, roomId, seen })));
