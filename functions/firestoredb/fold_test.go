package firestoredb_test

import (
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// What listeners add up (revision.go): the changes carried on the entries
// and departure records of the room's lifetime, plus its retired count,
// must equal the shards' sum after every commit.

// listenerSum is the revision a listener of room adds up from the
// documents it reads, and shards what the API answers (the store's sum of
// the shards, or of the entries and records: entryrevision.go).
func listenerSum(t *testing.T, s *firestoredb.Store, c *firestore.Client, room string) (listener, shards int64) {
	t.Helper()
	ctx := t.Context()
	r, err := c.Collection(firestoredb.RoomsCollection).Doc(room).Get(ctx)
	if err != nil {
		t.Fatalf("room %s: %v", room, err)
	}
	if carried, _ := r.Data()[firestoredb.FieldChangesCarried].(bool); !carried {
		t.Fatalf("room %s does not carry its changes: %v", room, r.Data())
	}
	opened, _ := r.Data()["createdAt"].(time.Time)
	for _, group := range []string{firestoredb.ParticipantsCollection, firestoredb.RecentlyLeftCollection} {
		docs, err := r.Ref.Collection(group).Documents(ctx).GetAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if d.Ref.ID == firestoredb.RetiredDoc {
				retired, _ := d.Data()[firestoredb.FieldRetired].(int64)
				listener += retired
				continue
			}
			at, _ := d.Data()[firestoredb.FieldRoomOpenedAt].(time.Time)
			if n, _ := d.Data()[firestoredb.FieldChanges].(int64); at.Equal(opened) {
				listener += n
			} else if group == firestoredb.ParticipantsCollection {
				t.Errorf("entry %s is stamped with lifetime %v, the room's is %v", d.Ref.Path, at, opened)
			}
		}
	}
	if shards, _, err = s.RevisionForTest(ctx, room); err != nil {
		t.Fatal(err)
	}
	return listener, shards
}

func mustAddUp(t *testing.T, s *firestoredb.Store, c *firestore.Client, room, when string) int64 {
	t.Helper()
	listener, shards := listenerSum(t, s, c, room)
	if listener != shards {
		t.Fatalf("%s: listeners add up to %d, the API to %d", when, listener, shards)
	}
	return shards
}

func foldAll(t *testing.T, s *firestoredb.Store, now time.Time) int {
	t.Helper()
	stale, err := s.StaleDepartures(t.Context(), now, 100)
	if err != nil {
		t.Fatal(err)
	}
	folded := 0
	for _, b := range stale.Items {
		n, err := s.FoldDepartures(t.Context(), b)
		if err != nil {
			t.Fatal(err)
		}
		folded += n
	}
	return folded
}

