package firestoredb_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A heartbeat writes exactly one document, the session's, which no client
// listens to: the room document and the roster entries keep their update
// times. It costs one read and one write.
func TestHeartbeat_WritesOnlyTheSessionDocument(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "hb", "bob", "phone")
	j := f.mustJoin(t, "hb", "alice", "tab")
	f.clock.Advance(5 * time.Second)

	before := emulatortest.Snapshot(t, f.client)
	ops := f.store.Ops()
	deadline, err := f.store.Heartbeat(f.ctx, ref("hb", "alice", "tab", j.Session.Generation))
	if err != nil {
		t.Fatal(err)
	}
	cost := f.store.Ops().Sub(ops)
	changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))

	if want := []string{"rooms/hb/participants/alice/sessions/tab"}; !reflect.DeepEqual(changed, want) {
		t.Fatalf("heartbeat changed %v, want exactly %v", changed, want)
	}
	if cost != (firestoredb.OpCounts{Reads: 1, Writes: 1}) {
		t.Fatalf("heartbeat cost %+v, want 1 read and 1 write", cost)
	}
	if want := f.clock.Now().Add(presence.DefaultSettings().Lease); !deadline.Equal(want) {
		t.Fatalf("new lease deadline %v, want %v", deadline, want)
	}
}

func TestHeartbeat(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "hb2", "alice", "tab")
	gen := j.Session.Generation
	lease := presence.DefaultSettings().Lease

	t.Run("RenewsBeforeTheDeadline", func(t *testing.T) {
		f.clock.Advance(lease - time.Millisecond)
		if _, err := f.store.Heartbeat(f.ctx, ref("hb2", "alice", "tab", gen)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrWrongGeneration", func(t *testing.T) {
		_, err := f.store.Heartbeat(f.ctx, ref("hb2", "alice", "tab", gen+1))
		wantCode(t, err, presence.EStaleGeneration)
	})
	t.Run("ErrUnknownSession", func(t *testing.T) {
		_, err := f.store.Heartbeat(f.ctx, ref("hb2", "alice", "other-tab", gen))
		wantCode(t, err, presence.EStaleGeneration)
	})
	t.Run("ErrLeaseAlreadyEnded", func(t *testing.T) {
		f.clock.Advance(lease) // exactly at the deadline: the lease has ended
		before := emulatortest.Snapshot(t, f.client)
		_, err := f.store.Heartbeat(f.ctx, ref("hb2", "alice", "tab", gen))
		wantCode(t, err, presence.EStaleGeneration)
		if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("a refused heartbeat wrote %v", changed)
		}
	})
	t.Run("ErrInvalidGeneration", func(t *testing.T) {
		_, err := f.store.Heartbeat(f.ctx, ref("hb2", "alice", "tab", 0))
		wantCode(t, err, presence.EInvalid)
	})
}
