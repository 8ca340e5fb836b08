package firestoredb_test

import (
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// A departure of a user's only session lists nothing (presence.SoleSession):
// the entry counts one session and it is the departing one. With two tabs,
// the first tab's departure lists; the second's, once it is the one the
// entry counts, does not; nor does a repeated leave of a session already
// gone. Every step leaves the roster matching the leases.
func TestSoleSession_TheOnlySessionsDepartureListsNothing(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "edge", "bob", "tab") // keeps the room from its grace
	s1 := f.mustJoin(t, "edge", "alice", "s1")
	s2 := f.mustJoin(t, "edge", "alice", "s2")
	var listed atomic.Int32
	f.store.SetAfterSiblingListing(func() { listed.Add(1) })

	if res, err := f.store.Leave(f.ctx, ref("edge", "alice", "s1", s1.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("s1's leave: %+v %v", res, err)
	}
	if n := listed.Load(); n != 1 {
		t.Fatalf("s1's leave, with s2 counted too, listed Alice's sessions %d time(s); want 1", n)
	}
	checkRosterMatchesLeases(t, f, f.clock.Now())
	// A repeated leave of s1 finds it gone: nothing to decide, no listing.
	if res, err := f.store.Leave(f.ctx, ref("edge", "alice", "s1", s1.Session.Generation)); err != nil || res.Removed {
		t.Fatalf("s1's repeated leave: %+v %v", res, err)
	}
	if n := listed.Load(); n != 1 {
		t.Fatalf("a repeated leave of a session already gone listed Alice's sessions")
	}

	before := f.store.Ops()
	if res, err := f.store.Leave(f.ctx, ref("edge", "alice", "s2", s2.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("s2's leave: %+v %v", res, err)
	}
	if n := listed.Load(); n != 1 {
		t.Fatalf("s2's leave, the only session her entry counts, listed her sessions")
	}
	if _, err := f.client.Doc("rooms/edge/participants/alice").Get(f.ctx); err == nil {
		t.Fatal("Alice's entry outlived her last session")
	}
	checkRosterMatchesLeases(t, f, f.clock.Now())
	// The entry, the session, the event cursor or not, a witness: whatever
	// else it reads, a listing would add one read.
	withoutListing := f.store.Ops().Sub(before).Reads

	carol := f.mustJoin(t, "edge", "carol", "tab")
	if _, err := f.client.Doc("rooms/edge/participants/carol/sessions/tab").Update(f.ctx,
		[]firestore.Update{{Path: firestoredb.FieldEntryJoinedAt, Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
	before = f.store.Ops()
	if _, err := f.store.Leave(f.ctx, ref("edge", "carol", "tab", carol.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	if n := listed.Load(); n != 2 {
		t.Fatalf("a session without the stamp (written before it existed) was not listed: %d listings", n)
	}
	if withListing := f.store.Ops().Sub(before).Reads; withListing != withoutListing+1 {
		t.Fatalf("the leave read %d documents with the listing, %d without: want exactly one more", withListing, withoutListing)
	}
}

// An orphan of an earlier entry is not the session the entry counts. Alice's
// s1 ended and her entry went without it (as TTL removes an entry, or a
// teardown leaves sessions for the purge); she came back with s2, whose
// join counted only s2. The sweeper's expiry of s1 finds an entry counting
// one session, but s1 carries the old entry's stamp, so the expiry lists,
// finds s2 live, and Alice stays listed. Trusting the count alone would
// remove her entry while s2 holds a live lease.
func TestSoleSession_AnOrphanOfAnEarlierEntryListsItsSiblings(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "edge", "bob", "tab")
	s1 := f.mustJoin(t, "edge", "alice", "s1")
	f.setClock(s1.Session.LeaseExpiresAt.Add(time.Second))
	if _, err := f.client.Doc("rooms/edge/participants/alice").Delete(f.ctx); err != nil {
		t.Fatal(err)
	}
	s2 := f.mustJoin(t, "edge", "alice", "s2")
	if got := s2.Session.EntryJoinedAt; got.Equal(s1.Session.EntryJoinedAt) {
		t.Fatalf("the new entry's session carries the old entry's stamp %v", got)
	}
	var listed atomic.Int32
	f.store.SetAfterSiblingListing(func() { listed.Add(1) })

	res, err := f.store.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "edge", ParticipantID: "alice",
		SessionID: "s1", Generation: s1.Session.Generation, LeaseExpiresAt: s1.Session.LeaseExpiresAt})
	if err != nil || res.Outcome != presence.Done {
		t.Fatalf("s1's expiry: %+v %v", res, err)
	}
	if _, err := f.client.Doc("rooms/edge/participants/alice").Get(f.ctx); err != nil {
		t.Fatalf("Alice's entry, counting the live s2, went with the orphan s1: %v", err)
	}
	checkRosterMatchesLeases(t, f, f.clock.Now())
	if listed.Load() != 1 {
		t.Fatal("the orphan's expiry did not list Alice's sessions")
	}
}

// A second tab's join against the first tab's departure that listed
// nothing. The departure has read Alice's entry (one session counted) and
// pauses; the join, on another instance, reads the same entry, lists s1 and
// plans a count of two; then both commit. Each wrote the entry the other
// read, so one of them commits first and the other retries on what it
// wrote: whichever order the emulator picks, Alice ends listed with s2 alone
// counted, and s1 is gone.
func TestSoleSession_ASecondTabJoinsWhileTheOnlyTabDeparts(t *testing.T) {
	departures := map[string]func(f *fixture, s1 presence.JoinResult) error{
		"Leave": func(f *fixture, s1 presence.JoinResult) error {
			_, err := f.store.Leave(f.ctx, ref("edge", "alice", "s1", s1.Session.Generation))
			return err
		},
		"Expiry": func(f *fixture, s1 presence.JoinResult) error {
			_, err := f.store.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "edge", ParticipantID: "alice",
				SessionID: "s1", Generation: s1.Session.Generation, LeaseExpiresAt: s1.Session.LeaseExpiresAt})
			return err
		},
	}
	for name, depart := range departures {
		t.Run(name, func(t *testing.T) {
			f := MustOpenStore(t)
			f.mustJoin(t, "edge", "bob", "tab")
			s1 := f.mustJoin(t, "edge", "alice", "s1")
			joiner := f.other
			if name == "Expiry" {
				// s1's lease has ended at the sweeper's now; the second tab
				// joins through an instance whose now is just before that
				// end, so that its listing still counts s1 live.
				joiner = f.instance(t, fixedClock(s1.Session.LeaseExpiresAt.Add(-time.Millisecond)))
				f.setClock(s1.Session.LeaseExpiresAt.Add(time.Millisecond))
			}
			joinedReads := make(chan struct{})
			var signalled atomic.Bool
			joiner.SetAfterJoinReads(func() {
				if signalled.CompareAndSwap(false, true) {
					close(joinedReads)
				}
			})
			var joinErr error
			joinDone := make(chan struct{})
			var paused atomic.Bool
			f.store.SetAfterDepartureReads(func() {
				if !paused.CompareAndSwap(false, true) {
					return
				}
				go func() {
					defer close(joinDone)
					_, joinErr = joiner.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "edge", ParticipantID: "alice", SessionID: "s2"}})
				}()
				select { // the join has read the entry the departure holds
				case <-joinedReads:
				case <-joinDone:
				}
			})
			if err := depart(f, s1); err != nil {
				t.Fatalf("s1's departure: %v", err)
			}
			<-joinDone
			if !signalled.Load() {
				t.Fatal("the join never reached its decision: the interleaving was not forced")
			}
			if joinErr != nil {
				t.Fatalf("s2's join: %v", joinErr)
			}
			if _, err := f.client.Doc("rooms/edge/participants/alice/sessions/s1").Get(f.ctx); err == nil {
				t.Fatal("s1 outlived its departure")
			}
			checkRosterMatchesLeases(t, f, f.clock.Now())
			if _, err := f.client.Doc("rooms/edge/participants/alice").Get(f.ctx); err != nil {
				t.Fatalf("Alice, joined with s2, is not listed: %v", err)
			}
		})
	}
}
