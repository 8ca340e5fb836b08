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

// The entry an emptiness query finds is the instance's next witness:
// alice, bob and carol joined through another instance, so dave's leave
// queries and finds one of them; bob's leave, through the same instance,
// then reads that entry and does not query.
func TestWitnesses_TheQueryFindsTheNextWitness(t *testing.T) {
	f := MustOpenStore(t)
	gens := map[string]int64{}
	for _, uid := range []string{"alice", "bob", "carol"} {
		j, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "wn", ParticipantID: uid, SessionID: "tab"}})
		if err != nil {
			t.Fatal(err)
		}
		gens[uid] = j.Session.Generation
	}
	dave := f.mustJoin(t, "wn", "dave", "tab")
	var queried atomic.Int32
	f.store.SetBeforeOccupancyQuery(func() { queried.Add(1) })
	if _, err := f.store.Leave(f.ctx, ref("wn", "dave", "tab", dave.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	if n := queried.Load(); n != 1 {
		t.Fatalf("dave's leave queried %d time(s), want 1: this instance saw no one else join", n)
	}
	if _, err := f.store.Leave(f.ctx, ref("wn", "bob", "tab", gens["bob"])); err != nil {
		t.Fatal(err)
	}
	if n := queried.Load(); n != 1 {
		t.Fatalf("after bob's leave the roster was queried %d times, want still 1: the entry the first query found answers", n)
	}
	if room := f.readRoom(t, "wn"); room["state"] != string(presence.StateActive) {
		t.Fatalf("room %v: alice and carol are there", room)
	}
}
