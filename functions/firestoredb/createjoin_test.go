package firestoredb_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// createjoin.go: the join that finds its room missing creates it in its
// own commit, and is the room's first change.

// One user into a missing room: the look and one transaction that reads
// the user's five documents; four writes (the room, the entry, the
// session, the per-user document). No claim on a place and no snapshot of
// the roster, which the room's creation and its first join, made apart,
// cost: the reply and the roster both say revision 1.
func TestJoin_IntoAMissingRoomCreatesItInTheSameCommit(t *testing.T) {
	f := MustOpenStore(t)
	before := f.store.Ops()
	res := f.mustJoin(t, "fresh", "alice", "t1")
	cost := f.store.Ops().Sub(before)
	if cost.Reads != 6 || cost.Writes != 4 {
		t.Fatalf("the join cost %d reads and %d writes, want 6 and 4: the look, one transaction's read, and its commit", cost.Reads, cost.Writes)
	}
	ids, r := f.liveIDs(t, "fresh", "alice")
	if len(ids) != 1 || ids[0] != "alice" || r.Revision != 1 || res.Revision != 1 {
		t.Fatalf("roster %v at revision %d, reply %d: want alice alone at 1", ids, r.Revision, res.Revision)
	}
	room := f.readRoom(t, "fresh")
	if room[firestoredb.FieldGeneration] != int64(1) || room[firestoredb.FieldState] != string(presence.StateActive) {
		t.Fatalf("room %v: want generation 1, active", room)
	}
}

// The room's lifetime is named by its createdAt as Firestore keeps it, to
// the microsecond. A join whose clock reads a time finer than that names
// the same lifetime in its event as every later request reads back from
// the room: otherwise the room's first event would belong to no lifetime
// (the model check found it so).
func TestJoin_TheCreatingJoinsEventNamesTheLifetimeAsStored(t *testing.T) {
	f := MustOpenStore(t)
	sub := withEvents(t, f)
	f.clock.Advance(1234 * time.Nanosecond)
	f.mustJoin(t, "fine", "alice", "t1")
	got := sub.WaitUntil(t, "alice's join event", func(r []emulatortest.Received) bool { return len(r) >= 1 })
	var d struct {
		Lifetime string `json:"lifetime"`
	}
	if err := json.Unmarshal(got[0].Data, &d); err != nil {
		t.Fatal(err)
	}
	createdAt, _ := f.readRoom(t, "fine")["createdAt"].(time.Time)
	if want := presence.EventTime(createdAt); d.Lifetime != want {
		t.Fatalf("the event names lifetime %s, the room's createdAt is %s", d.Lifetime, want)
	}
}

// A join refused into a missing room writes nothing, not even the room:
// at a per-user cap, and by the room's policy (set before the room
// exists). Both refuse in the creating transaction, before its writes.
func TestJoin_ARefusedJoinCreatesNoRoom(t *testing.T) {
	f := MustOpenStore(t)
	fillRooms(t, f, "mallory")
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("private").Set(f.ctx, map[string]any{"allowedUsers": []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ room, uid, code string }{{"nope", "mallory", presence.ETooManyRooms}, {"private", "eve", presence.EForbidden}} {
		before := emulatortest.Snapshot(t, f.client)
		_, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: c.room, ParticipantID: c.uid, SessionID: "t1"}})
		wantCode(t, err, c.code)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("%s's refused join into %s wrote %v", c.uid, c.room, changed)
		}
	}
}

