// Waiting for an outcome in the tests: poll with a deadline, never sleep
// for a guessed time and hope.

/** Polls `probe` until it returns a truthy value; fails naming `what` and the last value seen. */
export async function until(what, probe, timeoutMs, intervalMs = 50) {
  const start = Date.now();
  let last;
  for (;;) {
    last = await probe();
    if (last) return { value: last, ms: Date.now() - start };
    if (Date.now() - start > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}; last seen: ${JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
