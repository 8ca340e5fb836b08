// The server's clock, estimated from API answers. A device clock can be
// minutes or hours off, so the client never compares a server timestamp with
// the device clock alone: it compares with device time + this offset.

export class ServerClock {
  /** @param {() => number} now the device clock in ms (injected) */
  constructor(now) {
    this._now = now;
    /** @type {{offset: number, rtt: number, at: number} | null} */
    this._best = null;
  }

  /**
   * Feeds one sample: the server's time when it answered, and the device
   * times the request was sent and its answer received. The server answered
   * somewhere in between; the midpoint is the best guess, and the sample from
   * the fastest recent round trip is the least uncertain, so it wins. A
   * sample older than a minute is replaced anyway (clocks drift).
   */
  sample(serverTimeMs, sent, received) {
    if (!Number.isFinite(serverTimeMs) || !Number.isFinite(sent) || !Number.isFinite(received)) return;
    const rtt = Math.max(0, received - sent);
    const offset = serverTimeMs - (sent + rtt / 2);
    const at = this._now();
    const stale = !this._best || at - this._best.at > 60_000;
    if (stale || rtt <= this._best.rtt * 1.5) this._best = { offset, rtt, at };
  }

  /** Estimated server time minus device time, in ms (0 before any sample). */
  get offsetMs() {
    return this._best ? this._best.offset : 0;
  }

  /** Estimated server time in ms since the epoch. */
  nowMs() {
    return this._now() + this.offsetMs;
  }
}