// A user whose entry is still there in a missing room (a room document
// gone before its roster) takes the way of the step and the join, not the
// creating join, which would write a new entry over it without reading the
// user's sessions: the room is created apart, and the join adds the entry
// left over from the earlier lifetime anew (presence.JoinState.AddsEntry),
// stamped with the new lifetime, and counts every live session of the user
// (the first tab, still live, and this one).
func TestJoin_AUserStillListedInAMissingRoom(t *testing.T) {
	f := MustOpenStore(t)
	sub := withEvents(t, f)
	f.mustJoin(t, "left-over", "alice", "t1")
	entry, err := f.client.Collection(firestoredb.RoomsCollection).Doc("left-over").Collection(firestoredb.ParticipantsCollection).Doc("alice").Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The room goes and the entry stays, as when TTL takes the room first.
	if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc("left-over").Delete(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	res, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "left-over", ParticipantID: "alice", SessionID: "t2"}})
	if err != nil {
		t.Fatalf("join with an entry left over: %v", err)
	}
	room := f.readRoom(t, "left-over")
	if room[firestoredb.FieldState] != string(presence.StateActive) {
		t.Fatalf("room %v after the join, want active", room)
	}
	old, _ := entry.Data()[firestoredb.FieldRoomOpenedAt].(time.Time)
	createdAt, _ := room["createdAt"].(time.Time)
	if !createdAt.After(old) {
		t.Fatalf("room createdAt %v, the first lifetime's %v: want a new lifetime", createdAt, old)
	}
	// Her entry joins the new lifetime: stamped with it, so that the
	// revision counts it and the reply names a revision the roster reaches.
	ids, r := f.liveIDs(t, "left-over", "alice")
	if len(ids) != 1 || ids[0] != "alice" || res.Session.Generation == 0 {
		t.Fatalf("roster %v, reply %+v: want alice, joined", ids, res)
	}
	if res.Revision != 1 || r.Revision != 1 {
		t.Fatalf("reply revision %d, roster revision %d: want 1 and 1, the join's one change in the new lifetime", res.Revision, r.Revision)
	}
	if got := r.Participants[0].OpenedAt; !got.Equal(createdAt) {
		t.Fatalf("the entry's lifetime %v, the room's %v", got, createdAt)
	}
	// Both tabs are live, the first from the earlier lifetime: both count.
	if n := r.Participants[0].SessionCount; n != 2 {
		t.Fatalf("alice's entry counts %d sessions, want 2 (both tabs are live)", n)
	}
	got := sub.WaitUntil(t, "both joins' events", func(r []emulatortest.Received) bool { return len(r) >= 2 })
	if lines := eventLines(t, got); lines[1].Type != presence.EventJoined || lines[1].Seq != 1 {
		t.Fatalf("events %v: want the second join a joined event, the first of the new lifetime", lines)
	}
}

// A leader with a follower is a crowd arriving, and another instance's join
// creates the room between the leader's reads and its create. The leader
// looks again before its create, finds the room, and writes nothing: a
// losing create would have waited for every join then reading the room.
// Both of this instance's joins end up in the room the other made.
func TestJoin_ACrowdsLeaderLooksAgainBeforeItsCreate(t *testing.T) {
	f := MustOpenStore(t)
	made := onceBeforeRoomStep(f.store, func() {
		if _, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "crowd", ParticipantID: "bob", SessionID: "t1"}}); err != nil {
			t.Error(err)
		}
	})
	leaderErr, followerErr, lookups := leadAndFollow(t, f, "crowd", "alice", "carol")
	if leaderErr != nil || followerErr != nil {
		t.Fatalf("joins: alice %v, carol %v", leaderErr, followerErr)
	}
	if !*made {
		t.Fatal("alice's join never reached its create")
	}
	f.wantCreatedOnce(t, "crowd", "alice", "bob", "carol")
	// alice: the look, her creating transaction's read, the look before
	// its create, her transaction's read in the room bob made; carol: her
	// look and her transaction's read. Without the look again, 5.
	if lookups != 6 {
		t.Fatalf("%d document lookups on this instance, want 6", lookups)
	}
}

// A leader whose instance has seen the room active since its look (another
// of its joins found it made) does not attempt the create, which could
// only lose, and joins the room: no read, no doomed write.
func TestJoin_ALeaderTrustsItsInstanceThatSawTheRoomMade(t *testing.T) {
	f := MustOpenStore(t)
	done := onceBeforeRoomStep(f.store, func() {
		// bob creates the room through another instance; carol, through
		// this one, finds it active (her look is her own: alice's ended).
		for _, j := range []struct {
			s   *firestoredb.Store
			uid string
		}{{f.other, "bob"}, {f.store, "carol"}} {
			if _, err := j.s.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "seen", ParticipantID: j.uid, SessionID: "t1"}}); err != nil {
				t.Error(err)
			}
		}
	})
	creates := 0
	f.store.SetCreates(func() { creates++ })
	f.mustJoin(t, "seen", "alice", "t1")
	if !*done {
		t.Fatal("alice's join never reached its create")
	}
	if creates != 0 {
		t.Fatalf("alice staged the room's create %d times, want 0: her instance had seen the room made", creates)
	}
	f.wantCreatedOnce(t, "seen", "alice", "bob", "carol")
}

// onceBeforeRoomStep runs do at the first lifecycle step a join of s
// reaches (the hook fires again for every later one), and tells whether it
// ran.
func onceBeforeRoomStep(s *firestoredb.Store, do func()) *bool {
	ran := new(bool)
	s.SetBeforeRoomStep(func() {
		if !*ran {
			*ran = true
			do()
		}
	})
	return ran
}
