// The client names its version on every call (Roomlease-Client), so that the
// server can say whether it still serves it (docs/upgrades.md, "Client
// compatibility").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { RoomleaseApi, CLIENT_VERSION } from '../src/api.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

test('CLIENT_VERSION is the package version', () => {
  assert.equal(CLIENT_VERSION, `js/${pkg.version}`);
});

test('every call sends Roomlease-Client, with a token or without', async () => {
  const sent = [];
  const fetch = async (url, init) => {
    sent.push(init.headers['Roomlease-Client']);
    return { ok: true, status: 200, headers: new Map(), json: async () => ({}) };
  };
  const auth = { currentUser: { getIdToken: async () => 'id-token' } };
  const api = new RoomleaseApi({ apiUrl: 'http://api.test', auth, fetch, now: Date.now });
  await api.call('POST', '/v1/rooms/r/join', { sessionId: 's' });
  await api.call('GET', '/v1/config', undefined, { anonymous: true });
  assert.deepEqual(sent, [CLIENT_VERSION, CLIENT_VERSION]);
});
