// Timers behind one small interface, so that a platform (a browser worker)
// or a test (timers it holds and releases) can supply its own. The client
// runs everything on them: the heartbeat schedule, typing expiries, and the
// deadline of every request (`kind` 'deadline'), so a deadline is kept
// where the heartbeat is (a hidden tab's worker) and held where it is held.
// `kind` lets a test tell a request's deadline from the schedule; timers
// may ignore it.

/**
 * @typedef {{set(fn: () => void, ms: number, kind?: 'deadline'): any, clear(id: any): void, dispose?(): void}} Timers
 */

/** setTimeout-based timers: the default everywhere. @returns {Timers} */
export function plainTimers() {
  return {
    set: (fn, ms) => setTimeout(fn, ms),
    clear: (id) => clearTimeout(id),
    dispose() {},
  };
}
