// Session ids: one per tab or app instance, chosen by the client. The core
// only needs `id` and a promise that it is settled; platforms decide where
// ids are kept (browser: sessionStorage plus a duplicate-tab check; React
// Native: an injected storage; Node: memory).

const VALID = /^[A-Za-z0-9_~.-]{1,128}$/;

/** True for an id the API accepts. */
export function isValidSessionId(id) {
  return typeof id === 'string' && VALID.test(id) && id !== '.' && id !== '..' && !/^__.*__$/.test(id);
}

/**
 * A fresh random id. Uniqueness is what matters, not secrecy, so where the
 * platform has no crypto (React Native without a polyfill) Math.random will do.
 */
export function newSessionId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  let s = '';
  for (let i = 0; i < 32; i++) s += Math.floor(Math.random() * 16).toString(16);
  return s;
}

/**
 * Ids kept in memory: the process is the instance.
 * @param {string} [fixedId]
 * @returns {import('../types/index').SessionIds}
 */
export function memorySessionIds(fixedId) {
  if (fixedId !== undefined && !isValidSessionId(fixedId)) throw new TypeError(`invalid session id ${JSON.stringify(fixedId)}`);
  const id = fixedId || newSessionId();
  return { id, ready: () => Promise.resolve(), close() {} };
}
