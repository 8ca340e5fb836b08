// The server's truth about a room, for tests: whether its document exists,
// read from the Firestore emulator as its owner ("Bearer owner" bypasses
// the security rules). Clients cannot know this once they have left, by
// design; the tests check that what the client showed was right.

/** @returns {Promise<boolean>} whether rooms/{roomId} exists on the emulator. */
export async function roomDocExists(config, roomId) {
  const base = `http://${config.firestoreEmulatorHost}:${config.firestoreEmulatorPort}`;
  const url = `${base}/v1/projects/${config.projectId}/databases/(default)/documents/rooms/${encodeURIComponent(roomId)}`;
  const res = await fetch(url, { headers: { Authorization: 'Bearer owner' } });
  if (res.status === 404) return false;
  if (res.ok) return true;
  throw new Error(`reading rooms/${roomId} on the emulator: ${res.status} ${await res.text()}`);
}
