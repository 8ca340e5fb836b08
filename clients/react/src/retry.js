// Which failed joins a mounted room tries again, and when. A component that
// renders before its user has signed in, or while the network or the API is
// down, must come in by itself once that passes; one whose join the server
// refused for a reason that waiting does not change (the room's policy,
// the user's caps, bad input, an old client) stops and says why.

/** The first retry's delay; each later one doubles, up to MAX_DELAY_MS. */
export const FIRST_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;

/**
 * True when trying the same join again later may succeed: no answer at all
 * (network, timeout), a server fault (5xx, an answer without the documented
 * body included), 429 (after its Retry-After), 408, or 401 unauthenticated
 * (no user yet: the app signs in after the first render). Everything else
 * is final: 403 (status `denied`), 409 too_many_rooms / too_many_sessions /
 * room_full (the user must leave or close something; the app decides when
 * to try again, by mounting again), 400, 404, 413, 426 client_too_old, the
 * client's own wrong_database, and errors that are not the API's at all.
 */
export function isRetryable(err) {
  if (!err || typeof err.status !== 'number' || typeof err.code !== 'string') return false;
  if (err.status === 0) return err.code === 'network' || err.code === 'timeout';
  if (err.status >= 500 || err.status === 429 || err.status === 408) return true;
  return err.status === 401 && err.code === 'unauthenticated';
}

/**
 * How long to wait before retry number `n` (1 for the first): doubling from
 * FIRST_DELAY_MS up to MAX_DELAY_MS, shortened at random by up to half so
 * that the tabs of one outage do not come back in step; never less than
 * the server's Retry-After.
 */
export function retryDelayMs(n, err, random = Math.random) {
  const full = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, n - 1));
  const jittered = Math.round(full * (1 - random() / 2));
  const after = Number(err && err.retryAfterSeconds) > 0 ? err.retryAfterSeconds * 1000 : 0;
  return Math.max(jittered, after);
}
