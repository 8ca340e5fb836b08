// A large room's summary (rooms/{roomId}/summary/current, written by the
// server's summarizer at most once a second) as the Room shows it: the
// decoded document, the participants it stands for, the departures it adds
// to recentlyLeft, and which events one summary after another means. No
// Firestore here: room-listeners.js and large-room.js feed it snapshots'
// data, and test/summary.test.mjs plain objects.
import { toDate } from './time.js';

/** The time a summary names, in ms (null when absent): summaries compare by it. */
function ms(v) {
  const d = toDate(v);
  return d ? d.getTime() : null;
}

function entry(e, selfId) {
  return {
    participantId: e.participantId,
    displayName: e.displayName || '',
    ...(e.photoURL ? { photoURL: e.photoURL } : {}),
    // A summary carries no state and no session count: {} and 1 (this
    // user's own entry is read exactly; see largeParticipants).
    state: {},
    away: !!e.away,
    sessionCount: 1,
    joinedAt: toDate(e.joinedAt),
    isSelf: e.participantId === selfId,
  };
}

function departure(l) {
  return {
    participantId: l.participantId,
    displayName: l.displayName || '',
    leftAt: toDate(l.leftAt),
    reason: l.reason || 'left',
  };
}

const list = (v) => (Array.isArray(v) ? v.filter((x) => x && typeof x.participantId === 'string') : []);

/**
 * A summary document's data as the Room uses it, or null when it is not a
 * large room's summary (absent, or another mode): then the roster is the
 * source.
 */
export function decodeSummary(data, selfId) {
  if (!data || data.mode !== 'large') return null;
  return {
    count: Number.isSafeInteger(data.count) ? data.count : 0,
    revision: Number.isSafeInteger(data.revision) ? data.revision : null,
    asOf: ms(data.asOf),
    previousAsOf: ms(data.previousAsOf),
    sample: list(data.sample).map((e) => entry(e, selfId)),
    joined: list(data.joined).map((e) => entry(e, selfId)),
    left: list(data.left).map(departure),
    truncated: !!data.truncated,
  };
}

const byJoin = (a, b) => (a.joinedAt?.getTime() ?? 0) - (b.joinedAt?.getTime() ?? 0) || a.participantId.localeCompare(b.participantId);

/**
 * What a large room's `participants` are: the summary's sample, with this
 * user's own entry as read from its own document (exact: state, sessions)
 * in place of the sample's, or added when the sample does not have it;
 * in join order, as the roster is shown.
 * @param {object | null | undefined} self this user's entry; null or undefined: none known
 */
export function largeParticipants(sample, self, selfId) {
  const others = sample.filter((p) => p.participantId !== selfId);
  return (self ? [...others, self] : others).sort(byJoin);
}

/**
 * What one summary after another means for the events:
 *   same    the summary this client saw last (a listener that started again)
 *   events  the next one: `events` are its joins and departures, oldest first
 *   sync    a gap: the client missed a summary (its previousAsOf is not the
 *           last one seen), the summary holds more changes than it lists
 *           (truncated), or there is no last one: show the whole room anew
 * A departure's participant is the entry last shown for the user when
 * there is one (`shown`), else what the departure names.
 * @param {number | null} lastAsOf asOf of the last summary seen, null for none
 */
export function summaryChange(lastAsOf, sum, shown = []) {
  if (lastAsOf !== null && sum.asOf === lastAsOf) return { kind: 'same', events: [] };
  if (lastAsOf === null || sum.previousAsOf !== lastAsOf || sum.truncated) return { kind: 'sync', events: [] };
  const events = [
    ...sum.joined.map((participant) => ({ at: participant.joinedAt?.getTime() ?? 0, type: 'participant-joined', detail: { participant } })),
    ...sum.left.map((d) => ({
      at: d.leftAt?.getTime() ?? 0,
      type: 'participant-left',
      detail: {
        participant: shown.find((p) => p.participantId === d.participantId)
          || { participantId: d.participantId, displayName: d.displayName, state: {}, away: false, sessionCount: 0, joinedAt: null, isSelf: false },
        reason: d.reason,
      },
    })),
  ].sort((a, b) => a.at - b.at);
  return { kind: 'events', events: events.map(({ type, detail }) => ({ type, detail })) };
}

/**
 * The departures to keep after a summary: those known already, and the
 * summary's own (each summary lists only those since the one before),
 * one per user, the latest; without those who joined again after
 * leaving, and those older than the window (nothing shows them).
 */
export function mergeDepartures(departures, sum, cutoffMs) {
  const byId = new Map();
  for (const d of [...departures, ...sum.left]) {
    const old = byId.get(d.participantId);
    if (!old || (d.leftAt?.getTime() ?? Infinity) >= (old.leftAt?.getTime() ?? Infinity)) byId.set(d.participantId, d);
  }
  for (const p of sum.joined) {
    const d = byId.get(p.participantId);
    if (d && p.joinedAt && (!d.leftAt || p.joinedAt.getTime() > d.leftAt.getTime())) byId.delete(p.participantId);
  }
  return [...byId.values()].filter((d) => !d.leftAt || d.leftAt.getTime() > cutoffMs);
}
