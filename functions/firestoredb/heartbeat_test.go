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

// A renewing heartbeat writes exactly one document, the session's, which no
// client listens to: the room document and the roster entries keep their
// update times. It costs one read and one write, with the room's policy
// cached (it is read once per PolicyCache and instance; see
// TestPolicy_HeartbeatsReadThePolicyOncePerPeriod).
func TestHeartbeat_WritesOnlyTheSessionDocument(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "hb", "bob", "phone")
	j := f.mustJoin(t, "hb", "alice", "tab")
	s := presence.DefaultSettings()
	if err := f.store.ReadPolicyForTest(f.ctx, "hb"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(s.Lease - s.RenewWithin()) // the renew window opens, within the policy cache

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

// The TTL backstop of a long-lived room: ordinary heartbeats never write the
// room or roster entry, but once they come within a day of their expireAt,
// one heartbeat pushes it a horizon ahead, in its own transaction; a second
// session of the room then finds it fresh and writes only itself.
func TestHeartbeat_RefreshesRoomAndEntryExpiryOncePerDay(t *testing.T) {
	f := MustOpenStore(t)
	settings := presence.DefaultSettings()
	settings.RecordHorizon = 48 * time.Hour
	settings.Heartbeat, settings.Lease, settings.RenewWhenLeft = 30*time.Minute, time.Hour, 0.5
	store := firestoredb.New(f.client, settings, f.clock.Now)
	join := func(session string) presence.Session {
		res, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "long", ParticipantID: "alice", SessionID: session}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Session
	}
	tab1, tab2 := join("tab-1"), join("tab-2")
	beat := func(s presence.Session) []string {
		t.Helper()
		before := emulatortest.Snapshot(t, f.client)
		if _, err := store.Heartbeat(f.ctx, ref("long", "alice", s.ID, s.Generation)); err != nil {
			t.Fatal(err)
		}
		changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
		sort.Strings(changed)
		return changed
	}
	expireAt := func(path string) time.Time {
		snap, err := f.client.Doc(path).Get(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Data()["expireAt"].(time.Time)
	}
	joinedAt := f.clock.Now()

	// 23.5 hours of heartbeats: each writes its session only.
	for i := 0; i < 47; i++ {
		f.clock.Advance(30 * time.Minute)
		for _, s := range []presence.Session{tab1, tab2} {
			if changed := beat(s); len(changed) != 1 {
				t.Fatalf("heartbeat at +%v wrote %v", f.clock.Now().Sub(joinedAt), changed)
			}
		}
	}
	// Past 24 hours, within a day of the 48 h horizon: the first heartbeat
	// refreshes both documents and what the room's revision keeps: in a
	// room that keeps it on its entries, its retired count (fold.go) and
	// shard "0", the room's repair mark, and no other shard (an older
	// room's: TestRefresh_WhatARoomsRevisionKeeps). The second session's
	// writes only itself.
	f.clock.Advance(31 * time.Minute)
	want := []string{"rooms/long", "rooms/long/participants/alice", "rooms/long/participants/alice/sessions/tab-1",
		"rooms/long/rosterRevisions/0", "rooms/long/recentlyLeft/" + firestoredb.RetiredDoc}
	sort.Strings(want)
	if changed := beat(tab1); !reflect.DeepEqual(changed, want) {
		t.Fatalf("refreshing heartbeat wrote %v, want %v", changed, want)
	}
	if changed := beat(tab2); len(changed) != 1 {
		t.Fatalf("the second session's heartbeat wrote %v", changed)
	}
	newExpiry := f.clock.Now().Add(48 * time.Hour)
	if !expireAt("rooms/long").Equal(newExpiry) || !expireAt("rooms/long/participants/alice").Equal(newExpiry) {
		t.Fatalf("expireAt not refreshed to %v", newExpiry)
	}
	f.clock.Advance(30 * time.Minute)
	if changed := beat(tab1); len(changed) != 1 {
		t.Fatalf("the day's refresh repeated: %v", changed)
	}
}

// Renewing only when at most RenewWhenLeft of the lease is left, seen from
// two function instances (two Firestore clients, one clock): a heartbeat
// with more left writes nothing on either, costs one read and answers the
// stored lease end; one near the lease end renews; each instance sees the
// other's renewal at once (there is no per-instance cache of sessions); and a stale
// generation is refused by both at once, although its lease had more than
// half left, so a skip never answers for a superseded session.
func TestHeartbeat_RenewsOnlyWhenDue_OnEitherInstance(t *testing.T) {
	f := MustOpenStore(t)
	s := presence.DefaultSettings()
	const room, session = "due", "rooms/due/participants/alice/sessions/tab"
	j := f.mustJoin(t, room, "alice", "tab")
	gen := j.Session.Generation
	instances := map[string]*firestoredb.Store{"A": f.store, "B": f.other}
	// The costs below are the session's: each instance holds the room's
	// policy for the whole test (it is read once per PolicyCache).
	for _, store := range instances {
		if err := store.ReadPolicyForTest(f.ctx, room); err != nil {
			t.Fatal(err)
		}
	}

	// beat heartbeats on instance name and returns the deadline, the
	// documents written and the cost.
	beat := func(t *testing.T, name string, gen int64) (time.Time, []string, firestoredb.OpCounts, error) {
		t.Helper()
		store := instances[name]
		before, ops := emulatortest.Snapshot(t, f.client), store.Ops()
		deadline, err := store.Heartbeat(f.ctx, ref(room, "alice", "tab", gen))
		cost := store.Ops().Sub(ops)
		return deadline, emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)), cost, err
	}
	skips := func(t *testing.T, name string, gen int64, want time.Time) {
		t.Helper()
		deadline, changed, cost, err := beat(t, name, gen)
		if err != nil {
			t.Fatalf("instance %s: %v", name, err)
		}
		if len(changed) != 0 || cost != (firestoredb.OpCounts{Reads: 1}) {
			t.Fatalf("instance %s: a heartbeat with more than %v left wrote %v at cost %+v, want nothing at 1 read", name, s.RenewWithin(), changed, cost)
		}
		if !deadline.Equal(want) {
			t.Fatalf("instance %s answered lease end %v, want the stored %v", name, deadline, want)
		}
	}
	refused := func(t *testing.T, name string, gen int64) {
		t.Helper()
		_, changed, _, err := beat(t, name, gen)
		wantCode(t, err, presence.EStaleGeneration)
		if len(changed) != 0 {
			t.Fatalf("instance %s: a refused heartbeat wrote %v", name, changed)
		}
	}

	end := j.Session.LeaseExpiresAt
	f.clock.Advance(s.Heartbeat) // 10 s of 15 left
	skips(t, "B", gen, end)
	skips(t, "A", gen, end)

	f.clock.Advance(s.Lease - s.Heartbeat - s.RenewWithin() + time.Millisecond) // 7.499 s left
	deadline, changed, cost, err := beat(t, "B", gen)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{session}; !reflect.DeepEqual(changed, want) || cost != (firestoredb.OpCounts{Reads: 1, Writes: 1}) {
		t.Fatalf("heartbeat near the lease end wrote %v at cost %+v, want %v at 1 read and 1 write", changed, cost, want)
	}
	if want := f.clock.Now().Add(s.Lease); !deadline.Equal(want) {
		t.Fatalf("renewed to %v, want %v", deadline, want)
	}
	skips(t, "A", gen, deadline) // A reads B's renewal

	// A reconnect through A supersedes the generation whose lease still has
	// almost all of its 15 s: both instances refuse it at once.
	f.clock.Advance(time.Second)
	again := f.mustJoin(t, room, "alice", "tab")
	refused(t, "B", gen)
	refused(t, "A", gen)
	skips(t, "B", again.Session.Generation, again.Session.LeaseExpiresAt)

	// An ended lease is refused by both, never revived.
	f.clock.Advance(s.Lease)
	refused(t, "A", again.Session.Generation)
	refused(t, "B", again.Session.Generation)
}
