package firestoredb_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// joinCost joins k through s and returns what it cost: round trips that
// read documents by name, and billed operations.
func joinCost(t *testing.T, f *fixture, s *firestoredb.Store, k presence.SessionKey) (int64, firestoredb.OpCounts, presence.JoinResult) {
	t.Helper()
	lookups, ops := s.DocumentLookups(), s.Ops()
	res, err := s.Join(f.ctx, presence.JoinRequest{SessionKey: k})
	if err != nil {
		t.Fatalf("join %+v: %v", k, err)
	}
	return s.DocumentLookups() - lookups, s.Ops().Sub(ops), res
}

// A new user's join reads its six documents in one round trip; a
// reconnect through the instance that served the join reads only the
// four every join reads; a reconnect through another instance reads the
// six, two for nothing, and decides the same; after a leave through an
// instance, that instance takes the user for new again.
func TestJoin_FirstRoundTripReadsANewUsersDocuments(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "r", "host", "s") // the room exists and f.store saw it active
	alice := presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "s"}

	lookups, ops, _ := joinCost(t, f, f.store, alice)
	if lookups != 1 || ops.Reads != 9 || ops.Writes != 5 {
		t.Fatalf("a new user's join: %d lookups, %+v; want 1 lookup, 9 reads (6 documents, 3 aggregations), 5 writes", lookups, ops)
	}

	lookups, ops, _ = joinCost(t, f, f.store, alice)
	if lookups != 1 || ops != (firestoredb.OpCounts{Reads: 6, Writes: 1}) {
		t.Fatalf("a reconnect through the same instance: %d lookups, %+v; want 1 lookup, 6 reads, 1 write", lookups, ops)
	}

	// Another instance has not seen alice: her two documents come along,
	// and the join is still a reconnect, the session alone written. (Its
	// first join into the room looks at the room first: one more lookup.)
	f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "host", SessionID: "s"}})
	lookups, ops, res := joinCost(t, f, f.other, alice)
	if lookups != 1 || ops != (firestoredb.OpCounts{Reads: 8, Writes: 1}) {
		t.Fatalf("a reconnect through another instance: %d lookups, %+v; want 1 lookup, 8 reads, 1 write", lookups, ops)
	}
	ids, _ := f.liveIDs(t, "r", "host")
	if len(ids) != 2 || res.Session.Generation < 3 {
		t.Fatalf("after the reconnects: roster %v, generation %d; want host and alice, generation 3 or more", ids, res.Session.Generation)
	}

	// A leave that removes her entry: the instance takes her for new.
	if _, err := f.store.Leave(f.ctx, presence.SessionRef{SessionKey: alice, Generation: res.Session.Generation}); err != nil {
		t.Fatal(err)
	}
	lookups, ops, _ = joinCost(t, f, f.store, alice)
	if lookups != 1 || ops != (firestoredb.OpCounts{Reads: 9, Writes: 6}) {
		t.Fatalf("a join after leaving: %d lookups, %+v; want 1 lookup, 9 reads, and a new entry's 5 writes with her departure record's deletion", lookups, ops)
	}
}
