package firestoredb_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

func (f *fixture) join(room, uid, session string) error {
	_, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: session}})
	return err
}

// mustRefuseWithoutWrites joins and wants the error code, with the database
// exactly as it was before (no document added, removed or rewritten).
func (f *fixture) mustRefuseWithoutWrites(tb testing.TB, store *firestoredb.Store, room, uid, session, code string) {
	tb.Helper()
	before := emulatortest.Snapshot(tb, f.client)
	_, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: session}})
	wantCode(tb, err, code)
	after := emulatortest.Snapshot(tb, f.client)
	if changed := emulatortest.Changed(before, after); len(changed) != 0 || len(after) != len(before) {
		tb.Fatalf("a refused join changed %v (%d documents before, %d after)", changed, len(before), len(after))
	}
}

// userRooms reads uid's per-user document's room ids.
func (f *fixture) userRooms(tb testing.TB, uid string) map[string]any {
	tb.Helper()
	snap, err := f.client.Collection(firestoredb.UsersCollection).Doc(uid).Get(f.ctx)
	if err != nil {
		tb.Fatalf("reading the user document of %s: %v", uid, err)
	}
	rooms, _ := snap.Data()["rooms"].(map[string]any)
	return rooms
}

func TestJoin_SessionsCap(t *testing.T) {
	f := MustOpenStore(t)
	for i := range 10 {
		f.mustJoin(t, "tabs", "mallory", fmt.Sprintf("s%d", i))
	}
	f.mustJoin(t, "tabs", "alice", "tab")

	t.Run("the 11th session is refused and writes nothing", func(t *testing.T) {
		f.mustRefuseWithoutWrites(t, f.store, "tabs", "mallory", "s10", presence.ETooManySessions)
	})
	t.Run("a reconnect at the cap is admitted", func(t *testing.T) {
		if err := f.join("tabs", "mallory", "s4"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("after a leave a new session is admitted", func(t *testing.T) {
		j := f.mustJoin(t, "tabs", "mallory", "s0")
		if res, err := f.store.Leave(f.ctx, ref("tabs", "mallory", "s0", j.Session.Generation)); err != nil || !res.Removed {
			t.Fatalf("leave: %+v %v", res, err)
		}
		if err := f.join("tabs", "mallory", "s10"); err != nil {
			t.Fatal(err)
		}
		f.mustRefuseWithoutWrites(t, f.store, "tabs", "mallory", "s11", presence.ETooManySessions)
	})
	t.Run("a session whose lease ended is not revived past the cap", func(t *testing.T) {
		// All of mallory's leases end; ten new ones fill the cap before the
		// sweeper came by. Reviving an ended one would be an 11th live one.
		f.clock.Advance(presence.DefaultSettings().Lease)
		for i := range 10 {
			f.mustJoin(t, "tabs", "mallory", fmt.Sprintf("fresh%d", i))
		}
		f.mustRefuseWithoutWrites(t, f.store, "tabs", "mallory", "s1", presence.ETooManySessions)
	})
	t.Run("the roster read costs at most 1 + roster + 10 × roster", func(t *testing.T) {
		f.mustJoin(t, "tabs", "alice", "tab")
		ids, r := f.liveIDs(t, "tabs", "alice")
		if len(ids) != 2 || r.Participants[1].SessionCount != 10 {
			t.Fatalf("roster %+v", r.Participants)
		}
		before := f.store.Ops()
		f.liveIDs(t, "tabs", "alice")
		reads := f.store.Ops().Sub(before).Reads
		// The entries, the room, the live sessions (10 + 1), and the
		// revision's aggregation (one read per 1000 shards).
		if bound := int64(1 + 2 + 10*2); reads > bound {
			t.Fatalf("the roster read cost %d reads, above the bound %d", reads, bound)
		}
	})
}

func TestJoin_RoomsCap(t *testing.T) {
	f := MustOpenStore(t)
	for i := range 20 {
		f.mustJoin(t, fmt.Sprintf("room%02d", i), "mallory", "s")
	}
	if n := len(f.userRooms(t, "mallory")); n != 20 {
		t.Fatalf("the user document lists %d rooms, want 20", n)
	}

	t.Run("the 21st room is refused and writes nothing, not even the room", func(t *testing.T) {
		f.mustRefuseWithoutWrites(t, f.store, "room20", "mallory", "s", presence.ETooManyRooms)
	})
	t.Run("another tab in a room already joined is admitted", func(t *testing.T) {
		if err := f.join("room03", "mallory", "phone"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a room whose entry is gone does not count", func(t *testing.T) {
		// Leaving room07 deletes the entry there; the user document still
		// lists room07 until a join at the cap finds it stale.
		leaveRoom(t, f, "room07", "mallory", "s")
		if _, ok := f.userRooms(t, "mallory")["room07"]; !ok {
			t.Fatal("the leave wrote the user document; departures must not touch it")
		}
		if err := f.join("room20", "mallory", "s"); err != nil {
			t.Fatalf("join after leaving one room: %v", err)
		}
		rooms := f.userRooms(t, "mallory")
		if _, ok := rooms["room07"]; ok || len(rooms) != 20 {
			t.Fatalf("the user document lists %d rooms (room07: %v), want 20 without room07", len(rooms), ok)
		}
		f.mustRefuseWithoutWrites(t, f.store, "room21", "mallory", "s", presence.ETooManyRooms)
	})
	t.Run("other users are not affected", func(t *testing.T) {
		if err := f.join("room21", "alice", "s"); err != nil {
			t.Fatal(err)
		}
	})
}

// leaveRoom leaves with the session's current generation, read from the
// store by a reconnect-free path: the roster as the user.
func leaveRoom(t *testing.T, f *fixture, room, uid, session string) {
	t.Helper()
	snap, err := f.client.Doc(fmt.Sprintf("rooms/%s/participants/%s/sessions/%s", room, uid, session)).Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := snap.Data()["generation"].(int64)
	if res, err := f.store.Leave(f.ctx, ref(room, uid, session, gen)); err != nil || !res.Removed {
		t.Fatalf("leave %s: %+v %v", room, res, err)
	}
}

// A join that adds a roster entry reads the user document and writes it:
// 4 lookups (room, entry, policy, session), the user document, the user's
// departure record (whose changes a returning user's entry takes over,
// revision.go), and, after writing its claim on a place (claims.go), the
// revision, the roster's size and the claims at one snapshot (three
// aggregations: the entries' changes and count, the records' changes, the
// claims' count), which also make the reply's revision; it writes the
// claim, the session, the entry and the user document, deletes the claim,
// and writes no revision shard. At the cap it also looks up each listed
// room's entry, and is refused before it claims anything.
func TestJoin_UserDocumentCost(t *testing.T) {
	f := MustOpenStore(t)
	for i := range 21 {
		f.mustJoin(t, fmt.Sprintf("r%02d", i), fmt.Sprintf("host%02d", i), "s")
	}
	for i, want := range []firestoredb.OpCounts{{Reads: 9, Writes: 5}, 19: {Reads: 9, Writes: 5}} {
		before := f.store.Ops()
		f.mustJoin(t, fmt.Sprintf("r%02d", i), "alice", "s")
		if got := f.store.Ops().Sub(before); want != (firestoredb.OpCounts{}) && got != want {
			t.Errorf("join of alice's room %d cost %+v, want %+v", i+1, got, want)
		}
	}
	// The 21st: the 20 listed rooms' entries are looked up, and the join
	// is refused.
	before := f.store.Ops()
	wantCode(t, f.join("r20", "alice", "s"), presence.ETooManyRooms)
	if got, want := f.store.Ops().Sub(before), (firestoredb.OpCounts{Reads: 6 + 20, Writes: 0}); got != want {
		t.Errorf("the refused 21st room cost %+v, want %+v", got, want)
	}
	before = f.store.Ops()
	// A reconnect: no user document, and no listing of alice's sessions,
	// since her entry counts only this one (presence.SoleSession).
	f.mustJoin(t, "r00", "alice", "s")
	if got, want := f.store.Ops().Sub(before), (firestoredb.OpCounts{Reads: 6, Writes: 1}); got != want {
		t.Errorf("a reconnect cost %+v, want %+v", got, want)
	}
	if _, ok := f.userRooms(t, "alice")["r00"].(time.Time); !ok {
		t.Fatalf("joinedAt of room r00 is not a time: %v", f.userRooms(t, "alice"))
	}
}

// Two joins of one user into two different rooms, one place left, through
// two stores on separate Firestore clients (two instances): both read the
// user document before either writes, and exactly one is admitted.
func TestJoin_RoomsCapRace(t *testing.T) {
	f := MustOpenStore(t)
	for i := range 19 {
		f.mustJoin(t, fmt.Sprintf("room%02d", i), "mallory", "s")
	}
	// Both rooms exist, so that each join is one transaction with no room
	// step in between.
	for _, room := range []string{"x", "y"} {
		f.mustJoin(t, room, "host", "s")
	}

	key := func(room string) presence.JoinRequest {
		return presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "mallory", SessionID: "s"}}
	}
	reads := raceTwoJoins(t, [2]*firestoredb.Store{f.store, f.other}, [2]presence.JoinRequest{key("x"), key("y")}, presence.ETooManyRooms)
	if reads[0]+reads[1] < 3 {
		t.Fatalf("attempts %d and %d: the loser decided only once, so the race was not run", reads[0], reads[1])
	}
	if rooms := f.userRooms(t, "mallory"); len(rooms) != 20 {
		t.Fatalf("user document lists %d rooms, want 20", len(rooms))
	}
	entries := 0
	for _, room := range []string{"x", "y"} {
		if snap, _ := f.client.Doc("rooms/" + room + "/participants/mallory").Get(f.ctx); snap != nil && snap.Exists() {
			entries++
		}
	}
	if entries != 1 {
		t.Fatalf("mallory is listed in %d of x and y, want 1", entries)
	}
}

// Two joins of one user with new sessions, one place left, through two
// instances, while the stored session count is stale (a lease ended, not
// yet swept, so neither join changes the count): both read the entry before
// either writes, and exactly one is admitted, because each also writes the
// unchanged entry as a fence.
func TestJoin_SessionsCapRace(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "tabs", "mallory", "early")
	f.clock.Advance(5 * time.Second)
	for i := range 9 {
		f.mustJoin(t, "tabs", "mallory", fmt.Sprintf("s%d", i))
	}
	f.clock.Advance(10 * time.Second) // "early" has ended; the count still says 10
	f.mustJoin(t, "tabs", "host", "s")

	key := func(session string) presence.JoinRequest {
		return presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "tabs", ParticipantID: "mallory", SessionID: session}}
	}
	raceTwoJoins(t, [2]*firestoredb.Store{f.store, f.other}, [2]presence.JoinRequest{key("new0"), key("new1")}, presence.ETooManySessions)
	_, r := f.liveIDs(t, "tabs", "host")
	for _, p := range r.Participants {
		if p.ID == "mallory" && p.SessionCount != 10 {
			t.Fatalf("mallory holds %d live sessions, want 10", p.SessionCount)
		}
	}
}

