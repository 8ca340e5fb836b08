// Which Firestore database a client's listeners read. The server keeps its
// rooms in one database (ROOMLEASE_DATABASE: "roomlease" in a Terraform
// deployment, "(default)" unless set), while the Firebase SDKs open
// "(default)" unless told otherwise. A listener on another database fails
// nothing: it shows a room that stays empty. So the client never guesses:
// it asks the server (GET /v1/config) before its first join, opens that
// database itself from the app, and checks every join reply against it.
// An instance the app opened itself is accepted only if it is the server's
// database; otherwise the client refuses to go on, naming both.
import { connectFirestoreEmulator, getFirestore } from 'firebase/firestore';
import { RoomleaseError } from './api.js';

export const DEFAULT_DATABASE = '(default)';

/**
 * The project and database a Firestore instance of the Firebase JS SDK
 * reads, or null for anything else. The SDK keeps them in `_databaseId`
 * (and in `toJSON()`); it has no public getter.
 * @returns {{projectId: string, database: string} | null}
 */
export function databaseOf(firestore) {
  let id = firestore && firestore._databaseId;
  if (!id && firestore && typeof firestore.toJSON === 'function') id = firestore.toJSON().databaseId;
  if (!id || typeof id.database !== 'string' || typeof id.projectId !== 'string') return null;
  return { projectId: id.projectId, database: id.database };
}

const describe = ({ projectId, database }) => `database "${database}" of project "${projectId}"`;

const WHY = {
  // The app passed a Firestore instance of another database.
  given: {
    what: 'the Firestore instance given to the roomlease client reads',
    fix: (server) => `Pass the Firebase app as \`app\` instead of \`firestore\`: the client then opens "${server.database}" itself.`,
  },
  // The app's Firebase configuration names another project.
  project: {
    what: 'the Firebase app given to the roomlease client is for',
    fix: () => 'Initialise the Firebase app with the project the server uses.',
  },
  // A join reply names another database than the one this client opened.
  moved: {
    what: 'this roomlease client listens to',
    fix: () => 'The server has moved to another database since this client asked: create a new client.',
  },
};

/**
 * The error for listeners that would read another database than the
 * server writes: a RoomleaseError with code `wrong_database` whose message
 * names both.
 * @param {{server: {projectId: string, database: string}, local: {projectId: string, database: string}, apiUrl: string, why: 'given' | 'project' | 'moved'}} args
 */
export function wrongDatabase({ server, local, apiUrl, why }) {
  const { what, fix } = WHY[why];
  const err = new RoomleaseError(0, 'wrong_database',
    `${what} ${describe(local)}, but the roomlease server at ${apiUrl} keeps its rooms in ${describe(server)}: `
    + `listeners there would show every room empty. ${fix(server)}`);
  err.serverDatabase = server;
  err.clientDatabase = local;
  return err;
}

/**
 * Opens the Firestore instance the listeners read: the server's database,
 * from `app`, connected to the emulator when `emulator` says so; or the
 * instance the app gave (`given`), if it is that database. Throws the
 * `wrong_database` RoomleaseError otherwise.
 * @param {{projectId?: string, database?: string}} serverConfig GET /v1/config's answer
 */
export function openDatabase(serverConfig, { app, given, emulator, apiUrl }) {
  const server = {
    projectId: serverConfig.projectId || app.options.projectId,
    database: serverConfig.database || DEFAULT_DATABASE,
  };
  let firestore = given;
  if (!firestore) {
    if (app.options.projectId && app.options.projectId !== server.projectId) {
      throw wrongDatabase({ server, local: { projectId: app.options.projectId, database: server.database }, apiUrl, why: 'project' });
    }
    firestore = getFirestore(app, server.database);
    // A no-op when the app already connected this instance the same way.
    if (emulator) connectFirestoreEmulator(firestore, emulator.host, Number(emulator.port));
  }
  const local = databaseOf(firestore);
  if (local.projectId !== server.projectId || local.database !== server.database) {
    throw wrongDatabase({ server, local, apiUrl, why: given ? 'given' : 'project' });
  }
  return { firestore, database: server.database };
}
