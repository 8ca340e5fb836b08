// The room's revision: where clients read it, and what they may assume.
//
// This is the one place that knows which documents and fields carry the
// revision. It is not on the room document, which every join and leave
// would then have to write. The server counts it on a few shard documents,
// rooms/{roomId}/rosterRevisions/{n} (field `changes`), and the revision is
// their sum; but a listener of the shards pays a read for every visible
// change on top of the entry or record the change wrote. So in a room
// whose document says `changesCarried`, the documents a roster listener
// reads anyway carry the revision as well. Each visible change adds one to
// the `changes` of the user's entry (participants/{uid}) or departure record
// (recentlyLeft/{uid}); a departure record takes over its entry's count and
// a returning user's entry its record's, so a user has one count, on
// whichever of the two exists; and the sweeper folds old records into
// recentlyLeft/~retired (field `retired`), beside them.
//
// The revision is, over the users, the larger of their entry's and their
// record's `changes` (those of the room's lifetime: `roomOpenedAt` equal to
// the room's `createdAt`), plus `retired`. The larger, not the sum: one
// commit moves a count from the entry to the record or back, and the two
// arrive through different listeners, in either order. Seen with both, the
// newer, larger one is the user's count; seen with neither, the user is
// missing for a moment, which can only make a revision too low, and lower
// revisions are ignored (below). A fold deletes records and raises
// `retired` in one collection, so one snapshot shows both. Sums are taken
// when the listeners have delivered what they have (onSnapshotsInSync), from
// server snapshots only (each listener hears the server confirm a cached
// one: confirmed.js). Older rooms are read from the shards.
//
// What clients rely on: the revision increases on every visible roster
// change and never on a heartbeat. A listener may see several changes
// coalesced into one snapshot, so a jump says nothing about how many
// changes happened. Clients keep the highest revision seen and ignore lower
// ones (listeners and API answers arrive through different channels and can
// overtake each other).
import { collection, doc, onSnapshotsInSync } from 'firebase/firestore';
import { onSnapshotConfirmed } from './confirmed.js';

/** The id of the retired count among a room's departure records. */
export const RETIRED_ID = '~retired';

/**
 * Listens to the revision of a room. Calls onRevision(n) whenever the
 * listened documents add up to a revision; onError as Firestore reports it.
 * Its listeners of the room document, the roster and the departure records
 * are the same queries as the Room's own, which the Firebase SDK serves
 * from one stream each: they cost no reads of their own.
 * @returns {() => void} unsubscribe
 */
export function watchRevision(firestore, roomId, onRevision, onError) {
  const latest = { room: null, participants: null, recentlyLeft: null, shards: null };
  const stops = [];
  let stopShards = null;
  let stopped = false;
  const stopAll = () => {
    stopped = true;
    for (const stop of stops) stop();
    if (stopShards) stopShards();
  };
  // One listener refused (the user left the roster, the rules say no):
  // the others would be refused too, so all stop and the Room hears once,
  // as from any single listener.
  const failed = (err) => {
    if (stopped) return;
    stopAll();
    onError(err);
  };
  // The in-sync callback fires for every listener of the Firestore
  // instance (typing, receipts, other rooms): the sum, O(roster), is taken
  // again only when one of this room's snapshots has changed since.
  let changed = false;
  const keep = (name) => (snap) => {
    latest[name] = snap;
    changed = true;
  };
  const add = () => {
    if (stopped || !changed) return;
    const n = revisionOf(latest);
    if (n === null) return; // not every part is in yet: try at the next one
    changed = false;
    onRevision(n);
  };
  stops.push(onSnapshotConfirmed(doc(firestore, 'rooms', roomId), (snap) => {
    keep('room')(snap);
    // An older room: its revision is on the shards only.
    const carried = !!(snap.exists() && snap.data().changesCarried);
    if (!carried && !stopShards) stopShards = onSnapshotConfirmed(collection(firestore, 'rooms', roomId, 'rosterRevisions'), keep('shards'), failed);
    if (carried && stopShards) {
      stopShards();
      stopShards = null;
      latest.shards = null;
    }
  }, failed));
  stops.push(onSnapshotConfirmed(collection(firestore, 'rooms', roomId, 'participants'), keep('participants'), failed));
  stops.push(onSnapshotConfirmed(collection(firestore, 'rooms', roomId, 'recentlyLeft'), keep('recentlyLeft'), failed));
  stops.push(onSnapshotsInSync(firestore, add));
  return stopAll;
}

/**
 * The revision the latest snapshots add up to, or null while they cannot
 * tell (one has not arrived from the server yet, or the room is gone).
 * Exported for tests.
 */
export function revisionOf({ room, participants, recentlyLeft, shards }) {
  const fresh = (snap) => snap && !snap.metadata.fromCache;
  if (!fresh(room) || !room.exists()) return null;
  const r = room.data();
  if (!r.changesCarried) return fresh(shards) ? sumShards(shards.docs.map((d) => d.data())) : null;
  if (!fresh(participants) || !fresh(recentlyLeft)) return null;
  const byId = (snap) => snap.docs.map((d) => ({ id: d.id, ...d.data() }));
  return sumCarried(r.createdAt, byId(participants), byId(recentlyLeft));
}

/** The revision the shards' data add up to. */
export function sumShards(shards) {
  let n = 0;
  for (const d of shards) {
    if (Number.isSafeInteger(d && d.changes)) n += d.changes;
  }
  return n;
}

/**
 * The revision carried by a room's entries and departure records (each
 * with its document `id`) of the lifetime opened at `openedAt`, and by its
 * retired count among the records: per user the larger count, see above.
 */
export function sumCarried(openedAt, entries, records) {
  const sameLifetime = (t) => !!(t && openedAt && t.seconds === openedAt.seconds && t.nanoseconds === openedAt.nanoseconds);
  const users = new Map();
  let n = 0;
  for (const d of [...entries, ...records]) {
    if (d.id === RETIRED_ID) {
      if (Number.isSafeInteger(d.retired)) n += d.retired;
    } else if (Number.isSafeInteger(d.changes) && sameLifetime(d.roomOpenedAt)) {
      users.set(d.id, Math.max(users.get(d.id) ?? 0, d.changes));
    }
  }
  for (const c of users.values()) n += c;
  return n;
}

/** The revision carried by a room document's data, or an API answer. */
export function revisionIn(data) {
  const n = data && data.revision;
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The revision to keep after seeing `seen`: the larger of the two. Never
 * `current + 1`, never a difference: only the order means anything.
 * @param {number | null} current
 * @param {number | null} seen
 */
export function newerRevision(current, seen) {
  if (seen === null || seen === undefined) return current;
  if (current === null || current === undefined) return seen;
  return seen > current ? seen : current;
}
