// The room's revision: where clients read it, and what they may assume.
//
// This is the one place that knows which documents and fields carry the
// revision. It is not on the room document, which every join and leave
// would then have to write: each visible roster change adds one to one of
// a few shard documents, rooms/{roomId}/rosterRevisions/{n} (field
// `changes`), and the revision is their sum.
//
// What clients rely on: the revision increases on every visible roster
// change and never on a heartbeat. A listener may see several changes
// coalesced into one snapshot, so a jump says nothing about how many
// changes happened. Clients keep the highest revision seen and ignore lower
// ones (listeners and API answers arrive through different channels and can
// overtake each other).
import { collection, onSnapshot } from 'firebase/firestore';

/**
 * Listens to the revision of a room. Calls onRevision(n) for every snapshot
 * of its shards; onError as Firestore reports it.
 * @returns {() => void} unsubscribe
 */
export function watchRevision(firestore, roomId, onRevision, onError) {
  return onSnapshot(collection(firestore, 'rooms', roomId, 'rosterRevisions'), (snap) => {
    onRevision(sumShards(snap.docs.map((d) => d.data())));
  }, onError);
}

/** The revision the shards' data add up to. */
export function sumShards(shards) {
  let n = 0;
  for (const d of shards) {
    if (Number.isSafeInteger(d && d.changes)) n += d.changes;
  }
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
