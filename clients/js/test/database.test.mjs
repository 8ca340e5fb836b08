// The database handshake: the server names the Firestore database it keeps
// its rooms in, and the client listens there or refuses to go on. The Firebase
// SDKs open "(default)" unless told otherwise, and a listener on the wrong
// database fails nothing: it shows a room that stays empty. scripts/test-web
// runs the dev server on a named database (ROOMLEASE_DATABASE), as a Terraform
// deployment does, so that a client on "(default)" would see nothing here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteApp, initializeApp } from 'firebase/app';
import { getAuth } from 'firebase/auth';
import { connectFirestoreEmulator, getFirestore } from 'firebase/firestore';
import { createRoomleaseClient } from '@roomlease/client/node';
import { RoomleaseError } from '@roomlease/client';
import { loadConfig, namesOf, newUser, recordingFetch, roomName, until } from './helpers.mjs';
import { ownerDocument, roomDocExists } from '../../../tests/lib/room-doc.mjs';

/** Whether a document exists in the server's database, read as its owner. */
async function exists(config, docPath) {
  try {
    await ownerDocument(config, docPath).get();
    return true;
  } catch (err) {
    if (/: 404 /.test(err.message)) return false;
    throw err;
  }
}

/** Asserts err is the client's wrong_database refusal naming both databases. */
function wrongDatabase(server, client) {
  return (err) => {
    assert.ok(err instanceof RoomleaseError, `${err}`);
    assert.equal(err.code, 'wrong_database');
    assert.equal(err.status, 0);
    assert.ok(err.message.includes(`"${server}"`), `the message names the server's database ${server}: ${err.message}`);
    assert.ok(err.message.includes(`"${client}"`), `the message names the client's database ${client}: ${err.message}`);
    assert.equal(err.serverDatabase.database, server);
    assert.equal(err.clientDatabase.database, client);
    return true;
  };
}

