package firestoredb_test

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

func TestTyping(t *testing.T) {
	f := MustOpenStore(t)
	old := f.mustJoin(t, "ty", "alice", "tab")
	cur := f.mustJoin(t, "ty", "alice", "tab")
	typingDoc := f.client.Doc("rooms/ty/typing/alice")

	t.Run("CurrentSessionSignals", func(t *testing.T) {
		if err := errOf(f.store.SetTyping(f.ctx, ref("ty", "alice", "tab", cur.Session.Generation), true)); err != nil {
			t.Fatal(err)
		}
		snap, err := typingDoc.Get(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := f.clock.Now().Add(presence.DefaultSettings().TypingExpiry)
		if got, _ := snap.Data()["expiresAt"].(time.Time); !got.Equal(want) {
			t.Fatalf("expiresAt %v, want %v", snap.Data()["expiresAt"], want)
		}
	})
	t.Run("ErrStaleGenerationWritesNothing", func(t *testing.T) {
		before := emulatortest.Snapshot(t, f.client)
		err := errOf(f.store.SetTyping(f.ctx, ref("ty", "alice", "tab", old.Session.Generation), false))
		wantCode(t, err, presence.EStaleGeneration)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("refused typing wrote %v", changed)
		}
	})
	t.Run("FalseClearsTheSignal", func(t *testing.T) {
		if err := errOf(f.store.SetTyping(f.ctx, ref("ty", "alice", "tab", cur.Session.Generation), false)); err != nil {
			t.Fatal(err)
		}
		if _, err := typingDoc.Get(f.ctx); status.Code(err) != codes.NotFound {
			t.Fatalf("reading the cleared typing document: %v, want NotFound", err)
		}
	})
	t.Run("ErrLeaseEnded", func(t *testing.T) {
		f.clock.Advance(presence.DefaultSettings().Lease)
		err := errOf(f.store.SetTyping(f.ctx, ref("ty", "alice", "tab", cur.Session.Generation), true))
		wantCode(t, err, presence.EStaleGeneration)
	})
}

// Receipts only move forward, whatever order retries arrive in, and a
// receipt that moves nothing writes nothing.
func TestReceipts_ForwardOnlyAndIdempotent(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "rc", "alice", "tab")
	steps := []struct {
		seq, want int64
		writes    bool
	}{{5, 5, true}, {5, 5, false}, {3, 5, false}, {8, 8, true}, {0, 8, false}}
	for _, s := range steps {
		before := emulatortest.Snapshot(t, f.client)
		got, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "rc", ParticipantID: "alice", LastReadSeq: s.seq})
		if err != nil || got != s.want {
			t.Fatalf("MarkRead(%d) = %d, %v; want %d", s.seq, got, err, s.want)
		}
		changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
		if s.writes != (len(changed) == 1) || len(changed) > 1 {
			t.Fatalf("MarkRead(%d) changed %v; want a write: %v", s.seq, changed, s.writes)
		}
	}
	t.Run("ErrNotAParticipant", func(t *testing.T) {
		_, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "rc", ParticipantID: "mallory", LastReadSeq: 1})
		wantCode(t, err, presence.EForbidden)
	})
	t.Run("ErrNegative", func(t *testing.T) {
		_, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "rc", ParticipantID: "alice", LastReadSeq: -1})
		wantCode(t, err, presence.EInvalid)
	})
}
