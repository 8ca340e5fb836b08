package firestoredb_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A crowd joins one room and then leaves it, spread over two stores with
// separate Firestore clients (two function instances): no entry is lost,
// the revision counts every visible change exactly once, the room document
// is not written by any ordinary join or leave, and the room enters its
// grace when the last one leaves.
func TestCrowd_JoinsAndLeavesOverTwoInstances(t *testing.T) {
	f := MustOpenStore(t)
	instances := []*firestoredb.Store{f.store, f.other}
	host := f.mustJoin(t, "crowd", "host", "tab") // creates the room
	roomBefore := emulatortest.Snapshot(t, f.client)["rooms/crowd"]

	const crowd = 40
	joined := make([]presence.JoinResult, crowd)
	each(t, crowd, func(i int) error {
		var err error
		joined[i], err = instances[i%2].Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{
			RoomID: "crowd", ParticipantID: fmt.Sprintf("u%02d", i), SessionID: "tab"}})
		return err
	})
	ids, r := f.liveIDs(t, "crowd", "host")
	if len(ids) != crowd+1 || r.Revision != crowd+1 {
		t.Fatalf("after the crowd joined: %d listed at revision %d, want %d at revision %d", len(ids), r.Revision, crowd+1, crowd+1)
	}
	for i, j := range joined {
		if j.Revision < 2 || j.Revision > crowd+1 {
			t.Fatalf("join %d replied revision %d, want between 2 and %d", i, j.Revision, crowd+1)
		}
	}
	if after := emulatortest.Snapshot(t, f.client)["rooms/crowd"]; !after.Equal(roomBefore) {
		t.Fatal("the crowd's joins wrote the room document")
	}

	f.clock.Advance(time.Second)
	each(t, crowd, func(i int) error {
		res, err := instances[(i+1)%2].Leave(f.ctx, ref("crowd", fmt.Sprintf("u%02d", i), "tab", joined[i].Session.Generation))
		if err == nil && !res.Removed {
			err = fmt.Errorf("leave of u%02d removed nothing", i)
		}
		return err
	})
	ids, r = f.liveIDs(t, "crowd", "host")
	if len(ids) != 1 || r.Revision != 2*crowd+1 {
		t.Fatalf("after the crowd left: %v at revision %d, want [host] at revision %d", ids, r.Revision, 2*crowd+1)
	}
	if after := emulatortest.Snapshot(t, f.client)["rooms/crowd"]; !after.Equal(roomBefore) {
		t.Fatal("the crowd's leaves wrote the room document while the host stayed")
	}
	res, err := f.other.Leave(f.ctx, ref("crowd", "host", "tab", host.Session.Generation))
	if err != nil || !res.Removed || !res.CleanupAfter.Equal(f.clock.Now().Add(presence.DefaultSettings().EmptyRoomGrace)) {
		t.Fatalf("the last leave: %+v %v, want the grace to start now", res, err)
	}
	if room := f.readRoom(t, "crowd"); room["state"] != "suspected_empty" || room["generation"] != int64(1) {
		t.Fatalf("room after the last leave: %v", room)
	}
}

// The last two participants' leases end together and two sweepers, on
// separate clients, expire them at once: the room enters its grace exactly
// once, counted from the leases' end.
func TestCrowd_LastTwoDeparturesEmptyTheRoomOnce(t *testing.T) {
	for round := range 5 {
		f := MustOpenStore(t)
		room := fmt.Sprintf("pair-%d", round)
		a := f.mustJoin(t, room, "alice", "tab")
		b := f.mustJoin(t, room, "bob", "tab")
		f.clock.Advance(presence.DefaultSettings().Lease)
		results := make([]presence.ExpiryResult, 2)
		each(t, 2, func(i int) error {
			s := []presence.Session{a.Session, b.Session}[i]
			var err error
			results[i], err = []*firestoredb.Store{f.store, f.other}[i].ExpireSession(f.ctx, presence.ExpiryCandidate{
				RoomID: room, ParticipantID: s.ParticipantID, SessionID: s.ID, Generation: s.Generation, LeaseExpiresAt: s.LeaseExpiresAt})
			if err == nil && results[i].Outcome != presence.Done {
				err = fmt.Errorf("expiry of %s: outcome %v", s.ParticipantID, results[i].Outcome)
			}
			return err
		})
		if results[0].RoomSuspected == results[1].RoomSuspected {
			t.Fatalf("round %d: room suspected by %v and %v, want exactly one of the two", round, results[0].RoomSuspected, results[1].RoomSuspected)
		}
		doc := f.readRoom(t, room)
		if doc["state"] != "suspected_empty" || !b.Session.LeaseExpiresAt.Equal(doc["emptySince"].(time.Time)) {
			t.Fatalf("round %d: room %v, want suspected_empty since the leases ended at %v", round, doc, b.Session.LeaseExpiresAt)
		}
	}
}

// docs/races.md, "two processes": one instance handles what looks like the last
// departure while another accepts a join into the same room. Whatever the
// order, the room ends active with the newcomer listed.
func TestCrowd_LastDepartureAgainstAJoinOnAnotherInstance(t *testing.T) {
	for round := range 8 {
		f := MustOpenStore(t)
		room := fmt.Sprintf("r7-%d", round)
		a := f.mustJoin(t, room, "alice", "tab")
		f.clock.Advance(time.Second)
		each(t, 2, func(i int) error {
			if i == 0 {
				_, err := f.store.Leave(f.ctx, ref(room, "alice", "tab", a.Session.Generation))
				return err
			}
			_, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "bob", SessionID: "tab"}})
			return err
		})
		doc := f.readRoom(t, room)
		if doc["state"] != "active" {
			t.Fatalf("round %d: room %v after a join raced the last leave, want active", round, doc)
		}
		if ids, _ := f.liveIDs(t, room, "bob"); len(ids) != 1 || ids[0] != "bob" {
			t.Fatalf("round %d: roster %v, want [bob]", round, ids)
		}
	}
}

// each runs f(0..n-1) at once and fails the test with the errors.
func each(t *testing.T, n int, f func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := f(i); err != nil {
				errs <- err
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}
