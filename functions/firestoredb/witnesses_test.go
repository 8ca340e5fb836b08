package firestoredb_test

import (
	"sync/atomic"
	"testing"

	"github.com/roomlease/roomlease/functions/presence"
)

// A leave's emptiness check in a room where this instance served another
// user's join reads that user's entry and stops there: no query for the
// roster runs, and the room stays active.
func TestWitnesses_APresentWitnessSparesTheQuery(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "wt", "bob", "tab")
	alice := f.mustJoin(t, "wt", "alice", "tab")
	var queried atomic.Int32
	f.store.SetBeforeOccupancyQuery(func() { queried.Add(1) })

	before := f.store.Ops()
	res, err := f.store.Leave(f.ctx, ref("wt", "alice", "tab", alice.Session.Generation))
	if err != nil || !res.Removed {
		t.Fatalf("alice's leave: %+v %v", res, err)
	}
	if n := queried.Load(); n != 0 {
		t.Fatalf("the roster was queried %d time(s); bob's entry, read, answers", n)
	}
	if room := f.readRoom(t, "wt"); room["state"] != string(presence.StateActive) {
		t.Fatalf("room %v: bob is still there", room)
	}
	withWitness := f.store.Ops().Sub(before).Reads

	// The same leave where this instance saw no one else join: it queries.
	f.store.SetBeforeOccupancyQuery(nil)
	if _, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "wq", ParticipantID: "bob", SessionID: "tab"}}); err != nil {
		t.Fatal(err)
	}
	carol := f.mustJoin(t, "wq", "carol", "tab")
	before = f.store.Ops()
	if _, err := f.store.Leave(f.ctx, ref("wq", "carol", "tab", carol.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	if withQuery := f.store.Ops().Sub(before).Reads; withWitness != withQuery {
		t.Fatalf("the leave read %d documents with a witness, %d with the query: a hit must bill as the query did", withWitness, withQuery)
	}
}

// A witness is a hint, never evidence of absence or presence by itself:
// bob, whom this instance saw join, left through another instance. Alice's
// leave, the room's last, reads bob's entry, finds it gone, queries, and
// the room enters its grace.
func TestWitnesses_AWitnessGoneElsewhereProvesNothing(t *testing.T) {
	f := MustOpenStore(t)
	alice := f.mustJoin(t, "wg", "alice", "tab")
	bob := f.mustJoin(t, "wg", "bob", "tab") // this instance's latest witness
	if res, err := f.other.Leave(f.ctx, ref("wg", "bob", "tab", bob.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("bob's leave elsewhere: %+v %v", res, err)
	}
	var queried atomic.Int32
	f.store.SetBeforeOccupancyQuery(func() { queried.Add(1) })

	if _, err := f.store.Leave(f.ctx, ref("wg", "alice", "tab", alice.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	// Queried twice: the count after bob's entry was not found, and the
	// recount after the room was written (settleEmptiness, step 3).
	if n := queried.Load(); n != 2 {
		t.Fatalf("the roster was queried %d time(s), want 2", n)
	}
	if room := f.readRoom(t, "wg"); room["state"] != string(presence.StateSuspectedEmpty) {
		t.Fatalf("room %v: the last leave must start the grace", room)
	}
}
