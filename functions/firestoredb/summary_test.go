package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

func (f *fixture) summary(tb testing.TB, room string) map[string]any {
	tb.Helper()
	snap, err := f.client.Doc("rooms/" + room + "/summary/" + firestoredb.SummaryDoc).Get(f.ctx)
	if err != nil {
		return nil
	}
	return snap.Data()
}

func (f *fixture) summarized(tb testing.TB) []string {
	tb.Helper()
	ids, err := f.store.SummarizedRooms(f.ctx, 100)
	if err != nil {
		tb.Fatal(err)
	}
	return ids
}

// A room that crosses its threshold is marked by the join that crossed
// it, and from then on its summary is refreshed at most once a second,
// from a snapshot: the exact count at the revision it states, a sample,
// and the joins and departures since the previous summary. No join or
// leave writes the summary itself.
func TestSummary_ALargeRoomIsSummarizedOnItsCadence(t *testing.T) {
	f := MustOpenStore(t)
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("hall").Set(f.ctx, map[string]any{"largeRoomThreshold": 3}); err != nil {
		t.Fatal(err)
	}
	ann := f.mustJoin(t, "hall", "ann", "s")
	f.mustJoin(t, "hall", "ben", "s")
	if ids := f.summarized(t); len(ids) != 0 {
		t.Fatalf("summarized below the threshold: %v", ids)
	}
	f.mustJoin(t, "hall", "cat", "s") // the third entry: the threshold
	if ids := f.summarized(t); len(ids) != 1 || ids[0] != "hall" {
		t.Fatalf("summarized rooms %v, want [hall]", ids)
	}
	if wrote, err := f.store.RefreshSummary(f.ctx, "hall"); err != nil || !wrote {
		t.Fatalf("first refresh: %v %v", wrote, err)
	}
	s := f.summary(t, "hall")
	if s["count"] != int64(3) || s["revision"] != int64(3) || s["mode"] != "large" || len(s["sample"].([]any)) != 3 {
		t.Fatalf("summary %v, want 3 at revision 3 with a sample of 3", s)
	}
	if _, err := f.client.Doc("rooms/hall/summary/" + firestoredb.OccupancyDoc).Get(f.ctx); err == nil {
		t.Fatal("a room without public occupancy got an occupancy summary")
	}

	// Within the second: joins and leaves do not touch it, nor does a
	// refresh.
	before := emulatortest.Snapshot(t, f.client)["rooms/hall/summary/current"]
	f.clock.Advance(500 * time.Millisecond)
	f.mustJoin(t, "hall", "dan", "s")
	if _, err := f.store.Leave(f.ctx, ref("hall", "ann", "s", ann.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	if wrote, err := f.store.RefreshSummary(f.ctx, "hall"); err != nil || wrote {
		t.Fatalf("a refresh within the second: wrote %v, %v; want nothing written", wrote, err)
	}
	if after := emulatortest.Snapshot(t, f.client)["rooms/hall/summary/current"]; !after.Equal(before) {
		t.Fatal("the summary changed within its second")
	}

	f.clock.Advance(500 * time.Millisecond)
	if wrote, err := f.store.RefreshSummary(f.ctx, "hall"); err != nil || !wrote {
		t.Fatalf("refresh a second later: %v %v", wrote, err)
	}
	s = f.summary(t, "hall")
	joined, left := s["joined"].([]any), s["left"].([]any)
	if s["count"] != int64(3) || s["revision"] != int64(5) || len(joined) != 1 || len(left) != 1 || s["truncated"] != false {
		t.Fatalf("summary %v, want 3 at revision 5, dan joined and ann left", s)
	}
	if joined[0].(map[string]any)["participantId"] != "dan" || left[0].(map[string]any)["participantId"] != "ann" {
		t.Fatalf("changes joined %v left %v", joined, left)
	}
}

// A summary whose revision is still current is left alone: a quiet large
// room costs its summarizer four reads a second and its listeners nothing.
func TestSummary_AQuietRoomIsNotRewritten(t *testing.T) {
	f := MustOpenStore(t)
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("quiet").Set(f.ctx, map[string]any{"largeRoomThreshold": 2}); err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, "quiet", "a", "s")
	f.mustJoin(t, "quiet", "b", "s")
	if wrote, err := f.store.RefreshSummary(f.ctx, "quiet"); err != nil || !wrote {
		t.Fatalf("first refresh: %v %v", wrote, err)
	}
	f.clock.Advance(5 * time.Second)
	ops := f.store.Ops()
	if wrote, err := f.store.RefreshSummary(f.ctx, "quiet"); err != nil || wrote {
		t.Fatalf("refresh of a quiet room: wrote %v, %v", wrote, err)
	}
	// The summary, the room (where it keeps its revision) and the
	// revision's two aggregations.
	if d := f.store.Ops().Sub(ops); d.Reads != 4 || d.Writes != 0 {
		t.Fatalf("refresh of a quiet room cost %+v, want 4 reads and no write", d)
	}
}

// A room that shrinks to half its threshold loses its summary and its
// mark, so that its listeners return to the roster; a room that opts in
// to public occupancy keeps one whatever its size.
func TestSummary_ARoomThatShrinksLosesItsSummary(t *testing.T) {
	f := MustOpenStore(t)
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("shrinks").Set(f.ctx, map[string]any{"largeRoomThreshold": 4}); err != nil {
		t.Fatal(err)
	}
	var joined []presence.JoinResult
	for _, uid := range []string{"a", "b", "c", "d"} {
		joined = append(joined, f.mustJoin(t, "shrinks", uid, "s"))
	}
	if wrote, err := f.store.RefreshSummary(f.ctx, "shrinks"); err != nil || !wrote {
		t.Fatalf("refresh: %v %v", wrote, err)
	}
	for i, uid := range []string{"a", "b", "c"} {
		if _, err := f.store.Leave(f.ctx, ref("shrinks", uid, "s", joined[i].Session.Generation)); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(time.Second)
	if _, err := f.store.RefreshSummary(f.ctx, "shrinks"); err != nil {
		t.Fatal(err)
	}
	if s := f.summary(t, "shrinks"); s != nil {
		t.Fatalf("a room of 1 with a threshold of 4 kept its summary: %v", s)
	}
	if ids := f.summarized(t); len(ids) != 0 {
		t.Fatalf("still marked: %v", ids)
	}

	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("lobby").Set(f.ctx, map[string]any{"publicOccupancy": true}); err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, "lobby", "a", "s")
	if ids := f.summarized(t); len(ids) != 1 || ids[0] != "lobby" {
		t.Fatalf("summarized %v, want the public room", ids)
	}
	if wrote, err := f.store.RefreshSummary(f.ctx, "lobby"); err != nil || !wrote {
		t.Fatalf("refresh of the public room: %v %v", wrote, err)
	}
	// A room of one has its summary for its outsiders only: its own
	// listeners keep the roster.
	if s := f.summary(t, "lobby"); s["count"] != int64(1) || s["mode"] != "roster" {
		t.Fatalf("public room's summary %v, want a count of 1 in mode roster", s)
	}
	// Outsiders get the nameless twin: count, revision, asOf, nothing else.
	snap, err := f.client.Doc("rooms/lobby/summary/" + firestoredb.OccupancyDoc).Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := snap.Data(); d["count"] != int64(1) || d["revision"] != int64(1) || len(d) != 5 {
		t.Fatalf("occupancy summary %v, want roomId, count, revision, asOf, expireAt", d)
	}
}

// Two summarizers on separate clients refresh one room in the same
// second: one summary lands, the other finds it written.
func TestSummary_TwoSummarizersWriteOncePerSecond(t *testing.T) {
	f := MustOpenStore(t)
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("twice").Set(f.ctx, map[string]any{"largeRoomThreshold": 2}); err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, "twice", "a", "s")
	f.mustJoin(t, "twice", "b", "s")
	if _, err := f.store.RefreshSummary(f.ctx, "twice"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	f.mustJoin(t, "twice", "c", "s")
	var wrote [2]bool
	each(t, 2, func(i int) error {
		var err error
		wrote[i], err = []*firestoredb.Store{f.store, f.other}[i].RefreshSummary(f.ctx, "twice")
		return err
	})
	if wrote[0] == wrote[1] {
		t.Fatalf("refreshes wrote %v, want exactly one", wrote)
	}
}
