// The room's revision: where clients read it, and what they may assume.
//
// This is the one place that knows which document and field carry the
// revision. The server will move it off the room document (a hot document
// for joins and leaves); when it does, only this file changes.
//
// What clients rely on: the revision increases on every visible roster
// change and never on a heartbeat. Not that it increases by exactly one:
// a jump says nothing about how many changes happened. So clients keep the
// highest revision seen and ignore lower ones (listeners and API answers
// arrive through different channels and can overtake each other).
import { doc, onSnapshot } from 'firebase/firestore';

/**
 * Listens to the revision of a room. Calls onRevision(n) for every snapshot
 * that carries one; onError as Firestore reports it.
 * @returns {() => void} unsubscribe
 */
export function watchRevision(firestore, roomId, onRevision, onError) {
  return onSnapshot(doc(firestore, 'rooms', roomId), (snap) => {
    const n = revisionIn(snap.exists() ? snap.data() : null);
    if (n !== null) onRevision(n);
  }, onError);
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