// Every kind of visible change keeps the sum, and so does a fold: joins,
// a second tab, a state update, an away toggle, leaves, a return that
// takes over the record, and folds of the records nobody shows.
func TestFold_EveryChangeKeepsTheListenersSum(t *testing.T) {
	f := MustOpenStore(t)
	const room = "fold1"
	a := f.mustJoin(t, room, "alice", "t1")
	mustAddUp(t, f.store, f.client, room, "alice joined")
	b := f.mustJoin(t, room, "bob", "t1")
	f.mustJoin(t, room, "alice", "t2")
	mustAddUp(t, f.store, f.client, room, "alice's second tab")
	if _, err := f.store.SetState(f.ctx, presence.StateRequest{SessionRef: ref(room, "bob", "t1", b.Session.Generation), State: presence.State{"mood": "ok"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: ref(room, "bob", "t1", b.Session.Generation), Away: true}); err != nil {
		t.Fatal(err)
	}
	before := mustAddUp(t, f.store, f.client, room, "bob's state and away")
	if res, err := f.store.Leave(f.ctx, ref(room, "bob", "t1", b.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("bob's leave: %v %v", res, err)
	}
	if after := mustAddUp(t, f.store, f.client, room, "bob left"); after != before+1 {
		t.Fatalf("bob's leave moved the revision from %d to %d", before, after)
	}
	f.mustJoin(t, room, "bob", "t2") // back: takes over his record
	mustAddUp(t, f.store, f.client, room, "bob came back")
	if _, err := f.client.Doc("rooms/" + room + "/recentlyLeft/bob").Get(f.ctx); err == nil {
		t.Fatal("bob's departure record is still there after his return")
	}
	if res, err := f.store.Leave(f.ctx, ref(room, "alice", "t1", a.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("alice's first tab: %v %v", res, err)
	}
	mustAddUp(t, f.store, f.client, room, "alice's first tab left")

	// Carol comes and goes; her record is folded once nobody shows it.
	c := f.mustJoin(t, room, "carol", "t1")
	if _, err := f.store.Leave(f.ctx, ref(room, "carol", "t1", c.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	if n := foldAll(t, f.store, f.clock.Now()); n != 0 {
		t.Fatalf("folded %d records that are still shown", n)
	}
	f.clock.Advance(presence.DefaultSettings().RecentlyLeft + presence.DepartureFoldAfter + presence.DepartureFoldEvery + time.Second)
	if n := foldAll(t, f.store, f.clock.Now()); n != 1 {
		t.Fatalf("folded %d records, want carol's", n)
	}
	mustAddUp(t, f.store, f.client, room, "carol's record folded")
	if n := foldAll(t, f.store, f.clock.Now()); n != 0 {
		t.Fatalf("a second fold folded %d", n)
	}
}

// docs/races.md, "a return and a fold": the sweeper folds a departure
// record while its user comes back. Each order is forced with hooks, so
// that one transaction has read the record and waits while the other
// starts, then commits before the other reads (overlapping attempts would
// test the emulator's lock timeouts, see TestTeardown_AJoinDuringTheTeardownStartsANewLifetime).
// Whichever commits first, the record's changes are counted once: in the
// new entry, or in the retired count.
func TestFold_AReturnAndAFoldTakeTurns(t *testing.T) {
	for _, foldFirst := range []bool{true, false} {
		name := map[bool]string{true: "fold first", false: "return first"}[foldFirst]
		t.Run(name, func(t *testing.T) {
			f := MustOpenStore(t)
			room := "fold2"
			f.mustJoin(t, room, "alice", "t1")
			d := f.mustJoin(t, room, "dave", "t1")
			if _, err := f.store.Leave(f.ctx, ref(room, "dave", "t1", d.Session.Generation)); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(presence.DefaultSettings().RecentlyLeft + presence.DepartureFoldAfter + presence.DepartureFoldEvery + time.Second)
			stale, err := f.store.StaleDepartures(f.ctx, f.clock.Now(), 10)
			if err != nil || len(stale.Items) != 1 {
				t.Fatalf("stale departures %v, %v", stale.Items, err)
			}

			firstRead, firstDone := make(chan struct{}), make(chan struct{})
			var first, second func() error
			var folded int
			fold := func() error {
				n, err := f.store.FoldDepartures(f.ctx, stale.Items[0])
				folded = n
				return err
			}
			join := func() error {
				_, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "dave", SessionID: "t2"}})
				return err
			}
			once := func(f func()) func() {
				done := false
				return func() {
					if !done {
						done = true
						f()
					}
				}
			}
			if foldFirst {
				first, second = fold, join
				f.store.SetAfterFoldReads(once(func() { close(firstRead) }))
				f.other.SetBeforeJoinReads(once(func() { <-firstDone }))
			} else {
				first, second = join, fold
				f.other.SetAfterJoinReads(once(func() { close(firstRead) }))
				f.store.SetBeforeFoldReads(once(func() { <-firstDone }))
			}
			errs := make(chan error, 2)
			go func() { errs <- first(); close(firstDone) }()
			<-firstRead
			go func() { errs <- second() }()
			for range 2 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if want := map[bool]int{true: 1, false: 0}[foldFirst]; folded != want {
				t.Fatalf("folded %d records, want %d", folded, want)
			}
			mustAddUp(t, f.store, f.client, room, name)
		})
	}
}

// docs/races.md, "a fold during the teardown": the teardown has listed the
// room's revision documents when a fold writes the room's retired count
// for the first time. The teardown deletes the retired count by name, so
// the room's next lifetime does not start with the old lifetime's folded
// changes in its listeners' sum.
func TestFold_AFoldDuringTheTeardown(t *testing.T) {
	f := MustOpenStore(t)
	const room = "fold3"
	seen := emptyRoom(t, f, room) // alice came and went: her record waits
	f.clock.Advance(presence.DefaultSettings().RecentlyLeft + presence.DepartureFoldAfter + presence.DepartureFoldEvery)
	stale, err := f.other.StaleDepartures(f.ctx, f.clock.Now(), 10)
	if err != nil || len(stale.Items) != 1 {
		t.Fatalf("stale departures %v, %v", stale.Items, err)
	}
	folded := -1
	f.store.SetAfterTeardownCheck(func() {
		if folded < 0 {
			if folded, err = f.other.FoldDepartures(f.ctx, stale.Items[0]); err != nil {
				t.Error(err)
			}
		}
	})
	res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), true)
	if err != nil || res.Closing == nil {
		t.Fatalf("teardown: %+v, %v", res, err)
	}
	if folded != 1 {
		t.Fatalf("the fold inside the teardown folded %d records", folded)
	}
	f.store.SetAfterTeardownCheck(nil)
	f.mustJoin(t, room, "bob", "t1") // the next lifetime
	if listener, shards := listenerSum(t, f.store, f.client, room); listener != 1 || shards != 1 {
		t.Fatalf("the new lifetime's listeners add up to %d, its shards to %d; want 1 and 1", listener, shards)
	}
}
