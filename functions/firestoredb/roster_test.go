package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// A caller who is not on a room's roster gets one answer, byte for byte,
// whether the room is active, empty (suspected_empty) or absent, and that
// answer costs the caller's own records (at most two reads), not the
// roster: a room read is no occupancy oracle and no way to make the server
// read a crowd's roster for free.
func TestRoster_OutsiderGetsOneCheapAnswer(t *testing.T) {
	f := MustOpenStore(t)
	// "busy" has three participants (one with two tabs); "quiet" emptied
	// (its last participant left, it waits out its grace); "nowhere" has
	// never existed.
	for _, uid := range []string{"alice", "bob", "carol"} {
		f.mustJoin(t, "busy", uid, "tab")
	}
	f.mustJoin(t, "busy", "bob", "phone")
	j := f.mustJoin(t, "quiet", "dave", "tab")
	if res, err := f.store.Leave(f.ctx, ref("quiet", "dave", "tab", j.Session.Generation)); err != nil || res.CleanupAfter.IsZero() {
		t.Fatalf("leave of quiet's last participant: %+v, %v", res, err)
	}
	if room := f.readRoom(t, "quiet"); room["state"] != "suspected_empty" {
		t.Fatalf("quiet is %v, want suspected_empty", room["state"])
	}

	answers := map[string]string{}
	for _, room := range []string{"busy", "quiet", "nowhere"} {
		// mallory was never anywhere; dave has left quiet.
		for _, caller := range []string{"mallory", "dave"} {
			before := f.store.Ops()
			_, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: room, CallerID: caller})
			cost := f.store.Ops().Sub(before)
			wantCode(t, err, presence.ENotFound)
			answers[room+" as "+caller] = presence.ErrorCode(err) + " " + presence.ErrorMessage(err)
			if cost.Reads > 2 || cost.Writes != 0 {
				t.Errorf("%s as %s cost %+v, want at most 2 reads and no write", room, caller, cost)
			}
		}
	}
	want := answers["nowhere as mallory"]
	for k, got := range answers {
		if got != want {
			t.Errorf("%s: %q, want the same as for an absent room: %q", k, got, want)
		}
	}

	// A participant still gets the roster, at its full cost.
	ids, r := f.liveIDs(t, "busy", "bob")
	if len(ids) != 3 || r.Room.State != presence.StateActive {
		t.Fatalf("bob's read of busy: %v in a %s room", ids, r.Room.State)
	}
}

// A caller whose roster entry is still stored but whose every lease has
// ended (awaiting the sweeper) is no participant: the outsiders' answer,
// decided from the caller's own records before the roster is listed.
func TestRoster_CallerWhoseLeaseEndedIsAnOutsider(t *testing.T) {
	f := MustOpenStore(t)
	for _, uid := range []string{"alice", "bob", "carol", "dave"} {
		f.mustJoin(t, "r", uid, "tab")
	}
	f.clock.Advance(presence.DefaultSettings().Lease + time.Second)
	f.mustJoin(t, "r", "bob", "tab") // bob rejoins; the others' leases have ended

	before := f.store.Ops()
	_, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "r", CallerID: "alice"})
	cost := f.store.Ops().Sub(before)
	wantCode(t, err, presence.ENotFound)
	if want := presence.NotVisible(); err.Error() != want.Error() {
		t.Fatalf("got %v, want the outsiders' answer %v", err, want)
	}
	// The room and the entry, then the caller's own live sessions (none: a
	// query with no result is billed one read).
	if cost.Reads != 3 {
		t.Fatalf("cost %+v, want 3 reads: the roster must not be listed", cost)
	}
	if ids, _ := f.liveIDs(t, "r", "bob"); len(ids) != 1 || ids[0] != "bob" {
		t.Fatalf("bob reads %v, want [bob]", ids)
	}
}
