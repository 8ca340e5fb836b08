package firestoredb_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// The edge of a lease (docs/races.md, "A renewal at the lease's edge
// against a sibling's departure").
//
// Alice holds two sessions in one room. s2's heartbeat judges, at its
// instance's now, a millisecond before s2's lease ends, that the lease still
// holds, and renews it. A departure of s1 (her leave, the sweeper's expiry of
// s1, or a join of a third tab) judges, at its own now a millisecond after
// that edge, that s2 has ended, and recounts her sessions without it. The
// renewal writes only s2's session document, so unless the departure's
// decision rests on a read of s2 that the renewal conflicts with, both
// commit: Alice holds a live lease that no roster entry shows (or shows
// with the wrong session count), and her heartbeats go on answering 200.
//
// Each case runs both orders a real deployment can produce:
//   - the renewal commits while the departure is between its listing of
//     Alice's sessions (outside the transaction) and its decision;
//   - the renewal comes after the departure committed, from an instance
//     whose now was taken before that commit.
//
// Either the heartbeat wins and Alice stays listed with both sessions
// counted, or it gets stale_generation; never a live lease off the roster.
func TestLeaseEdge_RenewalAgainstASiblingsDeparture(t *testing.T) {
	departures := []struct {
		name   string
		depart func(f *fixture, store *firestoredb.Store, s1 presence.JoinResult) error
	}{
		{"Leave", func(f *fixture, store *firestoredb.Store, s1 presence.JoinResult) error {
			res, err := store.Leave(f.ctx, ref("edge", "alice", "s1", s1.Session.Generation))
			if err == nil && !res.Removed {
				t.Fatal("s1's leave removed nothing")
			}
			return err
		}},
		{"Expiry", func(f *fixture, store *firestoredb.Store, s1 presence.JoinResult) error {
			res, err := store.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "edge", ParticipantID: "alice",
				SessionID: "s1", Generation: s1.Session.Generation, LeaseExpiresAt: s1.Session.LeaseExpiresAt})
			if err == nil && res.Outcome != presence.Done {
				t.Fatalf("s1's expiry: outcome %v", res.Outcome)
			}
			return err
		}},
		{"JoinOfAThirdTab", func(f *fixture, store *firestoredb.Store, _ presence.JoinResult) error {
			_, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "edge", ParticipantID: "alice", SessionID: "s3"}})
			return err
		}},
	}
	// Each case runs with the renewal on the read path (no token) and
	// fenced by its lease token (docs/races.md, "Renewals fenced without a
	// read"): the token path writes s2 on the condition that it is
	// unchanged, and the departure's read of s2 inside its transaction
	// serialises with that write as with the read path's transaction.
	s2ref := func(s2 presence.JoinResult, token bool) presence.SessionRef {
		r := ref("edge", "alice", "s2", s2.Session.Generation)
		if token {
			r.Token = s2.Grant.Token
		}
		return r
	}
	for _, d := range departures {
		for _, token := range []bool{false, true} {
			name := d.name
			if token {
				name += "/Fenced"
			}
			t.Run(name+"/RenewalCommitsMidDeparture", func(t *testing.T) {
				f, s1, s2, edge := leaseEdgeFixture(t)
				heartbeats := f.instance(t, fixedClock(edge.Add(-time.Millisecond)))
				var hbErr error
				var ran atomic.Bool
				f.store.SetAfterSiblingListing(func() {
					if ran.CompareAndSwap(false, true) {
						before := heartbeats.Ops()
						_, hbErr = heartbeats.Heartbeat(f.ctx, s2ref(s2, token))
						// Fenced: the policy (first on this instance) and no session read.
						if cost := heartbeats.Ops().Sub(before); token && hbErr == nil && cost.Reads != 1 {
							t.Errorf("the fenced renewal read %d documents: it took the read path", cost.Reads)
						}
					}
				})
				f.clock.Advance(edge.Add(time.Millisecond).Sub(f.clock.Now()))
				if err := d.depart(f, f.store, s1); err != nil {
					t.Fatal(err)
				}
				if !ran.Load() {
					t.Fatal("the departure never listed Alice's sessions: the interleaving was not forced")
				}
				if hbErr != nil {
					t.Fatalf("s2's heartbeat, committed before the departure decided: %v", hbErr)
				}
				// A renewal that answered 200 is not undone afterwards.
				snap, err := f.client.Doc("rooms/edge/participants/alice/sessions/s2").Get(f.ctx)
				if err != nil {
					t.Fatalf("s2, renewed before the departure decided, is gone: %v", err)
				}
				if end, _ := snap.Data()[firestoredb.FieldLeaseExpiresAt].(time.Time); !end.After(f.clock.Now()) {
					t.Fatalf("s2's renewed lease ends at %v, before %v", end, f.clock.Now())
				}
				checkRosterMatchesLeases(t, f, f.clock.Now())
			})
			t.Run(name+"/RenewalAfterTheCommit", func(t *testing.T) {
				f, s1, s2, edge := leaseEdgeFixture(t)
				heartbeats := f.instance(t, fixedClock(edge.Add(-time.Millisecond)))
				f.clock.Advance(edge.Add(time.Millisecond).Sub(f.clock.Now()))
				if err := d.depart(f, f.store, s1); err != nil {
					t.Fatal(err)
				}
				_, err := heartbeats.Heartbeat(f.ctx, s2ref(s2, token))
				if err != nil && presence.ErrorCode(err) != presence.EStaleGeneration {
					t.Fatalf("s2's heartbeat: %v", err)
				}
				checkRosterMatchesLeases(t, f, f.clock.Now())
			})
		}
	}
}

// leaseEdgeFixture joins Alice's s1 and, 10 ms later, s2 in room "edge",
// and returns s2's lease end: the edge.
func leaseEdgeFixture(t *testing.T) (f *fixture, s1, s2 presence.JoinResult, edge time.Time) {
	t.Helper()
	f = MustOpenStore(t)
	s1 = f.mustJoin(t, "edge", "alice", "s1")
	f.clock.Advance(10 * time.Millisecond)
	s2 = f.mustJoin(t, "edge", "alice", "s2")
	return f, s1, s2, s2.Session.LeaseExpiresAt
}

// checkRosterMatchesLeases checks the roster invariant for Alice at now:
// she has a roster entry exactly when one of her sessions holds a live
// lease, and its session count is the number of those.
func checkRosterMatchesLeases(t *testing.T, f *fixture, now time.Time) {
	t.Helper()
	entry := f.client.Collection(firestoredb.RoomsCollection).Doc("edge").Collection(firestoredb.ParticipantsCollection).Doc("alice")
	sessions, err := entry.Collection(firestoredb.SessionsCollection).Documents(f.ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	live := 0
	for _, snap := range sessions {
		if end, _ := snap.Data()[firestoredb.FieldLeaseExpiresAt].(time.Time); end.After(now) {
			live++
		}
	}
	snap, err := entry.Get(f.ctx)
	switch {
	case err != nil && !snap.Exists() && live > 0:
		t.Fatalf("%d of Alice's sessions hold a live lease, but she has no roster entry", live)
	case err != nil && !snap.Exists():
		return
	case err != nil:
		t.Fatal(err)
	case live == 0:
		t.Fatalf("Alice is listed with no live lease")
	}
	if count, _ := snap.Data()["sessionCount"].(int64); count != int64(live) {
		t.Fatalf("Alice's entry counts %d sessions, %d hold a live lease", count, live)
	}
}
