package firestoredb

import "cloud.google.com/go/firestore"

// Which of a join's reads go in its first round trip.
//
// A join's transaction reads the room, the user's entry, the policy and
// the session in one round trip; a new user's join (no entry) then reads
// the user's per-user document and departure record in a second
// (readNewUserDocs). Each round trip is an RPC, and in a crowd on the
// emulator the emulator's CPU is what every join waits for (BENCHMARKS.md,
// "Where the machine's CPU went"): 9 to 13 ms of it per join.
//
// So a join of a user this instance has not seen listed in the room reads
// all six documents in its first round trip. For a new user, the common
// case of such a join, that is one RPC fewer. For a user who is listed
// after all (a reconnect that reached another instance, or any join after
// a restart), the two documents are read for nothing: 2 billed reads, and
// read locks on two documents that only the same user's joins write (a
// join of the user into another room waits for, or retries after, this
// one). A user this instance served a join of in the room, and has not
// seen leave it, keeps the two round trips, the second only if needed.
//
// The memory picks only which documents are read first. What the join
// decides on is what its transaction read, the same on every instance.

// maxListedUsers bounds the per-instance memory of users seen listed: a
// key and a flag each, a few megabytes at most.
const maxListedUsers = 50000

func listedKey(roomID, uid string) string { return roomID + "/" + uid }

// sawListed remembers whether uid is listed in roomID, as this instance
// last saw it (sawPresent: a join committed, or the entry read; sawGone: a
// leave removed the entry, or it was found missing).
func (s *Store) sawListed(roomID, uid string, listed bool) {
	s.listed.Put(listedKey(roomID, uid), listed)
}

// newUserRefs are the documents a join reads with its first round trip
// beyond the four every join reads: the new user's two (readNewUserDocs),
// unless this instance last saw the user listed in the room.
func (s *Store) newUserRefs(roomID, uid string) []*firestore.DocumentRef {
	if s.knownListed(roomID, uid) {
		return nil
	}
	return []*firestore.DocumentRef{s.userRooms(uid), s.departureRef(roomID, uid)}
}

// knownListed reports whether this instance last saw uid listed in roomID.
func (s *Store) knownListed(roomID, uid string) bool {
	listed, ok := s.listed.Get(listedKey(roomID, uid))
	return ok && listed
}
