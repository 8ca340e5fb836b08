package firestoredb_test

import (
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

func TestJoin(t *testing.T) {
	t.Run("CreatesRoomEntryAndSession", func(t *testing.T) {
		f := MustOpenStore(t)
		res, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "new", ParticipantID: "alice", SessionID: "tab"},
			DisplayName: "Alice", HasDisplayName: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Revision != 1 || res.Session.Generation <= 0 {
			t.Fatalf("join result %+v, want revision 1 and a positive generation", res)
		}
		room := f.readRoom(t, "new")
		if room["state"] != "active" || room["generation"] != int64(1) {
			t.Fatalf("room document %v", room)
		}
		for _, hot := range []string{"revision", "participantCount"} {
			if _, ok := room[hot]; ok {
				t.Errorf("the room document carries %s, which every join would then write", hot)
			}
		}
		_, r := f.liveIDs(t, "new", "alice")
		if len(r.Participants) != 1 || r.Participants[0].DisplayName != "Alice" {
			t.Fatalf("roster %+v", r.Participants)
		}
	})

	t.Run("ReconnectWritesOnlyTheSession", func(t *testing.T) {
		f := MustOpenStore(t)
		first := f.mustJoin(t, "re", "alice", "tab")
		f.clock.Advance(3 * time.Second)
		before := emulatortest.Snapshot(t, f.client)
		again := f.mustJoin(t, "re", "alice", "tab")
		changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
		if want := []string{"rooms/re/participants/alice/sessions/tab"}; !reflect.DeepEqual(changed, want) {
			t.Fatalf("reconnect changed %v, want %v", changed, want)
		}
		if again.Revision != first.Revision {
			t.Fatalf("a reconnect moved the revision from %d to %d", first.Revision, again.Revision)
		}
	})

	t.Run("RenameIsAVisibleChange", func(t *testing.T) {
		f := MustOpenStore(t)
		f.mustJoin(t, "rn", "alice", "tab")
		res, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "rn", ParticipantID: "alice", SessionID: "tab"},
			DisplayName: "Al", HasDisplayName: true})
		if err != nil || res.Revision != 2 {
			t.Fatalf("rename: revision %d err %v, want revision 2", res.Revision, err)
		}
	})

	t.Run("ErrRoomFull", func(t *testing.T) {
		f := MustOpenStore(t)
		settings := presence.DefaultSettings()
		settings.MaxParticipants = 2
		store := firestoredb.New(f.client, settings, f.clock.Now)
		for _, uid := range []string{"a", "b"} {
			if _, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "full", ParticipantID: uid, SessionID: "s"}}); err != nil {
				t.Fatal(err)
			}
		}
		// Another tab of a participant is not a new participant.
		if _, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "full", ParticipantID: "a", SessionID: "s2"}}); err != nil {
			t.Fatalf("second tab of a listed participant: %v", err)
		}
		before := emulatortest.Snapshot(t, f.client)
		_, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "full", ParticipantID: "c", SessionID: "s"}})
		wantCode(t, err, presence.ERoomFull)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("a refused join wrote %v", changed)
		}
	})

	t.Run("PolicyRestrictsAdmission", func(t *testing.T) {
		f := MustOpenStore(t)
		_, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("private").Set(f.ctx, map[string]any{
			"allowedUsers": []string{"alice"}, "maxParticipants": 5})
		if err != nil {
			t.Fatal(err)
		}
		f.mustJoin(t, "private", "alice", "tab")
		before := emulatortest.Snapshot(t, f.client)
		_, err = f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "private", ParticipantID: "mallory", SessionID: "tab"}})
		wantCode(t, err, presence.EForbidden)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("a refused join wrote %v", changed)
		}
	})
}

func TestLeave_LastParticipantSuspectsTheRoom(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "lp", "alice", "tab")
	f.clock.Advance(time.Second)
	res, err := f.store.Leave(f.ctx, ref("lp", "alice", "tab", j.Session.Generation))
	if err != nil || !res.Removed {
		t.Fatalf("leave: removed=%v err=%v", res.Removed, err)
	}
	room := f.readRoom(t, "lp")
	wantCleanup := f.clock.Now().Add(presence.DefaultSettings().EmptyRoomGrace)
	if room["state"] != "suspected_empty" || room["generation"] != int64(1) {
		t.Fatalf("room after last leave: %v", room)
	}
	if !res.CleanupAfter.Equal(wantCleanup) {
		t.Fatalf("the leave reply's cleanupAfter %v, want %v", res.CleanupAfter, wantCleanup)
	}
	if got, _ := room["cleanupAfter"].(time.Time); !got.Equal(wantCleanup) {
		t.Fatalf("cleanupAfter %v, want %v", room["cleanupAfter"], wantCleanup)
	}

	// A join during the grace brings the room back with a new generation,
	// which is what makes a teardown decided earlier lose its compare-and-set.
	f.clock.Advance(5 * time.Second)
	f.mustJoin(t, "lp", "bob", "tab")
	room = f.readRoom(t, "lp")
	if room["state"] != "active" || room["generation"] != int64(2) || room["cleanupAfter"] != nil {
		t.Fatalf("room after a join in the grace: %v", room)
	}
}

func TestRoster(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "ro", "alice", "tab")
	f.clock.Advance(10 * time.Second)
	f.mustJoin(t, "ro", "bob", "tab")

	t.Run("ErrRoomNotFound", func(t *testing.T) {
		_, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "nowhere", CallerID: "alice"})
		wantCode(t, err, presence.ENotFound)
	})
	t.Run("ErrCallerNotAParticipant", func(t *testing.T) {
		// The same answer as for a room that does not exist (see
		// roster_test.go).
		_, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "ro", CallerID: "mallory"})
		wantCode(t, err, presence.ENotFound)
	})
	t.Run("OmitsParticipantsWhoseLeaseEnded", func(t *testing.T) {
		// alice joined 10 s before bob and never renewed: 6 s later her
		// 15 s lease has ended while bob's holds. Her entry is still stored
		// (nothing removed it yet) but is not listed.
		f.clock.Advance(6 * time.Second)
		r, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: "ro", CallerID: "bob"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range r.Participants {
			ids = append(ids, p.ID)
		}
		sort.Strings(ids)
		if !reflect.DeepEqual(ids, []string{"bob"}) || r.Revision != 2 {
			t.Fatalf("roster %v at revision %d, want [bob] at revision 2", ids, r.Revision)
		}
	})
}
