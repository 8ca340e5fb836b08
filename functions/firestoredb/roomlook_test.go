package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// docs/races.md, "A crowd creating a room": a join that looked at the room
// outside any transaction and found it missing (roomlook.go) creates it
// in its own transaction's commit, without reading it (createjoin.go).
// Another instance's join creates the room first, at each point where
// that can happen: before that transaction's reads, and between its reads
// and its commit. Either way the join's commit fails whole and it ends up
// in the room the other created, one lifetime with both users, counted
// once each.
func TestJoin_ALookedAtRoomCreatedMeanwhile(t *testing.T) {
	for _, when := range []string{"before the first transaction", "before the creating commit"} {
		t.Run(when, func(t *testing.T) {
			f := MustOpenStore(t)
			room := "looked"
			joined := false
			create := func() {
				if joined {
					return
				}
				joined = true
				if _, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "bob", SessionID: "t1"}}); err != nil {
					t.Error(err)
				}
			}
			if when == "before the first transaction" {
				f.store.SetBeforeJoinReads(create)
			} else {
				f.store.SetBeforeRoomStep(create)
			}
			res := f.mustJoin(t, room, "alice", "t1")
			if !joined {
				t.Fatal("the forced creation never ran: the join did not take the looked-at path")
			}
			f.wantCreatedOnce(t, room, "alice", "bob")
			if res.Revision != 2 {
				t.Fatalf("alice's reply at revision %d: want 2 (two joins in one lifetime)", res.Revision)
			}
		})
	}
}

// The look costs a read only where an instance has not seen the room
// active within activeRoomMemo: a join into a room this instance has just
// joined someone into reads what it always did, and one on an instance
// that has not (or long ago) pays one read more.
func TestJoin_TheLookCostsAReadOnlyWhereTheRoomIsNew(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "memo", "host", "t1")
	cost := func(s *firestoredb.Store, uid string) firestoredb.OpCounts {
		t.Helper()
		before := s.Ops()
		if _, err := s.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "memo", ParticipantID: uid, SessionID: "t1"}}); err != nil {
			t.Fatal(err)
		}
		return s.Ops().Sub(before)
	}
	seen := cost(f.store, "alice")
	unseen := cost(f.other, "bob") // f.other never saw the room
	if unseen.Reads != seen.Reads+1 || unseen.Writes != seen.Writes {
		t.Fatalf("a join on an instance that saw the room cost %+v, on one that did not %+v: want one read more", seen, unseen)
	}
	if again := cost(f.other, "carol"); again != seen {
		t.Fatalf("a second join on that instance cost %+v, want %+v", again, seen)
	}
	f.clock.Advance(time.Minute) // the memo is for activeRoomMemo only
	if later := cost(f.other, "dave"); later.Reads != seen.Reads+1 {
		t.Fatalf("a join a minute later cost %+v, want one read more than %+v", later, seen)
	}
}

// An instance whose memo says a room is active (roomlook.go) while another
// instance has emptied it into its grace, or torn it down. The memo only
// spares the look: the join's transaction reads the room, finds it not
// active, plans the lifecycle step and makes it, so the user ends up in an
// active room of the right lifetime, alone and counted once.
func TestJoin_AStaleMemoOfAnActiveRoom(t *testing.T) {
	for _, gone := range []string{"in its grace", "torn down"} {
		t.Run(gone, func(t *testing.T) {
			f := MustOpenStore(t)
			room := "stale"
			a := f.instance(t, f.clock.Now)
			key := func(uid string) presence.SessionKey {
				return presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: "t1"}
			}
			alice, err := a.Join(f.ctx, presence.JoinRequest{SessionKey: key("alice")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.other.Leave(f.ctx, ref(room, "alice", "t1", alice.Session.Generation)); err != nil {
				t.Fatal(err)
			}
			wantRevision := int64(3) // alice's join and leave, bob's join: one lifetime
			if gone == "torn down" {
				f.clock.Advance(presence.DefaultSettings().EmptyRoomGrace)
				due, err := f.other.DueRooms(f.ctx, f.clock.Now(), 10, false)
				if err != nil || len(due.Items) != 1 {
					t.Fatalf("due rooms %v, %v", due.Items, err)
				}
				if res, err := f.other.TearDown(f.ctx, presence.CandidateOf(due.Items[0]), true); err != nil || res.Verdict != presence.TearDown {
					t.Fatalf("teardown: %v %v", res.Verdict, err)
				}
				wantRevision = 1 // bob's join opens the next lifetime
			}
			a.RememberRoomActive(room)
			stepped := false
			a.SetBeforeRoomStep(func() { stepped = true })
			bob, err := a.Join(f.ctx, presence.JoinRequest{SessionKey: key("bob")})
			if err != nil {
				t.Fatal(err)
			}
			if !stepped {
				t.Fatal("the join made no lifecycle step: the room it joined was not the one left behind")
			}
			if state := f.readRoom(t, room)[firestoredb.FieldState]; state != string(presence.StateActive) {
				t.Fatalf("room state %v after bob's join, want active", state)
			}
			ids, r := f.liveIDs(t, room, "bob")
			if len(ids) != 1 || ids[0] != "bob" {
				t.Fatalf("roster %v, want bob alone", ids)
			}
			if r.Revision != wantRevision || bob.Revision != wantRevision {
				t.Fatalf("revision %d, bob's reply %d: want %d", r.Revision, bob.Revision, wantRevision)
			}
		})
	}
}
