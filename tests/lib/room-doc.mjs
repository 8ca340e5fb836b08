// The server's truth about a room, for tests: whether its document exists,
// read from the Firestore emulator as its owner ("Bearer owner" bypasses
// the security rules). Clients cannot know this once they have left, by
// design; the tests check that what the client showed was right.

const databases = new Map();

/**
 * The database the API keeps its rooms in, as GET /v1/config names it
 * (`config.database` when the caller already asked).
 */
async function serverDatabase(config) {
  if (config.database) return config.database;
  if (!databases.has(config.apiUrl)) {
    databases.set(config.apiUrl, fetch(`${config.apiUrl}/v1/config`).then(async (res) => {
      if (!res.ok) throw new Error(`GET ${config.apiUrl}/v1/config: ${res.status}`);
      return (await res.json()).database;
    }));
  }
  return databases.get(config.apiUrl);
}

async function documentsUrl(config) {
  const base = `http://${config.firestoreEmulatorHost}:${config.firestoreEmulatorPort}`;
  return `${base}/v1/projects/${config.projectId}/databases/${encodeURIComponent(await serverDatabase(config))}/documents`;
}

/** @returns {Promise<boolean>} whether rooms/{roomId} exists on the emulator. */
export async function roomDocExists(config, roomId) {
  const url = `${await documentsUrl(config)}/rooms/${encodeURIComponent(roomId)}`;
  const res = await fetch(url, { headers: { Authorization: 'Bearer owner' } });
  if (res.status === 404) return false;
  if (res.ok) return true;
  throw new Error(`reading rooms/${roomId} on the emulator: ${res.status} ${await res.text()}`);
}

/**
 * One document on the emulator, read and written as its owner (rules
 * bypassed), for tests that must change what only the server writes.
 * docPath is slash-separated, e.g. `rooms/r1/participants/uid`.
 */
export function ownerDocument(config, docPath) {
  const call = async (method, body) => {
    const url = `${await documentsUrl(config)}/${docPath.split('/').map(encodeURIComponent).join('/')}`;
    const res = await fetch(url, {
      method,
      headers: { Authorization: 'Bearer owner', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${docPath} on the emulator: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    /** @returns {Promise<{fields: object}>} the document, in the REST API's shape */
    get: () => call('GET'),
    delete: () => call('DELETE'),
    /** Creates or replaces the document with these fields (REST API shape). */
    put: (fields) => call('PATCH', { fields }),
  };
}
