package firestoredb_test

import (
	"fmt"
	"testing"

	"github.com/roomlease/roomlease/functions/firestoredb"
)

// An aggregation is billed one read per 1 000 index entries it matches, so
// the revision's sum over a roster of 2 500 costs three reads where a
// roster of one costs one: the op counters, which BENCHMARKS prices, count
// it so instead of as one read whatever the room's size.
func TestOps_AnAggregationIsBilledPerThousandEntries(t *testing.T) {
	f := MustOpenStore(t)
	const room = "billed-by-entries"
	f.mustJoin(t, room, "u0000", "tab")

	readRevision := func() (reads int64, entries int) {
		t.Helper()
		before := f.store.Ops()
		_, n, err := f.store.RevisionForTest(f.ctx, room)
		if err != nil {
			t.Fatal(err)
		}
		return f.store.Ops().Sub(before).Reads, n
	}
	alone, n := readRevision()
	if n != 1 {
		t.Fatalf("a room of one counts %d entries", n)
	}

	// The other 2 499 entries are copies of the first (same lifetime and
	// fields), written directly: 2 499 joins would take minutes here.
	entries := f.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.ParticipantsCollection)
	first, err := entries.Doc("u0000").Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	bw := f.client.BulkWriter(f.ctx)
	for i := 1; i < 2500; i++ {
		uid := fmt.Sprintf("u%04d", i)
		data := first.Data()
		data["participantId"] = uid
		if _, err := bw.Set(entries.Doc(uid), data); err != nil {
			t.Fatal(err)
		}
	}
	bw.End()

	big, n := readRevision()
	if n != 2500 {
		t.Fatalf("the room counts %d entries, want 2500", n)
	}
	// 2 500 entries: 3 batches of up to 1 000 instead of 1.
	if big != alone+2 {
		t.Errorf("reading the revision of 2 500 entries counted %d reads, of one entry %d: want 2 more", big, alone)
	}
}
