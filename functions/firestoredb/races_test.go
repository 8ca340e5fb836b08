package firestoredb_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// docs/races.md, "late leave": join gen A, join gen B for the same session, then A's
// leave arrives late. B must remain.
func TestRaces_LateLeaveOfAnOlderGenerationKeepsTheNewer(t *testing.T) {
	f := MustOpenStore(t)
	a := f.mustJoin(t, "r1", "alice", "tab-1")
	f.clock.Advance(2 * time.Second)
	b := f.mustJoin(t, "r1", "alice", "tab-1") // reconnect of the same tab
	if b.Session.Generation <= a.Session.Generation {
		t.Fatalf("reconnect generation %d is not above %d", b.Session.Generation, a.Session.Generation)
	}

	before := emulatortest.Snapshot(t, f.client)
	res, err := f.store.Leave(f.ctx, ref("r1", "alice", "tab-1", a.Session.Generation))
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed {
		t.Fatal("the late leave of generation A removed the session")
	}
	if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("a refused leave wrote %v", changed)
	}
	if _, err := f.store.Heartbeat(f.ctx, ref("r1", "alice", "tab-1", b.Session.Generation)); err != nil {
		t.Fatalf("generation B no longer heartbeats: %v", err)
	}
	ids, _ := f.liveIDs(t, "r1", "alice")
	if !reflect.DeepEqual(ids, []string{"alice"}) {
		t.Fatalf("roster %v, want [alice]", ids)
	}
}

// docs/races.md, "duplicates": duplicate leave, and heartbeat after leave.
func TestRaces_DuplicateLeaveAndHeartbeatAfterLeave(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "r3", "bob", "keep")
	j := f.mustJoin(t, "r3", "alice", "tab")
	leave := ref("r3", "alice", "tab", j.Session.Generation)

	t.Run("FirstLeaveRemoves", func(t *testing.T) {
		res, err := f.store.Leave(f.ctx, leave)
		if err != nil || !res.Removed {
			t.Fatalf("first leave: removed=%v err=%v", res.Removed, err)
		}
	})
	t.Run("DuplicateLeaveIsQuietNoOp", func(t *testing.T) {
		before := emulatortest.Snapshot(t, f.client)
		res, err := f.store.Leave(f.ctx, leave)
		if err != nil || res.Removed {
			t.Fatalf("duplicate leave: removed=%v err=%v", res.Removed, err)
		}
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("duplicate leave wrote %v", changed)
		}
	})
	t.Run("HeartbeatAfterLeaveIsStale", func(t *testing.T) {
		before := emulatortest.Snapshot(t, f.client)
		_, err := f.store.Heartbeat(f.ctx, leave)
		wantCode(t, err, presence.EStaleGeneration)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("refused heartbeat wrote %v", changed)
		}
	})
	t.Run("RosterNoLongerListsHer", func(t *testing.T) {
		ids, r := f.liveIDs(t, "r3", "bob")
		if !reflect.DeepEqual(ids, []string{"bob"}) {
			t.Fatalf("roster %v, want [bob]", ids)
		}
		// join bob, join alice, alice leaves: three visible changes.
		if r.Revision != 3 {
			t.Fatalf("revision %d, want 3", r.Revision)
		}
	})
}

// docs/races.md, "two tabs": two tabs of one user stay live side by side; when one
// leaves, the user stays listed.
func TestRaces_TwoTabsOfOneUser(t *testing.T) {
	f := MustOpenStore(t)
	one := f.mustJoin(t, "r4", "alice", "tab-1")
	two := f.mustJoin(t, "r4", "alice", "tab-2")

	// Neither tab's join disturbs the other's lease (no ping-pong).
	for i := 0; i < 3; i++ {
		f.clock.Advance(5 * time.Second)
		for _, s := range []struct {
			id  string
			gen int64
		}{{"tab-1", one.Session.Generation}, {"tab-2", two.Session.Generation}} {
			if _, err := f.store.Heartbeat(f.ctx, ref("r4", "alice", s.id, s.gen)); err != nil {
				t.Fatalf("heartbeat %s: %v", s.id, err)
			}
		}
	}
	ids, r := f.liveIDs(t, "r4", "alice")
	if !reflect.DeepEqual(ids, []string{"alice"}) || r.Participants[0].SessionCount != 2 {
		t.Fatalf("roster %v (%+v), want alice once with 2 sessions", ids, r.Participants)
	}

	res, err := f.store.Leave(f.ctx, ref("r4", "alice", "tab-1", one.Session.Generation))
	if err != nil || !res.Removed {
		t.Fatalf("leave tab-1: removed=%v err=%v", res.Removed, err)
	}
	ids, r = f.liveIDs(t, "r4", "alice")
	if !reflect.DeepEqual(ids, []string{"alice"}) || r.Participants[0].SessionCount != 1 {
		t.Fatalf("after one tab left: roster %v (%+v), want alice with 1 session", ids, r.Participants)
	}
	if r.Room.State != presence.StateActive {
		t.Fatalf("room state %s, want active", r.Room.State)
	}
	if _, err := f.store.Heartbeat(f.ctx, ref("r4", "alice", "tab-2", two.Session.Generation)); err != nil {
		t.Fatalf("the remaining tab lost its lease: %v", err)
	}
}

// Concurrent joins into one room: no roster entry is lost and the revision
// counts every visible change exactly once. Ten users join with two tabs
// each, all at once, spread over two stores with separate Firestore clients
// (two function instances), so that nothing in one process orders them and
// only Firestore's transactions keep them apart: 10 entries, 20 visible
// changes (an entry created, then its session count raised).
func TestConcurrentJoinsIntoOneRoom(t *testing.T) {
	f := MustOpenStore(t)
	const users, tabs = 10, 2
	instances := []*firestoredb.Store{f.store, f.other}
	var wg sync.WaitGroup
	errs := make(chan error, users*tabs)
	for u := 0; u < users; u++ {
		for s := 0; s < tabs; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The tabs of one user land on different instances.
				store := instances[(u+s)%len(instances)]
				_, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{
					RoomID: "busy", ParticipantID: fmt.Sprintf("user-%02d", u), SessionID: fmt.Sprintf("tab-%d", s)}})
				if err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent join failed: %v", err)
	}
	ids, r := f.liveIDs(t, "busy", "user-00")
	if len(ids) != users {
		t.Fatalf("roster has %d entries %v, want %d", len(ids), ids, users)
	}
	for _, p := range r.Participants {
		if p.SessionCount != tabs {
			t.Errorf("%s has session count %d, want %d", p.ID, p.SessionCount, tabs)
		}
	}
	if r.Revision != users*tabs {
		t.Errorf("revision %d, want %d", r.Revision, users*tabs)
	}
	if room := f.readRoom(t, "busy"); room["generation"] != int64(1) || room["state"] != "active" {
		t.Errorf("room after the crowd: %v, want active at generation 1", room)
	}
}
