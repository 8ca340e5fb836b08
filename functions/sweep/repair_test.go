package sweep_test

import (
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
)

// A missed event can leave a room marked active with an empty roster; a run
// repairs it to suspected_empty, and it is then torn down after the grace.
func TestRun_RepairsActiveRoomWithEmptyRoster(t *testing.T) {
	f := MustOpen(t)
	_, err := f.client.Doc("rooms/orphan").Set(f.ctx, map[string]any{
		"roomId": "orphan", "state": "active", "generation": 1, "revision": 4, "participantCount": 0,
		"createdAt": f.clock.Now(), "updatedAt": f.clock.Now(), "expireAt": f.clock.Now().AddDate(0, 1, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := f.sweeper(t, f.store, sweep.Config{RunBudget: time.Millisecond} /* one pass */)
	if sum := s.Run(f.ctx); sum.RoomsRepaired != 1 {
		t.Fatalf("run: %+v", sum)
	}
	if f.roomState(t, "orphan") != "suspected_empty" {
		t.Fatalf("not repaired: %s", f.roomState(t, "orphan"))
	}
	f.clock.Advance(f.settings.EmptyRoomGrace)
	if r := f.pass(t, s); r.RoomsDeleted != 1 {
		t.Fatalf("pass after the grace: %+v", r)
	}
}

// A room marked suspected_empty that still holds a live lease is never torn
// down: the check repairs it to active with a new generation.
func TestPass_RepairsSuspectedRoomWithLiveLease(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	f.join(t, "odd", "alice", "tab")
	// Simulate the missed event: the room claims to be empty.
	_, err := f.client.Doc("rooms/odd").Update(f.ctx, []firestore.Update{
		{Path: "state", Value: "suspected_empty"}, {Path: "cleanupAfter", Value: f.clock.Now()},
		{Path: "emptySince", Value: f.clock.Now()},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := f.pass(t, s)
	if r.RoomsDeleted != 0 || r.RoomsRepaired != 1 {
		t.Fatalf("pass: %+v", r)
	}
	if room := f.docData(t, "rooms/odd"); room["state"] != "active" || room["generation"] != int64(2) {
		t.Fatalf("room %v", room)
	}
}

// With ROOMLEASE_ARCHIVE_RECEIPTS, a room's read receipts are kept under
// its closing record instead of being deleted with it.
func TestTeardown_ArchivesReceiptsWhenConfigured(t *testing.T) {
	f := MustOpen(t)
	f.settings.ArchiveReceipts = true
	f.store = firestoredb.New(f.client, f.settings, f.clock.Now)
	s := f.sweeper(t, f.store, sweep.Config{})
	alice := f.join(t, "kept", "alice", "tab")
	if _, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "kept", ParticipantID: "alice", LastReadSeq: 42}); err != nil {
		t.Fatal(err)
	}
	f.leave(t, alice)
	f.clock.Advance(f.settings.EmptyRoomGrace)
	if r := f.pass(t, s); r.RoomsDeleted != 1 {
		t.Fatalf("pass: %+v", r)
	}
	if f.exists(t, "rooms/kept/receipts/alice") {
		t.Fatal("the receipt is still under the deleted room")
	}
	archived, err := f.client.Doc("roomClosings/kept~" + itoa(alice.CreatedAt.UnixMicro()) + "/receipts/alice").Get(f.ctx)
	if err != nil || archived.Data()["lastReadSeq"] != int64(42) {
		t.Fatalf("archived receipt: %v %v", archived.Data(), err)
	}
}
