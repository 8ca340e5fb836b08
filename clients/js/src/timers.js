// Timers behind one small interface, so that a platform (a browser worker)
// or a test (timers it holds and releases) can supply its own.

/**
 * @typedef {{set(fn: () => void, ms: number): any, clear(id: any): void, dispose?(): void}} Timers
 */

/** setTimeout-based timers: the default everywhere. @returns {Timers} */
export function plainTimers() {
  return {
    set: (fn, ms) => setTimeout(fn, ms),
    clear: (id) => clearTimeout(id),
    dispose() {},
  };
}
