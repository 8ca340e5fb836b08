package firestoredb_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A teardown against a lease at its edge (docs/races.md, "A teardown
// under a lease at its edge").
//
// Alice's leave empties room "edge" and writes it suspected_empty; Bob's
// join slipped in between her count and that write, and her instance dies
// before its recount would have revived the room. Bob keeps renewing. Past
// the grace, a sweeper's teardown judges, at its now a millisecond after
// Bob's lease ends, that no lease is live (its expiry step, earlier in the
// pass, found Bob's lease still running). Meanwhile another instance,
// whose now is a millisecond before that end, serves one of Bob's
// requests: a renewal (read path, or fenced by its lease token), a state
// update; or a sweeper on a third instance expires Bob's leftover entry.
//
// Each request runs in both orders a deployment can produce: committing
// between the teardown's check and its commit, and after the commit (its
// now taken before it). Whatever wins, a request that answered success
// finds its room, its roster entry and its session, and a room that is
// gone leaves nothing of its lifetime after the purge: no session renewed
// into nowhere, no entry, revision shard or departure record carried into
// the room's next lifetime.
func TestTeardown_ALeaseAtItsEdgeInASuspectedRoom(t *testing.T) {
	requests := []struct {
		name string
		// late is the instance whose now is just before Bob's lease ends.
		run func(t *testing.T, f *fixture, late *firestoredb.Store, bob presence.Grant, gen int64) error
		// promises: an answer of success promises Bob a live lease.
		promises bool
	}{
		{"Renewal", func(t *testing.T, f *fixture, late *firestoredb.Store, _ presence.Grant, gen int64) error {
			_, err := late.Renew(f.ctx, ref("edge", "bob", "tab", gen))
			return err
		}, true},
		{"FencedRenewal", func(t *testing.T, f *fixture, late *firestoredb.Store, bob presence.Grant, gen int64) error {
			before := late.Ops()
			_, err := late.Renew(f.ctx, withToken(ref("edge", "bob", "tab", gen), bob.Token))
			// The policy read (first on this instance), and no session read.
			if cost := late.Ops().Sub(before); err == nil && cost.Reads != 1 {
				t.Errorf("the fenced renewal read %d documents: it took the read path", cost.Reads)
			}
			return err
		}, true},
		{"StateUpdate", func(t *testing.T, f *fixture, late *firestoredb.Store, _ presence.Grant, gen int64) error {
			_, err := late.SetState(f.ctx, presence.StateRequest{SessionRef: ref("edge", "bob", "tab", gen), State: presence.State{"mood": "here"}})
			return err
		}, true},
	}
	for _, r := range requests {
		t.Run(r.name+"/MidTeardown", func(t *testing.T) {
			f, bob, gen, seen := suspectedWithALiveLease(t)
			late := f.instance(t, fixedClock(bob.LeaseExpiresAt.Add(-time.Millisecond)))
			var reqErr error
			var ran atomic.Bool
			f.store.SetAfterTeardownCheck(func() {
				if ran.CompareAndSwap(false, true) {
					reqErr = r.run(t, f, late, bob, gen)
				}
			})
			res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
			if err != nil {
				t.Fatal(err)
			}
			if !ran.Load() {
				t.Fatal("the teardown never reached its commit: the interleaving was not forced")
			}
			checkAfterTeardown(t, f, res, reqErr, r.promises)
		})
		t.Run(r.name+"/AfterTheCommit", func(t *testing.T) {
			f, bob, gen, seen := suspectedWithALiveLease(t)
			late := f.instance(t, fixedClock(bob.LeaseExpiresAt.Add(-time.Millisecond)))
			res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
			if err != nil {
				t.Fatal(err)
			}
			checkAfterTeardown(t, f, res, r.run(t, f, late, bob, gen), r.promises)
		})
	}

	// The sweeper on another instance expires Bob's session, whose lease
	// has ended by its clock too, and so his roster entry: a departure,
	// which writes a revision shard and a recentlyLeft record. Mid-teardown,
	// its transaction commits between the teardown's check and its commit;
	// its emptiness check, which writes the room, waits until the teardown
	// has returned (the room is locked by the teardown's read until then).
	expire := func(f *fixture, bob presence.Grant, gen int64) error {
		res, err := f.other.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "edge", ParticipantID: "bob",
			SessionID: "tab", Generation: gen, LeaseExpiresAt: bob.LeaseExpiresAt})
		if err == nil && res.Outcome != presence.Done {
			return presence.Errorf(presence.EInternal, "expiry outcome %v, want done", res.Outcome)
		}
		return err
	}
	t.Run("Expiry/MidTeardown", func(t *testing.T) {
		f, bob, gen, seen := suspectedWithALiveLease(t)
		committed, returned := make(chan struct{}), make(chan struct{})
		var once atomic.Bool
		f.other.SetBeforeEmptinessWrite(func() {
			if once.CompareAndSwap(false, true) {
				close(committed)
				<-returned
			}
		})
		expired := make(chan error, 1)
		var ran atomic.Bool
		f.store.SetAfterTeardownCheck(func() {
			if !ran.CompareAndSwap(false, true) {
				return
			}
			go func() { expired <- expire(f, bob, gen) }()
			select {
			case <-committed:
			case err := <-expired:
				expired <- err // it needed no room write: it is done
			}
		})
		res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
		close(returned)
		if err != nil {
			t.Fatal(err)
		}
		if !ran.Load() {
			t.Fatal("the teardown never reached its commit: the interleaving was not forced")
		}
		checkAfterTeardown(t, f, res, <-expired, false)
	})
	t.Run("Expiry/AfterTheCommit", func(t *testing.T) {
		f, bob, gen, seen := suspectedWithALiveLease(t)
		res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
		if err != nil {
			t.Fatal(err)
		}
		checkAfterTeardown(t, f, res, expire(f, bob, gen), false)
	})
}

