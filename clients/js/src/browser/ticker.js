// Heartbeat timers that stay on time in hidden tabs: the core's Timers
// interface (set, clear, dispose) backed by a dedicated worker.

/**
 * Timers for the heartbeat. Browsers throttle timers in hidden tabs, Chrome
 * to one wake-up a minute after five minutes hidden, which would outlast the
 * lease. Timers in a dedicated worker are not throttled that way, so the
 * heartbeat schedule lives in one when the page may create it.
 */
export function createTicker() {
  let seq = 0;
  const callbacks = new Map();
  let worker = null;
  if (typeof Worker === 'function' && typeof Blob === 'function' && typeof URL !== 'undefined' && URL.createObjectURL) {
    try {
      const src = 'const t=new Map();onmessage=(e)=>{const[op,id,ms]=e.data;'
        + 'if(op==="set"){t.set(id,setTimeout(()=>{t.delete(id);postMessage(id)},ms))}'
        + 'else{clearTimeout(t.get(id));t.delete(id)}}';
      worker = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
      worker.onmessage = (e) => {
        const fn = callbacks.get(e.data);
        callbacks.delete(e.data);
        if (fn) fn();
      };
      worker.onerror = () => {
        // A content security policy may forbid blob: workers: fall back.
        worker = null;
        for (const [id, fn] of callbacks) {
          callbacks.delete(id);
          setTimeout(fn, 0);
        }
      };
    } catch {
      worker = null;
    }
  }
  return {
    set(fn, ms) {
      const id = ++seq;
      if (worker) {
        callbacks.set(id, fn);
        worker.postMessage(['set', id, ms]);
      } else {
        callbacks.set(id, setTimeout(() => {
          callbacks.delete(id);
          fn();
        }, ms));
      }
      return id;
    },
    clear(id) {
      if (id == null || !callbacks.has(id)) return;
      if (worker) worker.postMessage(['clear', id]);
      else clearTimeout(callbacks.get(id));
      callbacks.delete(id);
    },
    dispose() {
      for (const id of [...callbacks.keys()]) this.clear(id);
      worker?.terminate();
    },
  };
}
