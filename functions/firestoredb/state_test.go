package firestoredb_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A state update is a visible change that writes only the user's roster
// entry (which carries the change on its count): never the room, never a
// shard, never the session (it renews no lease). An unchanged state writes
// nothing, and a stale generation is refused without a write.
func TestState_WritesOnlyTheEntry(t *testing.T) {
	f := MustOpenStore(t)
	j, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "st", ParticipantID: "alice", SessionID: "tab"},
		State: presence.State{"status": "busy"}, HasState: true})
	if err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, "st", "bob", "tab")
	_, roster := f.liveIDs(t, "st", "bob")
	if got := stateOf(roster, "alice"); !got.Equal(presence.State{"status": "busy"}) {
		t.Fatalf("alice's state after her join: %v", got)
	}
	if got := stateOf(roster, "bob"); got == nil || !got.Equal(presence.State{}) {
		t.Fatalf("bob, who set none, shows %#v; want {}", got)
	}
	req := func(gen int64, st presence.State) presence.StateRequest {
		return presence.StateRequest{SessionRef: ref("st", "alice", "tab", gen), State: st}
	}

	t.Run("AChange", func(t *testing.T) {
		before := emulatortest.Snapshot(t, f.client)
		res, err := f.store.SetState(f.ctx, req(j.Session.Generation, presence.State{"status": "away", "colour": "#c33"}))
		if err != nil {
			t.Fatal(err)
		}
		changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
		sort.Strings(changed)
		// The entry carries the change on its count (entryrevision.go):
		// a state update writes no document another user writes.
		if len(changed) != 1 || changed[0] != "rooms/st/participants/alice" {
			t.Fatalf("a state update changed %v, want alice's entry alone", changed)
		}
		if res.Revision != roster.Revision+1 || !res.State.Equal(presence.State{"status": "away", "colour": "#c33"}) {
			t.Fatalf("answer %+v, want the new state at revision %d", res, roster.Revision+1)
		}
	})
	t.Run("TheSameStateWritesNothing", func(t *testing.T) {
		before := emulatortest.Snapshot(t, f.client)
		if _, err := f.store.SetState(f.ctx, req(j.Session.Generation, presence.State{"colour": "#c33", "status": "away"})); err != nil {
			t.Fatal(err)
		}
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("an unchanged state wrote %v", changed)
		}
	})
	t.Run("AStaleGenerationIsRefusedAndWritesNothing", func(t *testing.T) {
		before := emulatortest.Snapshot(t, f.client)
		_, err := f.store.SetState(f.ctx, req(j.Session.Generation-1, presence.State{"status": "gone"}))
		wantCode(t, err, presence.EStaleGeneration)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("a refused state update wrote %v", changed)
		}
	})
	t.Run("ListenersReadTheStoredState", func(t *testing.T) {
		snap, err := f.client.Doc("rooms/st/participants/alice").Get(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := snap.Data()["state"]; !reflect.DeepEqual(got, map[string]any{"status": "away", "colour": "#c33"}) {
			t.Fatalf("stored state %#v", got)
		}
		snap, _ = f.client.Collection(firestoredb.RoomsCollection).Doc("st").Collection(firestoredb.ParticipantsCollection).Doc("bob").Get(f.ctx)
		if got, ok := snap.Data()["state"].(map[string]any); !ok || len(got) != 0 {
			t.Fatalf("bob's stored state %#v, want {}", snap.Data()["state"])
		}
	})
}

func stateOf(r presence.Roster, uid string) presence.State {
	for _, p := range r.Participants {
		if p.ID == uid {
			if p.State == nil {
				return presence.State{}
			}
			return p.State
		}
	}
	return nil
}

// The store refuses, as EInvalid and without a write, a state Firestore
// would refuse, whoever built it: a caller that skipped ParseState gets a
// client error, not Firestore's InvalidArgument as a server fault.
func TestState_FirestoreWouldRefuseIsInvalid(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "stk", "alice", "tab")
	before := emulatortest.Snapshot(t, f.client)
	for _, st := range []presence.State{{"__name__": 1}, {"": 1}, {"a": map[string]any{"__x__": int64(2)}}, {"a": []any{map[string]any{"": true}}}} {
		_, err := f.store.SetState(f.ctx, presence.StateRequest{SessionRef: ref("stk", "alice", "tab", j.Session.Generation), State: st})
		if presence.ErrorCode(err) != presence.EInvalid {
			t.Errorf("SetState(%v): %v, want invalid_argument", st, err)
		}
		_, err = f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "stk", ParticipantID: "alice", SessionID: "tab"}, State: st, HasState: true})
		if presence.ErrorCode(err) != presence.EInvalid {
			t.Errorf("Join with state %v: %v, want invalid_argument", st, err)
		}
	}
	if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("refused states wrote %v", changed)
	}
}
