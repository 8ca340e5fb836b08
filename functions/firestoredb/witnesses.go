package firestoredb

import (
	"context"
	"slices"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Witnesses: users an instance last saw in a room, read first when it
// must know whether the room is occupied.
//
// After a departure removes an entry, settleEmptiness asks whether the
// roster is empty now (rosterOccupied). A query with a limit of one
// answers it with one read on Firestore, but on the emulator it scans the
// entries of every room (about 6 ms at 1 000 entries, 80 to 130 ms at 10 000,
// measured), and every departure of a crowd leaving a big room makes one.
// One document read answers the question just as well when it finds an
// entry: the read comes after the departure committed, so the roster held
// someone at that snapshot, which is all settleEmptiness takes from the
// count (its step 1 stops there; its step 3 revives).
//
// So each instance remembers, per room, the last few users whose join it
// served there, and reads one of their entries before querying. A missing
// entry proves nothing: that user is forgotten and the query runs as
// before, so a miss costs two reads where the query alone cost one. The
// entry the query finds becomes the next witness: in a crowd leaving at
// once, an instance's witnesses leave too, and each query then finds one
// that is still there, so a crowd of N leaving costs an instance about
// log N queries instead of one per leave after its witnesses went. What
// decides is always a read made after the commit, the same on every
// instance; the memory only picks which document to read first, and an
// instance that has none (the sweeper, a fresh one) queries as before.

// maxWitnesses is how many users an instance remembers per room: enough
// that one leaving leaves others to read, few enough to stay small.
const maxWitnesses = 4

// witnessSet is one room's witnesses, the most recently seen last.
type witnessSet struct {
	mu   sync.Mutex
	uids []string
}

// sawPresent remembers uid as present in roomID (its join has committed,
// or its entry was read), as a witness and as listed (firstreads.go).
func (s *Store) sawPresent(roomID, uid string) {
	s.sawListed(roomID, uid, true)
	w, ok := s.witnesses.Get(roomID)
	if !ok {
		w = &witnessSet{}
		s.witnesses.Put(roomID, w) // a racing Put may drop one: only a witness is lost
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.uids = slices.DeleteFunc(w.uids, func(u string) bool { return u == uid })
	w.uids = append(w.uids, uid)
	if len(w.uids) > maxWitnesses {
		w.uids = w.uids[len(w.uids)-maxWitnesses:]
	}
}

// sawGone forgets uid as a witness of roomID: its entry went, or was not
// found.
func (s *Store) sawGone(roomID, uid string) {
	s.sawListed(roomID, uid, false)
	if w, ok := s.witnesses.Get(roomID); ok {
		w.mu.Lock()
		w.uids = slices.DeleteFunc(w.uids, func(u string) bool { return u == uid })
		w.mu.Unlock()
	}
}

// witness is the user most recently seen present in roomID, if any.
func (s *Store) witness(roomID string) (string, bool) {
	w, ok := s.witnesses.Get(roomID)
	if !ok {
		return "", false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.uids) == 0 {
		return "", false
	}
	return w.uids[len(w.uids)-1], true
}

// witnessedOccupied reports whether a witness's entry in roomID exists,
// read now: true proves the roster occupied at this read; false proves
// nothing (no witness, the witness gone, or the read failed, which the
// caller's query then meets on its own).
func (s *Store) witnessedOccupied(ctx context.Context, roomID string) bool {
	uid, ok := s.witness(roomID)
	if !ok {
		return false
	}
	snap, err := s.getDoc(ctx, s.participant(roomID, uid))
	switch {
	case err == nil && snap.Exists():
		return true
	case status.Code(err) == codes.NotFound:
		s.sawGone(roomID, uid)
	}
	return false
}
