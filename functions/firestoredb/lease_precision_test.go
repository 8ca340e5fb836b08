package firestoredb_test

import (
	"testing"
	"time"
)

// Firestore keeps timestamps to the microsecond. A lease granted at a now
// with nanoseconds must end where it is stored, or the sweeper, judging the
// stored end, removes a lease its holder was told is still live (the model
// test found it once its clocks moved by sub-microsecond steps).
func TestLease_TheAnsweredEndIsTheStoredEnd(t *testing.T) {
	f := MustOpenStore(t)
	f.clock.Advance(1500 * time.Nanosecond) // a now between two microseconds
	res := f.mustJoin(t, "precise", "alice", "tab")
	answered := res.Session.LeaseExpiresAt

	snap, err := f.client.Doc("rooms/precise/participants/alice/sessions/tab").Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	stored, ok := snap.Data()["leaseExpiresAt"].(time.Time)
	if !ok {
		t.Fatalf("session document has no leaseExpiresAt: %v", snap.Data())
	}
	if !stored.Equal(answered) {
		t.Errorf("the join answered a lease to %s, but stored %s", answered.Format(time.RFC3339Nano), stored.Format(time.RFC3339Nano))
	}

	// A nanosecond before the end it was told, the holder's lease is live:
	// the sweeper must not list it.
	listing, err := f.store.ExpiredSessions(f.ctx, answered.Add(-time.Nanosecond), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(listing.Items) != 0 {
		t.Errorf("a nanosecond before the answered end, the sweeper lists %d expired sessions: %+v", len(listing.Items), listing.Items)
	}
}
