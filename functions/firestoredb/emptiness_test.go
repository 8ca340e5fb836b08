package firestoredb_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// The revive after a recount (docs/races.md, "A revive that overwrites a
// later grace"). Alice's leave empties the roster and writes the room
// suspected_empty; its recount then finds Carol, who joined just before
// that write. Before Alice's check revives the room, Carol leaves too, and
// her own check moves the grace to her departure. Alice's revive must not
// overwrite that: the room is empty and stays suspected_empty, with the
// grace counted from Carol's departure and its generation unchanged.
func TestEmptiness_ReviveDoesNotOverwriteALaterGrace(t *testing.T) {
	f := MustOpenStore(t)
	alice := f.mustJoin(t, "rv", "alice", "tab")
	carolKey := presence.SessionKey{RoomID: "rv", ParticipantID: "carol", SessionID: "tab"}
	var carolLeftAt time.Time
	var joined, left atomic.Bool
	f.store.SetBeforeEmptinessWrite(func() {
		if joined.CompareAndSwap(false, true) {
			if _, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: carolKey}); err != nil {
				t.Errorf("carol's join: %v", err)
			}
		}
	})
	f.store.SetBeforeEmptinessRevive(func() {
		if !left.CompareAndSwap(false, true) {
			return
		}
		f.clock.Advance(time.Second)
		carolLeftAt = f.clock.Now()
		// Carol's generation is the one her join issued; read it back.
		snap, err := f.client.Doc("rooms/rv/participants/carol/sessions/tab").Get(f.ctx)
		if err != nil {
			t.Errorf("carol's session: %v", err)
			return
		}
		gen, _ := snap.Data()["generation"].(int64)
		if res, err := f.other.Leave(f.ctx, presence.SessionRef{SessionKey: carolKey, Generation: gen}); err != nil || !res.Removed {
			t.Errorf("carol's leave: %v %v", res.Removed, err)
		}
	})

	if _, err := f.store.Leave(f.ctx, ref("rv", "alice", "tab", alice.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	if !joined.Load() || !left.Load() {
		t.Fatalf("the interleaving was not forced (carol joined %v, left %v)", joined.Load(), left.Load())
	}
	room := f.readRoom(t, "rv")
	if room["state"] != string(presence.StateSuspectedEmpty) {
		t.Fatalf("room %v: an empty room was revived", room)
	}
	if room["generation"] != int64(1) {
		t.Fatalf("generation %v, want 1", room["generation"])
	}
	want := carolLeftAt.Add(presence.DefaultSettings().EmptyRoomGrace)
	if got, _ := room["cleanupAfter"].(time.Time); !got.Equal(want) {
		t.Fatalf("cleanupAfter %v, want %v (from Carol's later departure)", got, want)
	}
}

// docs/races.md, "A revive while the last departures settle", the
// departure's side: several last departures check the room at once, and
// each that comes later than the room's grace moves it. Dave's check
// reads the room and, before its write, six other departures, each later
// than the grace and earlier than Dave's, move it in turn: each move makes
// Dave's conditional write lose. His check still ends with the grace
// counted from his departure, instead of giving up after a few rounds as
// if the room kept changing for another reason.
func TestEmptiness_ALaterDepartureOutlastsTheGraceMoving(t *testing.T) {
	f := MustOpenStore(t)
	room := "settling"
	f.intoGrace(t, room)
	emptiedAt := f.clock.Now()
	daveLeftAt := emptiedAt.Add(time.Second)
	const moves = 6
	move, moved := f.graceMoves(t, room, moves, func(i int) time.Time {
		return emptiedAt.Add(time.Duration(i) * 10 * time.Millisecond) // later than the grace, earlier than Dave
	})
	f.store.SetBeforeEmptinessWrite(move)
	decided, err := f.store.SettleEmptinessForTest(f.ctx, room, daveLeftAt)
	if err != nil || decided != presence.LaterDeparture {
		t.Fatalf("dave's check after %d moves of the grace: %v, %v; want a later departure", *moved, decided, err)
	}
	if *moved != moves {
		t.Fatalf("the grace moved %d times under dave's check, want %d", *moved, moves)
	}
	got := f.readRoom(t, room)
	want := daveLeftAt.Add(presence.DefaultSettings().EmptyRoomGrace)
	if at, _ := got["cleanupAfter"].(time.Time); got["state"] != string(presence.StateSuspectedEmpty) || !at.Equal(want) {
		t.Fatalf("room %v, cleanupAfter %v: want suspected_empty until %v (from dave's departure)", got["state"], at, want)
	}
}

// intoGrace has alice join room and leave it through another instance:
// the room is empty, in its grace.
func (f *fixture) intoGrace(t *testing.T, room string) {
	t.Helper()
	alice := f.mustJoin(t, room, "alice", "tab")
	if _, err := f.other.Leave(f.ctx, ref(room, "alice", "tab", alice.Session.Generation)); err != nil {
		t.Fatal(err)
	}
}

// graceMoves returns a hook that, the first n times it runs, moves room's
// grace as a later departure's check does (settleEmptiness, on f.other),
// the i-th time (from 1) to the departure at(i); and the count of moves.
func (f *fixture) graceMoves(t *testing.T, room string, n int, at func(i int) time.Time) (func(), *int) {
	moved := 0
	return func() {
		if moved == n {
			return
		}
		moved++
		if decided, err := f.other.SettleEmptinessForTest(f.ctx, room, at(moved)); err != nil || decided != presence.LaterDeparture {
			t.Errorf("move %d of the grace: %v, %v; want a later departure", moved, decided, err)
		}
	}, &moved
}
