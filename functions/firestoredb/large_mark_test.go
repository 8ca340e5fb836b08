package firestoredb_test

import (
	"sync"
	"testing"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// docs/races.md, "A crowd that crosses the threshold unseen": two joins
// into a room whose threshold is 3, through two instances, each holding
// after its reads until the other has read too, so that both read the
// roster at 1 and neither takes it across the threshold as it read it. The
// one that commits last counts after its commit and marks the room.
func TestJoin_ACrowdThatCrossesTheThresholdUnseenMarksTheRoom(t *testing.T) {
	f := MustOpenStore(t)
	room := "unseen"
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc(room).Set(f.ctx, map[string]any{"largeRoomThreshold": 3}); err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, room, "host", "t1")
	var read sync.WaitGroup
	read.Add(2)
	for _, s := range []*firestoredb.Store{f.store, f.other} {
		once := false
		s.SetAfterJoinReads(func() {
			if !once {
				once = true
				read.Done()
				read.Wait()
			}
		})
	}
	errs := make(chan error, 2)
	for i, s := range []*firestoredb.Store{f.store, f.other} {
		go func() {
			_, err := s.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: []string{"ada", "bob"}[i], SessionID: "t1"}})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if ids, _ := f.liveIDs(t, room, "host"); len(ids) != 3 {
		t.Fatalf("roster %v, want 3", ids)
	}
	snap, err := f.client.Collection(firestoredb.LargeRoomsCollection).Doc(room).Get(f.ctx)
	if err != nil || !snap.Exists() {
		t.Fatalf("the room of 3 at threshold 3 is not marked for the summarizer: %v", err)
	}
}
