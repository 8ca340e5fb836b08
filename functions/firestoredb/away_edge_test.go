package firestoredb_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// Away at the lease's edge (docs/races.md, "An away toggle at a sibling's
// lease edge").
//
// Alice holds two sessions: s2, a foreground tab, and s1, a tab she hides.
// s2's heartbeat judges, at its instance's now a millisecond before s2's
// lease ends, that the lease holds, and renews it. s1's away heartbeat
// judges, at its own now a millisecond after that edge, that s2 has ended,
// so that every live session of hers is away, and writes her entry away.
// Unless that judgement deletes s2 as a departure's does (ExpiredSiblings),
// both commit: she is shown away while using s2, until her next visible
// change, and her entry counts a session it should not (or the reverse).
//
// Both orders a deployment can produce, with the renewal on the read path
// and fenced by its lease token: the renewal commits while the toggle is
// between its listing of her sessions and its decision (the toggle then
// reads s2 renewed), or after the toggle committed, from an instance whose
// now was taken before (it then finds s2 gone: 409, and her client joins
// again). Either way the roster shows her away exactly when every live
// session of hers is.
func TestLeaseEdge_RenewalAgainstASiblingsAwayToggle(t *testing.T) {
	for _, token := range []bool{false, true} {
		name := "ReadPath"
		if token {
			name = "Fenced"
		}
		s2ref := func(s2 presence.JoinResult) presence.SessionRef {
			r := ref("edge", "alice", "s2", s2.Session.Generation)
			if token {
				r.Token = s2.Grant.Token
			}
			return r
		}
		t.Run(name+"/RenewalCommitsMidToggle", func(t *testing.T) {
			f, s1, s2, edge := awayEdgeFixture(t)
			heartbeats := f.instance(t, fixedClock(edge.Add(-time.Millisecond)))
			var hbErr error
			var ran atomic.Bool
			f.store.SetAfterSiblingListing(func() {
				if ran.CompareAndSwap(false, true) {
					_, hbErr = heartbeats.Heartbeat(f.ctx, s2ref(s2))
				}
			})
			f.setClock(edge.Add(time.Millisecond))
			if _, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: ref("edge", "alice", "s1", s1.Session.Generation), Away: true}); err != nil {
				t.Fatal(err)
			}
			if !ran.Load() {
				t.Fatal("the toggle never listed Alice's sessions: the interleaving was not forced")
			}
			if hbErr != nil {
				t.Fatalf("s2's heartbeat, committed before the toggle decided: %v", hbErr)
			}
			checkAwayMatchesLeases(t, f, f.clock.Now())
		})
		t.Run(name+"/RenewalAfterTheCommit", func(t *testing.T) {
			f, s1, s2, edge := awayEdgeFixture(t)
			heartbeats := f.instance(t, fixedClock(edge.Add(-time.Millisecond)))
			f.setClock(edge.Add(time.Millisecond))
			if _, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: ref("edge", "alice", "s1", s1.Session.Generation), Away: true}); err != nil {
				t.Fatal(err)
			}
			_, err := heartbeats.Heartbeat(f.ctx, s2ref(s2))
			if err != nil && presence.ErrorCode(err) != presence.EStaleGeneration {
				t.Fatalf("s2's heartbeat: %v", err)
			}
			checkAwayMatchesLeases(t, f, f.clock.Now())
		})
	}
}

// awayEdgeFixture joins Alice's s2 and, 10 ms later, s1 in room "edge"
// (so s1 is still live at s2's edge), and returns s2's lease end: the edge.
func awayEdgeFixture(t *testing.T) (f *fixture, s1, s2 presence.JoinResult, edge time.Time) {
	t.Helper()
	f = MustOpenStore(t)
	s2 = f.mustJoin(t, "edge", "alice", "s2")
	f.clock.Advance(10 * time.Millisecond)
	s1 = f.mustJoin(t, "edge", "alice", "s1")
	return f, s1, s2, s2.Session.LeaseExpiresAt
}

// checkAwayMatchesLeases checks, besides checkRosterMatchesLeases, that
// Alice's entry shows her away exactly when every live session of hers is.
func checkAwayMatchesLeases(t *testing.T, f *fixture, now time.Time) {
	t.Helper()
	checkRosterMatchesLeases(t, f, now)
	entry := f.client.Collection(firestoredb.RoomsCollection).Doc("edge").Collection(firestoredb.ParticipantsCollection).Doc("alice")
	sessions, err := entry.Collection(firestoredb.SessionsCollection).Documents(f.ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	allAway, live := true, 0
	for _, snap := range sessions {
		if end, _ := snap.Data()[firestoredb.FieldLeaseExpiresAt].(time.Time); end.After(now) {
			live++
			if away, _ := snap.Data()[firestoredb.FieldAway].(bool); !away {
				allAway = false
			}
		}
	}
	snap, err := entry.Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if shown, _ := snap.Data()[firestoredb.FieldAway].(bool); shown != (allAway && live > 0) {
		t.Fatalf("Alice's entry shows away=%v, but of her %d live sessions all away=%v", shown, live, allAway)
	}
}
