// Helpers for the client package's Node tests. scripts/test-web starts the
// emulators and roomlease-dev (short lease timings) and sets
// ROOMLEASE_E2E_WEB_URL; /config.json there names the API, the emulators
// and the timings, so these tests follow whatever the server runs with.
import { createServer } from 'node:http';
import { after, before } from 'node:test';
import { deleteApp, initializeApp, onLog } from 'firebase/app';
import { connectAuthEmulator, getAuth, signInAnonymously } from 'firebase/auth';
import { until as untilOnce } from '../../../tests/lib/poll.mjs';
import {
  connectFirestoreEmulator, disableNetwork, enableNetwork, getFirestore, terminate,
} from 'firebase/firestore';

const WEB_URL = (process.env.ROOMLEASE_E2E_WEB_URL || '').replace(/\/+$/, '');
// Slack for a loaded two-core machine: scheduling, listener delivery.
export const SLACK_MS = Number(process.env.ROOMLEASE_E2E_SLACK_SECONDS || 10) * 1000;
export const SWEEP_MS = Number(process.env.ROOMLEASE_E2E_SWEEP_SECONDS || 1) * 1000;

let configPromise = null;

/**
 * For a describe() of tests against the stack: loads the config before
 * them (`suite.config`), and afterwards runs what they pushed onto
 * `suite.cleanups`, last first.
 */
export function stackSuite() {
  const suite = { config: null, cleanups: [] };
  before(async () => {
    suite.config = await loadConfig();
  });
  after(async () => {
    for (const fn of suite.cleanups.reverse()) await fn();
  });
  return suite;
}

/**
 * The dev server's /config.json, and `database`: the Firestore database the
 * API keeps its rooms in (GET /v1/config; scripts/test-web runs it on a
 * named one). Fails the test when the stack is not running.
 */
export function loadConfig() {
  if (!WEB_URL) throw new Error('ROOMLEASE_E2E_WEB_URL is not set: run these tests through scripts/test-web');
  configPromise ??= (async () => {
    const r = await fetch(`${WEB_URL}/config.json`);
    if (!r.ok) throw new Error(`${WEB_URL}/config.json answered ${r.status}`);
    const config = await r.json();
    const api = await fetch(`${config.apiUrl}/v1/config`);
    if (!api.ok) throw new Error(`${config.apiUrl}/v1/config answered ${api.status}`);
    return { ...config, database: (await api.json()).database };
  })();
  return configPromise;
}

let appSeq = 0;

// The Firestore emulator now and then breaks the framing of a Listen stream
// (firebase-tools issue #8654): the SDK reads a length prefix out of the
// middle of a message, reports RESOURCE_EXHAUSTED "Received message larger
// than max", takes it for a real quota error and waits its longest backoff,
// about a minute, before it listens again. Production Firestore does not do
// this, and no test here is about quota errors, so when it happens every
// live user's network is restarted at once (an intentional restart resets
// the backoff), and the test output says so. A wait (until, below) that
// overlapped such a restart and timed out is given its full time once more.
// Nothing else is retried: a listener that is merely slow, with no restart
// during its wait, still fails its test. (Twice in CI a room joined just
// as a stream broke showed no roster even after the restart: the client
// did not hear the server confirm the summary's cached first snapshot.
// That was the client's bug, fixed in clients/js/src/confirmed.js and
// forced by "listeners started while Firestore is offline…".)
const liveFirestores = new Set();
let framingWorkaround = false;
let lastFramingRestart = 0; // Date.now() of the last restart, 0: none yet
function restartListenersOnEmulatorFramingErrors() {
  if (framingWorkaround) return;
  framingWorkaround = true;
  // The SDK logs the framing error when the message arrives, and only later,
  // as it closes the stream, "Using maximum backoff delay" and sets the
  // backoff to its longest. A restart run before that is undone by it, so
  // both lines schedule one, a moment after the last of them: by then the
  // stream waits in its backoff, and an intentional restart resets it.
  let pending = null;
  onLog(({ message }) => {
    const text = String(message);
    if (!text.includes('Received message larger than max') && !text.includes('Using maximum backoff delay')) return;
    clearTimeout(pending);
    pending = setTimeout(() => {
      console.log(`emulator broke a Listen stream (firebase-tools #8654); restarting ${liveFirestores.size} users' listeners`);
      lastFramingRestart = Date.now();
      for (const firestore of liveFirestores) {
        disableNetwork(firestore).then(() => enableNetwork(firestore)).catch(() => {});
      }
    }, 100);
  }, { level: 'error' });
}

