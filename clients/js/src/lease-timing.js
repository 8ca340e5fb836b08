// When a joined room's heartbeats go out and how long each waits: all of
// it against the lease the server granted, read on the estimated server
// clock (server-clock.js), never on the device's clock alone. Functions of
// a Room (room.js), which keeps the lease's state.

// However little lease is left, a heartbeat may wait this long for its
// answer: a round trip on a poor mobile network can take most of a second.
const MIN_HEARTBEAT_TIMEOUT_MS = 1000;

// How long after the server's renewAt (by the estimated server clock) a
// heartbeat goes out, jitter aside: an estimate a little off must not
// bring it before renewAt, where the server would only read and answer
// without renewing.
const RENEW_MARGIN_MS = 250;

/**
 * Milliseconds left on the lease by the client's own accounting: the last
 * leaseExpiresAt against the estimated server clock (never the device's
 * clock alone). 0 when the server said the lease is gone.
 */
export function leaseLeftMs(room) {
  if (room._leaseLost || !room.leaseExpiresAt) return 0;
  return Math.max(0, room.leaseExpiresAt.getTime() - room.client._clock.nowMs());
}

/**
 * How long a heartbeat waits for its answer: half the lease it has left
 * (at least MIN_HEARTBEAT_TIMEOUT_MS, at most requestTimeoutMs), so that
 * when none comes the retry still goes out inside the lease. A full
 * requestTimeoutMs would not do: the server renews only once half the
 * lease is gone, so the heartbeat that renews may find as little as half
 * the lease minus one interval left (2.5 s of 15 s by default).
 */
export function heartbeatTimeoutMs(room) {
  return Math.min(room.client.requestTimeoutMs, Math.max(MIN_HEARTBEAT_TIMEOUT_MS, leaseLeftMs(room) / 2));
}

/**
 * How long until the next heartbeat: until the server's renewAt, plus
 * RENEW_MARGIN_MS and up to as much again of jitter (which spreads a
 * room's heartbeats apart), but never later than half the renewal window
 * (lease end − renewAt) before the lease's end, so that a failed
 * heartbeat is retried inside it. From a server that gives no renewAt,
 * every heartbeatSeconds, shortened by the jitter.
 */
export function nextBeatDelay(room) {
  if (!room.renewAt || !room.leaseExpiresAt || room._leaseLost) {
    const base = room.heartbeatSeconds * 1000;
    return base * (1 - room.client.heartbeatJitter * room.client.random());
  }
  const now = room.client._clock.nowMs();
  const renewAt = room.renewAt.getTime();
  const end = room.leaseExpiresAt.getTime();
  const wanted = renewAt - now + RENEW_MARGIN_MS * (1 + room.client.heartbeatJitter * room.client.random());
  return Math.max(0, Math.min(wanted, end - now - (end - renewAt) / 2));
}

/**
 * How long to wait after `failures` failed heartbeats in a row: backoff
 * from half a second, at most heartbeatSeconds, and at most a third of
 * the lease left, so that the retries still fit inside it.
 */
export function retryDelay(room, failures) {
  let backoff = Math.min(500 * 2 ** (failures - 1), room.heartbeatSeconds * 1000);
  const left = leaseLeftMs(room);
  if (left > 0) backoff = Math.min(backoff, Math.max(100, left / 3));
  return backoff * (0.5 + room.client.random() / 2);
}
