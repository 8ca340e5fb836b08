package firestoredb_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// emptyRoom makes room suspected_empty past its grace, leaving alice's read
// receipt behind, and returns the sweeper's view of the room.
func emptyRoom(t *testing.T, f *fixture, room string) presence.Room {
	t.Helper()
	j := f.mustJoin(t, room, "alice", "tab")
	if _, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: room, ParticipantID: "alice", LastReadSeq: 5}); err != nil {
		t.Fatal(err)
	}
	if res, err := f.store.Leave(f.ctx, ref(room, "alice", "tab", j.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("leave: %v %v", res.Removed, err)
	}
	f.clock.Advance(presence.DefaultSettings().EmptyRoomGrace)
	listing, err := f.store.DueRooms(f.ctx, f.clock.Now(), 10, false)
	due := listing.Items
	if err != nil || len(due) != 1 || due[0].ID != room {
		t.Fatalf("due rooms %v, %v", due, err)
	}
	return due[0]
}

// docs/races.md, "join after the check": the sweeper has seen the room empty (zero live
// leases, generation 1), then a join commits, then the sweeper's delete
// comes: the delete loses its compare-and-set.
func TestTeardown_AJoinAfterTheSweepersCheckWins(t *testing.T) {
	f := MustOpenStore(t)
	seen := emptyRoom(t, f, "r6")

	if _, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r6", ParticipantID: "bob", SessionID: "tab"}}); err != nil {
		t.Fatal(err)
	}
	res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != presence.GenerationChanged || res.Closing != nil {
		t.Fatalf("verdict %v closing %v, want the delete to lose", res.Verdict, res.Closing)
	}
	if room := f.readRoom(t, "r6"); room["state"] != "active" || room["generation"] != int64(2) {
		t.Fatalf("room after the race: %v", room)
	}
}

// The same race one step later: the join arrives while the teardown
// transaction is between its occupancy check and its commit.
//
// Two hooks force that ordering. The teardown pauses after its check until
// bob's join has entered its transaction; the join pauses before its reads
// until the teardown has committed. Production Firestore ends the real race
// the same way: the join's first attempt, if it read the room before the
// teardown committed, is wounded by the older teardown and retried, and the
// retry reads the room after the commit. (The emulator breaks that deadlock
// by a lock timeout that may abort either side, so letting the two attempts
// overlap there would test the emulator's dice, not roomlease.) The join
// then starts a fresh lifetime of the room, and the purge must spare it.
func TestTeardown_AJoinDuringTheTeardownStartsANewLifetime(t *testing.T) {
	f := MustOpenStore(t)
	seen := emptyRoom(t, f, "r6b")

	joinEntered := make(chan struct{})
	teardownCommitted := make(chan struct{})
	var joinAttempts atomic.Int32
	f.other.SetBeforeJoinReads(func() {
		if joinAttempts.Add(1) == 1 {
			close(joinEntered)
			<-teardownCommitted
		}
	})
	joined := make(chan error, 1)
	var checks atomic.Int32
	f.store.SetAfterTeardownCheck(func() {
		if checks.Add(1) != 1 {
			return
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := f.other.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r6b", ParticipantID: "bob", SessionID: "tab"}})
			joined <- err
		}()
		<-joinEntered
	})
	res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
	select {
	case err := <-joined:
		t.Fatalf("bob's join finished (%v) before the teardown returned: the ordering was not forced", err)
	default:
	}
	close(teardownCommitted)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != presence.TearDown || res.Closing == nil {
		t.Fatalf("verdict %v, want the teardown to commit first", res.Verdict)
	}
	if n := checks.Load(); n != 1 {
		t.Fatalf("the teardown ran its check %d times, want 1 (no retry)", n)
	}
	if err := <-joined; err != nil {
		t.Fatalf("bob's join: %v", err)
	}
	if n, err := f.store.PurgeClosed(f.ctx, 10); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}

	room := f.readRoom(t, "r6b")
	if room["state"] != "active" || room["generation"] != int64(1) {
		t.Fatalf("the new lifetime: %v", room)
	}
	ids, _ := f.liveIDs(t, "r6b", "bob")
	if len(ids) != 1 || ids[0] != "bob" {
		t.Fatalf("roster %v, want [bob]", ids)
	}
	docs := emulatortest.Snapshot(t, f.client)
	for _, p := range []string{"rooms/r6b/participants/bob", "rooms/r6b/participants/bob/sessions/tab"} {
		if _, ok := docs[p]; !ok {
			t.Errorf("the purge took %s, written by the new lifetime", p)
		}
	}
	if _, ok := docs["rooms/r6b/receipts/alice"]; ok {
		t.Error("the old lifetime's receipt survived the purge")
	}
}

// A teardown's proof of absence must not hold up the rest of the database
// (docs/races.md, "A teardown's query that stalled every session write").
// With the teardown of one room paused between its check and its commit, as
// a sweeper on a starved or dying instance would be, a heartbeat that
// renews a lease in another room commits at once. (On the emulator, a
// collection-group query inside the teardown's transaction locked every
// session document until the transaction ended: this heartbeat failed.)
func TestTeardown_APausedTeardownDoesNotStallOtherRooms(t *testing.T) {
	f := MustOpenStore(t)
	seen := emptyRoom(t, f, "idle")
	other := f.mustJoin(t, "busy", "bob", "tab")
	f.clock.Advance(presence.DefaultSettings().Lease - presence.DefaultSettings().RenewWithin()) // the renewal is due

	var hbErr error
	var ran atomic.Bool
	f.store.SetAfterTeardownCheck(func() {
		if !ran.CompareAndSwap(false, true) {
			return
		}
		ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
		defer cancel()
		_, hbErr = f.other.Heartbeat(ctx, ref("busy", "bob", "tab", other.Session.Generation))
	})
	if res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true); err != nil || res.Verdict != presence.TearDown {
		t.Fatalf("teardown: %v %v", res.Verdict, err)
	}
	if !ran.Load() {
		t.Fatal("the teardown never reached its commit: the interleaving was not forced")
	}
	if hbErr != nil {
		t.Fatalf("a heartbeat in another room, during a paused teardown: %v", hbErr)
	}
}