// Room ids may hold "." and "~": as keys of the per-user map they are map
// keys, never field paths, and a later join still finds them there.
func TestJoin_UserDocumentKeepsDottedRoomIDs(t *testing.T) {
	f := MustOpenStore(t)
	for _, room := range []string{"a.b", "c~d", "e-f_g"} {
		f.mustJoin(t, room, "alice", "s")
	}
	rooms := f.userRooms(t, "alice")
	for _, room := range []string{"a.b", "c~d", "e-f_g"} {
		if _, ok := rooms[room].(time.Time); !ok {
			t.Errorf("room %q is not a key of the user document %v", room, rooms)
		}
	}
	if len(rooms) != 3 {
		t.Fatalf("user document %v, want 3 rooms", rooms)
	}
}

// raceTwoJoins runs reqs[i] through stores[i] at once, with a barrier:
// each join's first attempt waits after its reads until the other has read
// too, so both decide on the same stored state. Exactly one must be
// admitted and the other refused with refused. It returns how many times
// each join read (an attempt aborted by the other's commit reads again).
func raceTwoJoins(t *testing.T, stores [2]*firestoredb.Store, reqs [2]presence.JoinRequest, refused string) [2]int32 {
	t.Helper()
	arrive := rendezvous(2)
	var reads [2]atomic.Int32
	for i, s := range stores {
		s.SetAfterJoinReads(func() {
			if reads[i].Add(1) == 1 {
				arrive()
			}
		})
	}
	var errs [2]error
	var done sync.WaitGroup
	for i := range stores {
		done.Add(1)
		go func() {
			defer done.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, errs[i] = stores[i].Join(ctx, reqs[i])
		}()
	}
	done.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case presence.ErrorCode(err) != refused:
			t.Fatalf("join: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d joins admitted (errors %v), want exactly 1", won, errs)
	}
	return [2]int32{reads[0].Load(), reads[1].Load()}
}

// rendezvous returns a function that blocks until n callers have called it,
// or 30 s have passed (so that a join that fails before arriving makes the
// test fail on its outcome instead of hanging).
func rendezvous(n int) func() {
	var arrived atomic.Int32
	all := make(chan struct{})
	return func() {
		if arrived.Add(1) == int32(n) {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(30 * time.Second):
		}
	}
}
