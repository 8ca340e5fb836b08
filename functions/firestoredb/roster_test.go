package firestoredb_test

import (
	"fmt"
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
	// The room and the entry, then the room's live sessions (bob's one),
	// none of them alice's: no roster entry of anyone else is read.
	if cost.Reads != 3 {
		t.Fatalf("cost %+v, want 3 reads: no other entry may be read", cost)
	}
	if ids, _ := f.liveIDs(t, "r", "bob"); len(ids) != 1 || ids[0] != "bob" {
		t.Fatalf("bob reads %v, want [bob]", ids)
	}
}

// A participant's read costs what can be shown: the room and the caller's
// entry (2), the room's live sessions (L), the entries of the other users
// holding them (P − 1, by id), the revision (1) and the recent departures
// (one query: 1 when there are none). An entry whose every lease has ended
// is neither shown nor read.
func TestRoster_ParticipantPaysForWhatIsLive(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "r", "dave", "tab")
	f.clock.Advance(presence.DefaultSettings().Lease + time.Second)
	// dave's lease has ended; his entry awaits the sweeper.
	f.mustJoin(t, "r", "alice", "tab")
	f.mustJoin(t, "r", "bob", "tab")
	f.mustJoin(t, "r", "bob", "phone")
	f.mustJoin(t, "r", "carol", "tab")

	before := f.store.Ops()
	r, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "r", CallerID: "alice"})
	cost := f.store.Ops().Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range r.Participants {
		ids = append(ids, p.ID)
	}
	if fmt.Sprint(ids) != "[alice bob carol]" {
		t.Fatalf("roster %v, want [alice bob carol] in join order", ids)
	}
	const live, users = 4, 3
	// The revision is two aggregations (entryrevision.go).
	if want := int64(2 + live + (users - 1) + 2 + 1); cost.Reads != want || cost.Writes != 0 {
		t.Fatalf("cost %+v, want %d reads and no write", cost, want)
	}
}

// Reads on one instance while another instance's joins commit: every read
// lists exactly as many users as its revision counts, because the room, the
// live sessions, the entries fetched by id and the revision shards are read
// in one snapshot. (Only joins happen here, each adding one user and one to
// the revision.)
func TestRoster_ReadsOneSnapshotWhileAnotherInstanceJoins(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "busy", "host", "tab")

	const joiners = 20
	stop := make(chan struct{})
	type seen struct {
		listed   int
		revision int64
	}
	reads := make(chan []seen, 1)
	go func() {
		var got []seen
		for {
			r, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "busy", CallerID: "host"})
			if err != nil {
				t.Errorf("read: %v", err)
			} else {
				got = append(got, seen{len(r.Participants), r.Revision})
			}
			select {
			case <-stop:
				reads <- got
				return
			default:
			}
		}
	}()
	each(t, joiners, func(i int) error {
		_, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{
			RoomID: "busy", ParticipantID: fmt.Sprintf("u%02d", i), SessionID: "tab"}})
		return err
	})
	close(stop)
	got := <-reads
	if len(got) == 0 {
		t.Fatal("no read completed")
	}
	for _, s := range got {
		if int64(s.listed) != s.revision {
			t.Fatalf("a read listed %d users at revision %d: not one snapshot (all reads: %v)", s.listed, s.revision, got)
		}
	}
	if ids, r := f.liveIDs(t, "busy", "host"); len(ids) != joiners+1 || r.Revision != joiners+1 {
		t.Fatalf("after the joins: %d listed at revision %d, want %d at %d", len(ids), r.Revision, joiners+1, joiners+1)
	}
}