/**
 * A signed-in anonymous user with its own Firebase app and Auth on the
 * emulators. A client made with `app` and `firestoreEmulator` opens the
 * server's database from the app; this opens the same instance first (as
 * an app that also reads Firestore itself would), to restart its listeners
 * on the emulator's framing errors, unless `openFirestore` is false.
 * With `signIn` false nobody is signed in yet (`uid` null) until the test
 * calls `signIn()`. close() tears them down so the process can exit.
 */
export async function newUser(config, { openFirestore = true, signIn = true } = {}) {
  const app = initializeApp({ apiKey: 'demo-api-key', projectId: config.projectId }, `user-${++appSeq}`);
  const auth = getAuth(app);
  connectAuthEmulator(auth, config.authEmulatorUrl, { disableWarnings: true });
  const firestoreEmulator = { host: config.firestoreEmulatorHost, port: Number(config.firestoreEmulatorPort) };
  let firestore = null;
  if (openFirestore) {
    firestore = getFirestore(app, config.database);
    connectFirestoreEmulator(firestore, firestoreEmulator.host, firestoreEmulator.port);
    restartListenersOnEmulatorFramingErrors();
    liveFirestores.add(firestore);
  }
  const user = {
    app,
    auth,
    firestoreEmulator,
    uid: null,
    async signIn() {
      user.uid = (await signInAnonymously(auth)).user.uid;
      return user.uid;
    },
    async close() {
      if (firestore) {
        liveFirestores.delete(firestore);
        await terminate(firestore).catch(() => {});
      }
      // Also ends any Firestore instance a client opened from the app.
      await deleteApp(app).catch(() => {});
    },
  };
  if (signIn) await user.signIn();
  return user;
}

/**
 * tests/lib/poll.mjs's until, except that a wait the emulator's framing
 * error interrupted (a listener restart during it, see above) waits its
 * full time once more, and says so.
 */
export async function until(what, probe, timeoutMs, intervalMs) {
  const began = Date.now();
  try {
    return await untilOnce(what, probe, timeoutMs, intervalMs);
  } catch (err) {
    if (lastFramingRestart < began) throw err;
    console.log(`waiting until ${what}: the listeners were restarted during the wait; ${timeoutMs} ms more`);
    return untilOnce(what, probe, timeoutMs, intervalMs);
  }
}

/**
 * fetch that records every API call: action, status, its JSON body, and when it was sent;
 * `error` when it got no answer. `inner` is the fetch it calls (default
 * the global one): a test's network that fails or hangs.
 */
export function recordingFetch(inner = (url, init) => fetch(url, init)) {
  const calls = [];
  const fn = async (url, init) => {
    const path = new URL(url).pathname;
    let body = null;
    try {
      body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    } catch {
      body = null;
    }
    const call = { path, action: path === '/v1/config' ? 'config' : path.split('/')[4] || 'read', at: Date.now(), status: null, error: null, body };
    calls.push(call);
    try {
      const res = await inner(url, init);
      call.status = res.status;
      return res;
    } catch (err) {
      call.error = err;
      throw err;
    }
  };
  return { fetch: fn, calls, of: (action) => calls.filter((c) => c.action === action) };
}

/**
 * Timers a test can freeze, like an OS suspending an app or a laptop lid
 * closing: while held, due callbacks queue up; release() runs them, as a
 * woken device runs its overdue timers.
 */
export function holdableTimers() {
  let held = false;
  const queue = [];
  const live = new Set();
  const asked = [];
  const deadlines = [];
  return {
    /** Every delay the client asked for, in order: its schedule, exactly. */
    asked,
    /** Every request deadline it set (kind 'deadline'), in order; not part of `asked`. */
    deadlines,
    /** How many callbacks came due while held and wait for release(). */
    get queued() {
      return queue.length;
    },
    set(fn, ms, kind) {
      (kind === 'deadline' ? deadlines : asked).push(ms);
      const h = setTimeout(() => {
        live.delete(h);
        if (held) queue.push(fn);
        else fn();
      }, ms);
      live.add(h);
      return h;
    },
    clear(h) {
      clearTimeout(h);
      live.delete(h);
    },
    dispose() {
      for (const h of live) clearTimeout(h);
      live.clear();
      queue.length = 0;
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const fn of queue.splice(0)) fn();
    },
  };
}

/**
 * A local HTTP server that accepts every request and never answers: a hung
 * instance, or a network that swallows packets. `requests` records what
 * arrived. close() drops the connections it holds.
 */
export async function silentServer() {
  const sockets = new Set();
  const requests = [];
  const server = createServer((req) => {
    requests.push({ method: req.method, path: req.url, at: Date.now() });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Names on a room's roster as the client sees it, sorted. */
export const namesOf = (room) => room.participants.map((p) => p.displayName).sort();

export const roomName = (prefix) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
