package firestoredb_test

import (
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// reopen puts a room back as it was before a departure's emptiness check:
// what the room looks like when the departing request died after its
// commit, before its check.
func (f *fixture) reopen(t *testing.T, room string) {
	t.Helper()
	_, err := f.client.Doc("rooms/"+room).Update(f.ctx, []firestore.Update{
		{Path: "state", Value: "active"}, {Path: "cleanupAfter", Value: nil}, {Path: "emptySince", Value: nil}})
	if err != nil {
		t.Fatal(err)
	}
}

// The repair's watermark (docs/races.md). An expiry that commits long after
// the lease ended (the sweeper was down) marks the room with its own
// decision time, not the lease's end, so a watermark that other sweepers
// moved past the lease's end meanwhile does not hide it; the grace still
// counts from the lease's end.
func TestRepair_ALateExpiryIsMarkedAboveTheWatermark(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "late", "alice", "tab")
	f.clock.Advance(10 * time.Minute)
	// Another sweeper has looked through everything up to now.
	seen, err := f.other.RepairEmptyActive(f.ctx, j.Session.CreatedAt.Add(-time.Second), 10)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.store.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "late", ParticipantID: "alice", SessionID: "tab",
		Generation: j.Session.Generation, LeaseExpiresAt: j.Session.LeaseExpiresAt})
	if err != nil || res.Outcome != presence.Done {
		t.Fatalf("expiry: %v %v", res.Outcome, err)
	}
	f.reopen(t, "late")
	f.clock.Advance(31 * time.Second)
	rep, err := f.other.RepairEmptyActive(f.ctx, seen.Through, 10)
	if err != nil || rep.Repaired != 1 {
		t.Fatalf("repair from the watermark %v: %+v, %v; want the late expiry's room repaired", seen.Through, rep, err)
	}
	room := f.readRoom(t, "late")
	if got, _ := room["emptySince"].(time.Time); !got.Equal(j.Session.LeaseExpiresAt) {
		t.Fatalf("emptySince %v, want the lease's end %v", got, j.Session.LeaseExpiresAt)
	}
}

// One room whose re-check keeps failing (here, a room document that does
// not decode) does not hold the watermark back: the other rooms are
// repaired, the report moves on, and the failing room is marked again for
// a later look.
func TestRepair_AFailingRoomDoesNotPinTheWatermark(t *testing.T) {
	f := MustOpenStore(t)
	since := f.clock.Now().Add(-time.Second)
	for _, room := range []string{"bad", "good"} {
		j := f.mustJoin(t, room, "alice", "tab")
		if _, err := f.store.Leave(f.ctx, ref(room, "alice", "tab", j.Session.Generation)); err != nil {
			t.Fatal(err)
		}
		f.reopen(t, room)
	}
	if _, err := f.client.Doc("rooms/bad").Update(f.ctx, []firestore.Update{{Path: "generation", Value: "not a number"}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(31 * time.Second)
	rep, err := f.store.RepairEmptyActive(f.ctx, since, 10)
	if err == nil {
		t.Fatal("the failing room's check reported no error")
	}
	if rep.Repaired != 1 || rep.Failed != 1 {
		t.Fatalf("report %+v, want one repaired, one failed", rep)
	}
	if !rep.Through.After(f.clock.Now().Add(-time.Minute)) {
		t.Fatalf("watermark %v stayed behind (since %v)", rep.Through, since)
	}
	if room := f.readRoom(t, "good"); room["state"] != string(presence.StateSuspectedEmpty) {
		t.Fatalf("the good room %v was not repaired", room)
	}
	// The failing room comes round again once its new mark has settled.
	f.clock.Advance(31 * time.Second)
	again, err := f.store.RepairEmptyActive(f.ctx, rep.Through, 10)
	if again.Failed != 1 || err == nil {
		t.Fatalf("the failing room was not looked at again: %+v, %v", again, err)
	}
}

// Documents that are not presence data but match a sweeper's listing (here
// another app's "sessions" with an earlier leaseExpiresAt) are never
// removed, so they come first in every listing; a page of them must not
// hide the candidates behind them (docs/races.md, "A sweeper that stalls on
// one bad item").
func TestListing_PagesPastDocumentsThatAreNotPresenceData(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "real", "alice", "tab")
	for _, id := range []string{"a", "b", "c"} {
		// With a leaseShard, so that a listing by shard finds them too.
		_, err := f.client.Doc("apps/other/sessions/"+id).Set(f.ctx, map[string]any{"leaseExpiresAt": time.Unix(0, 0), "leaseShard": int64(0)})
		if err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(presence.DefaultSettings().Lease)
	got, err := f.store.ExpiredSessions(f.ctx, f.clock.Now(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].Generation != j.Session.Generation {
		t.Fatalf("listed %+v (skipped %v); want alice's expired session behind the foreign documents", got.Items, got.Undecodable)
	}
	if len(got.Undecodable) != 3 {
		t.Fatalf("reported %v, want the three foreign documents", got.Undecodable)
	}
}
