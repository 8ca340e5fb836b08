package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// docs/races.md, "A revive while the last departures settle": a join finds
// the room in its grace and revives it, while a crowd's last departures
// settle one after another. Each finds the roster empty and moves the
// grace to its own departure (presence.LaterDeparture), which moves the
// room's version under the revive's condition. Six such moves between the
// join's look and its revive, more than a join's lifecycle steps
// (maxRoomSteps), still end with the user in the room, revived once: a
// grace that moves is not a room torn down and recreated.
func TestJoin_ARevivalOutlastsTheGraceMoving(t *testing.T) {
	f := MustOpenStore(t)
	room := "settling"
	f.intoGrace(t, room)
	graced := f.readRoom(t, room)
	if graced[firestoredb.FieldState] != string(presence.StateSuspectedEmpty) {
		t.Fatalf("room state %v after the last leave, want suspected_empty", graced[firestoredb.FieldState])
	}
	const moves = 6
	move, moved := f.graceMoves(t, room, moves, func(int) time.Time {
		f.clock.Advance(time.Millisecond) // a departure later than the grace's
		return f.clock.Now()
	})
	a := f.instance(t, f.clock.Now) // has not seen the room: it looks first
	a.SetBeforeRoomStep(move)
	bob, err := a.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "bob", SessionID: "t1"}})
	if err != nil {
		t.Fatalf("bob's join after %d moves of the grace: %v", *moved, err)
	}
	if *moved != moves {
		t.Fatalf("the grace moved %d times under the revive, want %d", *moved, moves)
	}
	revived := f.readRoom(t, room)
	if revived[firestoredb.FieldState] != string(presence.StateActive) {
		t.Fatalf("room state %v after bob's join, want active", revived[firestoredb.FieldState])
	}
	if g, was := revived[firestoredb.FieldGeneration].(int64), graced[firestoredb.FieldGeneration].(int64); g != was+1 {
		t.Fatalf("room generation %d after bob's join, was %d in the grace: want one revive", g, was)
	}
	ids, r := f.liveIDs(t, room, "bob")
	if len(ids) != 1 || ids[0] != "bob" {
		t.Fatalf("roster %v, want bob alone", ids)
	}
	if r.Revision != 3 || bob.Revision != 3 { // alice's join and leave, bob's join
		t.Fatalf("revision %d, bob's reply %d: want 3", r.Revision, bob.Revision)
	}
}
