package firestoredb_test

import (
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// The sweeper's other two deadlines that every departure writes at about
// now, the repair marks (mayBeEmptyAt) and the departure records to fold
// (leftAt), are written with their shards, and read by shard they are the
// same documents, except those written without one.

func (f *fixture) markDoc(room, uid string) *firestore.DocumentRef {
	return f.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.RevisionsCollection).Doc(firestoredb.DepartureMarkPrefix + uid)
}

func (f *fixture) departureDoc(room, uid string) *firestore.DocumentRef {
	return f.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.RecentlyLeftCollection).Doc(uid)
}

// intField returns ref's integer field, or -1 without one.
func (f *fixture) intField(t *testing.T, ref *firestore.DocumentRef, field string) int64 {
	t.Helper()
	snap, err := ref.Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := snap.Data()[field].(int64)
	if !ok {
		return -1
	}
	return v
}

// joinAndLeave has 24 users in 6 rooms join and then leave, 100 ms apart.
func (f *fixture) joinAndLeave(t *testing.T) {
	t.Helper()
	type who struct{ room, uid string }
	var joined []who
	var gens []int64
	for i := range 24 {
		w := who{fmt.Sprintf("d%d", i%6), fmt.Sprintf("u%02d", i)}
		gens = append(gens, f.mustJoin(t, w.room, w.uid, "tab").Session.Generation)
		joined = append(joined, w)
	}
	for i, w := range joined {
		f.clock.Advance(100 * time.Millisecond)
		if res, err := f.store.Leave(f.ctx, ref(w.room, w.uid, "tab", gens[i])); err != nil || !res.Removed {
			t.Fatalf("leave %v: %+v %v", w, res, err)
		}
	}
}

func TestDepartureShards_MarksAndRecordsAreWrittenWithTheirShards(t *testing.T) {
	f := MustOpenStore(t)
	f.joinAndLeave(t)
	marks, records := map[int64]bool{}, map[int64]bool{}
	for i := range 24 {
		room, uid := fmt.Sprintf("d%d", i%6), fmt.Sprintf("u%02d", i)
		if got, want := f.intField(t, f.markDoc(room, uid), firestoredb.FieldMarkShard), firestoredb.MarkShardOf(room, firestoredb.DepartureMarkPrefix+uid); got != want {
			t.Fatalf("%s/%s's repair mark: markShard %d, want %d", room, uid, got, want)
		}
		if got, want := f.intField(t, f.departureDoc(room, uid), firestoredb.FieldLeftShard), firestoredb.DepartureShardOf(room, uid); got != want {
			t.Fatalf("%s/%s's departure record: leftShard %d, want %d", room, uid, got, want)
		}
		marks[firestoredb.MarkShardOf(room, firestoredb.DepartureMarkPrefix+uid)] = true
		records[firestoredb.DepartureShardOf(room, uid)] = true
	}
	if len(marks) < 4 || len(records) < 4 {
		t.Fatalf("24 departures in %d mark shards and %d record shards: too few to show a merge", len(marks), len(records))
	}
}

// The fold's listing by shard is the single index's, in the same order at
// any limit; a record without a shard is in no shard's range.
func TestDepartureShards_TheFoldListsByShardWhatTheSingleIndexLists(t *testing.T) {
	f := MustOpenStore(t)
	f.joinAndLeave(t)
	single := firestoredb.New(f.client, presence.DefaultSettings(), f.clock.Now) // whatever the test run's lease index
	sharded := f.other
	sharded.ListLeasesByShard()
	f.clock.Advance(presence.DefaultSettings().RecentlyLeft + 3*time.Minute)
	now := f.clock.Now()
	list := func(s *firestoredb.Store, limit int) (string, int) {
		t.Helper()
		l, err := s.StaleDepartures(f.ctx, now, limit)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range l.Items {
			n += len(d.ParticipantIDs)
		}
		return fmt.Sprint(l.Items), n
	}
	for _, limit := range []int{5, 100} {
		a, n := list(single, limit)
		b, _ := list(sharded, limit)
		if want := min(limit, 24); n != want {
			t.Fatalf("limit %d: the single index listed %d records, want %d", limit, n, want)
		}
		if a != b {
			t.Fatalf("limit %d:\nsingle  %v\nsharded %v", limit, a, b)
		}
	}
	if _, err := f.departureDoc("d0", "u00").Update(f.ctx, []firestore.Update{{Path: firestoredb.FieldLeftShard, Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
	if _, n := list(sharded, 100); n != 23 {
		t.Fatalf("by shard, %d records listed, want 23", n)
	}
}

// The repair by shard finds a room whose last departure's request died
// before its emptiness check, from the mark that departure's transaction
// wrote; not a room whose mark has no shard, which the single index finds.
func TestDepartureShards_TheRepairFindsByShardWhatTheLeaveMarked(t *testing.T) {
	f := MustOpenStore(t)
	sharded := f.other
	sharded.ListLeasesByShard()
	single := firestoredb.New(f.client, presence.DefaultSettings(), f.clock.Now)
	rooms := []string{"marked", "unmarked"}
	gens := map[string]int64{}
	for _, room := range rooms {
		gens[room] = f.mustJoin(t, room, "alice", "tab").Session.Generation
	}
	f.clock.Advance(time.Minute)
	since := f.clock.Now().Add(-time.Second) // after the rooms' creation marks, before the leaves'
	for _, room := range rooms {
		if _, err := f.store.Leave(f.ctx, ref(room, "alice", "tab", gens[room])); err != nil {
			t.Fatal(err)
		}
		// As if the leave's request had died after its commit: the room
		// is still active, and only the mark says it may be empty.
		if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc(room).Update(f.ctx, []firestore.Update{
			{Path: "state", Value: string(presence.StateActive)}, {Path: "emptySince", Value: firestore.Delete}, {Path: "cleanupAfter", Value: firestore.Delete},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.markDoc("unmarked", "alice").Update(f.ctx, []firestore.Update{{Path: firestoredb.FieldMarkShard, Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute) // past the repair's settling time
	if rep, err := sharded.RepairEmptyActive(f.ctx, since, 100); err != nil || rep.Repaired != 1 {
		t.Fatalf("by shard: %+v %v, want the marked room repaired", rep, err)
	}
	if state := f.readRoom(t, "marked")["state"]; state != string(presence.StateSuspectedEmpty) {
		t.Fatalf("the marked room is %v", state)
	}
	if state := f.readRoom(t, "unmarked")["state"]; state != string(presence.StateActive) {
		t.Fatalf("the room whose mark has no shard is %v: a sharded repair cannot see it", state)
	}
	if rep, err := single.RepairEmptyActive(f.ctx, since, 100); err != nil || rep.Repaired != 1 {
		t.Fatalf("the single index: %+v %v, want the unmarked room repaired", rep, err)
	}
}
