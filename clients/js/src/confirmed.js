// onSnapshot, and the one metadata change a room's listeners must hear.
//
// The SDK, offline (a blip, or a stream that broke and waits in its
// backoff), raises a listener's first snapshot from its cache. Back online,
// the server's answer raises nothing more when it changes no document:
// with the default options a listener never learns that what it was shown
// is now the server's word. A room waits for that word in places (the
// summary decides whether the roster's listeners start, the revision is
// summed from server snapshots only), so it would wait forever. Listening
// with metadata changes, and passing on only that confirmation beside what
// onSnapshot passes by default, closes the gap without other events.
import { onSnapshot, snapshotEqual } from 'firebase/firestore';

/**
 * Listens to `ref` (a document or a query) as onSnapshot does, and also
 * passes on the snapshot in which the server confirms a cached one
 * without changing a document.
 */
export function onSnapshotConfirmed(ref, onNext, onError) {
  let last = null; // the last snapshot passed on
  return onSnapshot(ref, { includeMetadataChanges: true }, (snap) => {
    const changed = last === null
      || (typeof snap.docChanges === 'function' ? snap.docChanges().length > 0 : !snapshotEqual(last, snap));
    const confirmed = last !== null && last.metadata.fromCache && !snap.metadata.fromCache;
    if (!changed && !confirmed) return; // metadata alone, as onSnapshot drops it
    last = snap;
    onNext(snap);
  }, onError);
}