// suspectedWithALiveLease builds the state of a departure whose instance
// died between its steps (see settleEmptiness): room "edge" suspected_empty
// while Bob's entry and session are there. Bob then renews, on another
// instance, until his lease ends after the room's grace; the fixture's
// clock is left a millisecond past that end, which is Bob's last grant,
// his generation, and the room as a sweeper lists it due.
func suspectedWithALiveLease(t *testing.T) (f *fixture, bob presence.Grant, gen int64, seen presence.Room) {
	t.Helper()
	f = MustOpenStore(t)
	alice := f.mustJoin(t, "edge", "alice", "tab")
	var joined presence.JoinResult
	var once atomic.Bool
	f.store.SetBeforeEmptinessWrite(func() {
		if once.CompareAndSwap(false, true) {
			var err error
			if joined, err = f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "edge", ParticipantID: "bob", SessionID: "tab"}}); err != nil {
				t.Fatalf("bob's join: %v", err)
			}
		}
	})
	f.store.SetBeforeEmptinessRevive(instanceDies)
	if !diesDuring(func() { _, _ = f.store.Leave(f.ctx, ref("edge", "alice", "tab", alice.Session.Generation)) }) {
		t.Fatal("alice's leave never reached its recount: the instance did not die between its steps")
	}
	f.store.SetBeforeEmptinessWrite(nil)
	f.store.SetBeforeEmptinessRevive(nil)
	if room := f.readRoom(t, "edge"); room["state"] != string(presence.StateSuspectedEmpty) {
		t.Fatalf("room %v, want suspected_empty with Bob in it", room)
	}
	gen, bob = joined.Session.Generation, joined.Grant
	grace := presence.DefaultSettings().EmptyRoomGrace
	for cleanup := f.clock.Now().Add(grace); !bob.LeaseExpiresAt.After(cleanup); {
		f.setClock(bob.LeaseExpiresAt.Add(-presence.DefaultSettings().RenewWithin()))
		g, err := f.other.Renew(f.ctx, withToken(ref("edge", "bob", "tab", gen), bob.Token))
		if err != nil {
			t.Fatalf("bob's renewal: %v", err)
		}
		bob = g
	}
	f.setClock(bob.LeaseExpiresAt.Add(time.Millisecond))
	listing, err := f.store.DueRooms(f.ctx, f.clock.Now(), 10, false)
	if err != nil || len(listing.Items) != 1 {
		t.Fatalf("due rooms %v, %v", listing.Items, err)
	}
	return f, bob, gen, listing.Items[0]
}

// checkAfterTeardown purges what the teardown closed and checks what is
// left of room "edge": if the request (whose error is reqErr) answered
// success and promised a live lease, Bob's room, entry and session are
// there; a session always has its roster entry; and a room that is gone
// has nothing left under it.
func checkAfterTeardown(t *testing.T, f *fixture, res presence.TeardownResult, reqErr error, promises bool) {
	t.Helper()
	if reqErr != nil && presence.ErrorCode(reqErr) != presence.EStaleGeneration {
		t.Fatalf("bob's request: %v", reqErr)
	}
	if _, err := f.store.PurgeClosed(f.ctx, 10); err != nil {
		t.Fatal(err)
	}
	docs := emulatortest.Snapshot(t, f.client)
	_, roomThere := docs["rooms/edge"]
	_, entryThere := docs["rooms/edge/participants/bob"]
	_, sessionThere := docs["rooms/edge/participants/bob/sessions/tab"]
	t.Logf("teardown verdict %v; request: %v; room %v, entry %v, session %v", res.Verdict, reqErr, roomThere, entryThere, sessionThere)
	if promises && reqErr == nil && !(roomThere && entryThere && sessionThere) {
		t.Errorf("bob's request succeeded, but room %v, entry %v, session %v", roomThere, entryThere, sessionThere)
	}
	if sessionThere && !entryThere {
		t.Error("bob's session outlived his roster entry: a lease no one sees")
	}
	if !roomThere {
		for p := range docs {
			if strings.HasPrefix(p, "rooms/edge/") {
				t.Errorf("%s is left under the torn-down room after the purge", p)
			}
		}
	}
}
