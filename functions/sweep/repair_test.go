package sweep_test

import (
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
)

// A leave whose request died between its commit and its emptiness check
// leaves the room active with an empty roster, and only the mark on the
// revision shard says so. A run re-checks it: the room enters its grace,
// counted from the departure, and is torn down after it.
func TestRun_RepairsActiveRoomWithEmptyRoster(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{RunBudget: time.Millisecond} /* one pass */)
	alice := f.join(t, "orphan", "alice", "tab")
	f.clock.Advance(time.Second)
	departedAt := f.clock.Now()
	f.leaveUnsettled(t, alice)
	if state := f.roomState(t, "orphan"); state != "active" {
		t.Fatalf("room %s after the unsettled leave, want active", state)
	}
	if sum := s.Run(f.ctx); sum.RoomsRepaired != 0 {
		t.Fatalf("a run within the settling time repaired %d rooms; the departing request may still be checking", sum.RoomsRepaired)
	}
	// Past the settling time, which is longer than the grace: the room
	// enters its grace counted from the departure, is due at once, and is
	// torn down in the same run.
	f.clock.Advance(31 * time.Second)
	if sum := s.Run(f.ctx); sum.RoomsRepaired != 1 || sum.RoomsDeleted != 1 || sum.FailedSteps != 0 {
		t.Fatalf("run: %+v", sum)
	}
	if closing := f.closingOf(t, "orphan"); !departedAt.Equal(closing["emptySince"].(time.Time)) {
		t.Fatalf("closing %v, want the room empty since the departure at %v", closing, departedAt)
	}
	if sum := s.Run(f.ctx); sum.RoomsRepaired != 0 {
		t.Fatalf("the next run repaired %d rooms again", sum.RoomsRepaired)
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

// One document that is not presence data must not stop cleanup: another
// app's "sessions" collection in the same database, and a hand-edited
// session that no longer decodes, are both listed by the expiry query. The
// pass skips and counts them, logs their paths, and expires the real
// crashed session all the same.
func TestPass_SkipsDocumentsThatAreNotPresenceData(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	f.join(t, "real", "alice", "tab")
	past := f.clock.Now().Add(-time.Hour)
	foreign := f.client.Doc("shop/carts/sessions/cart-1")
	edited := f.client.Doc("rooms/edited/participants/bob/sessions/tab")
	// Both with a leaseShard, so that a sweeper listing by shard finds them.
	if _, err := foreign.Set(f.ctx, map[string]any{"leaseExpiresAt": past, "items": 3, "leaseShard": int64(0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := edited.Set(f.ctx, map[string]any{"leaseExpiresAt": past, "generation": "seven", "leaseShard": int64(1)}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(f.settings.Lease)

	r := f.pass(t, s)
	if r.Err != nil || r.FailedSteps != 0 || r.SessionsExpired != 1 || r.SkippedDocuments != 2 {
		t.Fatalf("pass: %+v, want alice's session expired and the two foreign documents skipped", r)
	}
	for _, path := range []string{foreign.Path, edited.Path} {
		if !strings.Contains(f.logs.String(), path) {
			t.Errorf("no log line names %s", path)
		}
		if _, err := f.client.Doc(strings.SplitN(path, "/documents/", 2)[1]).Get(f.ctx); err != nil {
			t.Errorf("the sweeper touched %s: %v", path, err)
		}
	}
	if f.exists(t, "rooms/real/participants/alice") {
		t.Fatal("alice is still listed after her lease ended")
	}
}

// A sweeper that starts after an outage longer than its lookback still
// re-checks the marks left during the outage: it starts from where the
// sweepers before it got (docs/races.md, "The repair's watermark").
func TestRun_RepairLooksBackToTheLastSweepersWatermark(t *testing.T) {
	f := MustOpen(t)
	first := f.sweeper(t, f.store, sweep.Config{RunBudget: time.Millisecond})
	first.Run(f.ctx) // saves its watermark; then this sweeper is gone
	alice := f.join(t, "outage", "alice", "tab")
	f.clock.Advance(time.Second)
	departedAt := f.clock.Now()
	f.leaveUnsettled(t, alice)
	f.clock.Advance(20 * time.Minute) // longer than the default 10-minute lookback
	next := f.sweeper(t, f.store, sweep.Config{RunBudget: time.Millisecond})
	if sum := next.Run(f.ctx); sum.RoomsRepaired != 1 {
		t.Fatalf("a sweeper started after the outage repaired %d rooms, want 1: %+v", sum.RoomsRepaired, sum)
	}
	if closing := f.closingOf(t, "outage"); !departedAt.Equal(closing["emptySince"].(time.Time)) {
		t.Fatalf("closing %v, want the room empty since %v", closing, departedAt)
	}
}