describe('the database handshake', () => {
  let config;
  const cleanups = [];

  before(async () => {
    config = await loadConfig();
  });

  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  async function userWith(options, userOptions) {
    const user = await newUser(config, userOptions);
    const rec = recordingFetch();
    const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: user.auth, fetch: rec.fetch, ...options(user) });
    cleanups.push(async () => {
      client.close();
      await user.close();
    });
    return { user, client, rec };
  }

  test('GET /v1/config names the named database the stack runs on, without a token', async () => {
    const res = await fetch(`${config.apiUrl}/v1/config`);
    assert.equal(res.status, 200);
    const body = await res.json();
    // On the emulators, as here, the reply also names them (docs/api.md).
    assert.deepEqual(Object.keys(body).sort(), ['database', 'emulators', 'heartbeatSeconds', 'leaseSeconds', 'projectId', 'recentlyLeftSeconds']);
    assert.deepEqual(body.emulators, {
      firestore: { host: config.firestoreEmulatorHost, port: Number(config.firestoreEmulatorPort) },
      auth: { url: config.authEmulatorUrl },
    }, 'the emulators the stack runs on, as the SDKs connect to them');
    assert.equal(body.projectId, config.projectId);
    assert.equal(body.heartbeatSeconds, config.heartbeatSeconds);
    assert.equal(body.leaseSeconds, config.leaseSeconds);
    assert.equal(body.database, process.env.ROOMLEASE_DATABASE, 'the database scripts/test-web started the API with');
    assert.notEqual(body.database, '(default)', 'these tests mean something only on a named database');
  });

  test('a client given the app opens the server\'s database, and both users see the roster', async () => {
    // Nothing opened beforehand: the client opens the database itself.
    const byApp = (user) => ({ app: user.app, firestoreEmulator: user.firestoreEmulator });
    const ada = await userWith(byApp, { openFirestore: false });
    const grace = await userWith(byApp, { openFirestore: false });
    const room = roomName('db-app');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    const g = await grace.client.join(room, { displayName: 'Grace' });
    assert.equal(ada.client.database, config.database);
    for (const [who, r] of [['Ada', a], ['Grace', g]]) {
      await until(`${who} sees Ada and Grace`, () => namesOf(r).join() === 'Ada,Grace', 10_000);
    }
    // The roster is where the listeners read, and only there.
    assert.ok(await exists(config, `rooms/${room}/participants/${ada.user.uid}`), `Ada's entry in ${config.database}`);
    assert.equal(await roomDocExists({ ...config, database: '(default)' }, room), false, 'nothing in (default)');
    assert.deepEqual(ada.rec.of('config').map((c) => c.status), [200], 'the client asked once');
  });

  test('a client given a Firestore instance of (default) refuses to join, naming both databases, and writes nothing', async () => {
    const ada = await userWith((user) => {
      const wrong = getFirestore(user.app);
      connectFirestoreEmulator(wrong, user.firestoreEmulator.host, user.firestoreEmulator.port);
      return { firestore: wrong };
    }, { openFirestore: false });
    const room = roomName('db-wrong');
    await assert.rejects(ada.client.join(room, { displayName: 'Ada' }), wrongDatabase(config.database, '(default)'));
    assert.deepEqual(ada.rec.calls.map((c) => c.action), ['config'], 'nothing but the config was asked for: no join');
    assert.equal(await roomDocExists(config, room), false, 'no room was created');
    assert.equal(ada.client.rooms.size, 0);
    assert.equal(ada.client.firestore, null, 'the client kept no database to listen to');
  });

  test('a Firestore instance the app opened on the server\'s database is accepted', async () => {
    const ada = await userWith((user) => ({ firestore: getFirestore(user.app, config.database) }));
    const a = await ada.client.join(roomName('db-own'), { displayName: 'Ada' });
    assert.equal(ada.client.firestore, getFirestore(ada.user.app, config.database));
    await until('Ada sees herself', () => namesOf(a).join() === 'Ada', 10_000);
  });

  test('an app configured for another project is refused before anything is sent but the config request', async () => {
    const app = initializeApp({ apiKey: 'demo-api-key', projectId: 'demo-another-project' }, `other-${Date.now()}`);
    cleanups.push(() => deleteApp(app).catch(() => {}));
    const rec = recordingFetch();
    const client = createRoomleaseClient({ apiUrl: config.apiUrl, auth: getAuth(app), app, fetch: rec.fetch });
    await assert.rejects(client.openFirestore(), (err) => {
      assert.equal(err.code, 'wrong_database');
      assert.ok(err.message.includes('"demo-another-project"') && err.message.includes(`"${config.projectId}"`), err.message);
      return true;
    });
    assert.deepEqual(rec.calls.map((c) => c.action), ['config']);
  });

  test('a config request that fails fails the join, and the next join asks again', async () => {
    let refused = 0;
    const ada = await userWith((user) => ({
      app: user.app,
      firestoreEmulator: user.firestoreEmulator,
      fetch: async (url, init) => {
        if (new URL(url).pathname === '/v1/config' && refused++ === 0) throw new TypeError('fetch failed');
        return fetch(url, init);
      },
    }));
    const room = roomName('db-retry');
    await assert.rejects(ada.client.join(room, { displayName: 'Ada' }), (err) => err instanceof RoomleaseError && err.code === 'network');
    assert.equal(await roomDocExists(config, room), false, 'no join without knowing the database');
    const a = await ada.client.join(room, { displayName: 'Ada' });
    assert.equal(refused, 2, 'the second join asked for the config again');
    await until('Ada sees herself', () => namesOf(a).join() === 'Ada', 10_000);
  });

  test('a join reply naming another database (the server moved) gives the lease back and fails loudly', async () => {
    const ada = await userWith((user) => ({
      app: user.app,
      firestoreEmulator: user.firestoreEmulator,
      // The server as it would answer after a migration: the config this
      // client asked for first named one database, the join another.
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if (!new URL(url).pathname.endsWith('/join') || !res.ok) return res;
        const body = { ...(await res.json()), database: 'roomlease-moved' };
        return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
      },
    }));
    const room = roomName('db-moved');
    await assert.rejects(ada.client.join(room, { displayName: 'Ada' }), wrongDatabase('roomlease-moved', config.database));
    await until('the lease the join took is given back', async () => !(await exists(config, `rooms/${room}/participants/${ada.user.uid}`)), 10_000);
  });
});
