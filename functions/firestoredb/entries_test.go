package firestoredb_test

import (
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// olderRoom creates room as a server that kept the revision and the size
// on the revision shards left it (no revisionOnEntries): active, empty, so
// that the joins that follow take the shards' path.
func (f *fixture) olderRoom(tb testing.TB, room string) {
	tb.Helper()
	now := f.clock.Now()
	horizon := presence.DefaultSettings().RecordHorizon
	if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc(room).Set(f.ctx, map[string]any{
		"roomId": room, "state": string(presence.StateActive), "generation": 1, "createdAt": now, "updatedAt": now,
		"expireAt": now.Add(horizon), firestoredb.FieldRevisionExpireAt: now.Add(horizon),
		firestoredb.FieldEntriesCounted: true, firestoredb.FieldChangesCarried: true,
	}); err != nil {
		tb.Fatal(err)
	}
}

// roomKinds are the two places a room keeps its size: the shards (an older
// room) and its entries (a room created now, entryrevision.go). counted
// says what the store counts for the room, the way the kind keeps it.
var roomKinds = []struct {
	name    string
	older   bool
	counted func(f *fixture, tb testing.TB, room string) int
}{
	{"OnTheShards", true, func(f *fixture, tb testing.TB, room string) int {
		sum, _ := f.shardEntries(tb, room)
		return sum
	}},
	{"OnTheEntries", false, func(f *fixture, tb testing.TB, room string) int {
		_, n, err := f.store.RevisionForTest(f.ctx, room)
		if err != nil {
			tb.Fatal(err)
		}
		return n
	}},
}

// shardEntries returns the sum of the room's revision shards' entry counts
// and the number of roster entry documents, read directly.
func (f *fixture) shardEntries(tb testing.TB, room string) (sum, docs int) {
	tb.Helper()
	roomRef := f.client.Collection(firestoredb.RoomsCollection).Doc(room)
	shards, err := roomRef.Collection(firestoredb.RevisionsCollection).Documents(f.ctx).GetAll()
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range shards {
		if n, ok := s.Data()[firestoredb.FieldEntries].(int64); ok {
			sum += int(n)
		}
	}
	entries, err := roomRef.Collection(firestoredb.ParticipantsCollection).Documents(f.ctx).GetAll()
	if err != nil {
		tb.Fatal(err)
	}
	return sum, len(entries)
}

// Every way an entry comes and goes keeps the count the store reads equal
// to the roster, in both kinds of room: new users, a second tab, a
// reconnect, a leave that keeps the user (one tab of two), a leave that
// removes them, an expiry, an eviction by a changed policy, through two
// instances.
func TestEntries_TheCountFollowsTheRoster(t *testing.T) {
	for _, kind := range roomKinds {
		t.Run(kind.name, func(t *testing.T) { testCountFollowsTheRoster(t, kind.older, kind.counted) })
	}
}

func testCountFollowsTheRoster(t *testing.T, older bool, counted func(*fixture, testing.TB, string) int) {
	f := MustOpenStore(t)
	if older {
		f.olderRoom(t, "count")
	}
	count := func(room string) (int, int) {
		_, docs := f.shardEntries(t, room)
		return counted(f, t, room), docs
	}
	joined := map[string]presence.JoinResult{}
	for i, uid := range []string{"ann", "ben", "cat", "dan", "eve"} {
		store := []*firestoredb.Store{f.store, f.other}[i%2]
		res, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "count", ParticipantID: uid, SessionID: "tab"}})
		if err != nil {
			t.Fatal(err)
		}
		joined[uid] = res
	}
	second := f.mustJoin(t, "count", "ann", "tab2")
	f.mustJoin(t, "count", "ben", "tab") // a reconnect
	if sum, docs := count("count"); sum != 5 || docs != 5 {
		t.Fatalf("after the joins: the store counts %d, roster has %d, want 5 and 5", sum, docs)
	}
	if room := f.readRoom(t, "count"); room[firestoredb.FieldEntriesCounted] != true || (room[firestoredb.FieldRevisionOnEntries] == true) == older {
		t.Fatalf("the room is not marked as its kind: %v", room)
	}

	f.clock.Advance(time.Second)
	for _, leave := range []presence.SessionRef{
		ref("count", "ann", "tab2", second.Session.Generation), // ann stays, with one tab
		ref("count", "cat", "tab", joined["cat"].Session.Generation),
	} {
		if res, err := f.other.Leave(f.ctx, leave); err != nil || !res.Removed {
			t.Fatalf("leave %v: %+v %v", leave, res, err)
		}
	}
	if sum, docs := count("count"); sum != 4 || docs != 4 {
		t.Fatalf("after the leaves: the store counts %d, roster has %d, want 4 and 4", sum, docs)
	}

	// dan's lease ends; the sweeper expires it.
	f.clock.Advance(presence.DefaultSettings().Lease)
	for _, uid := range []string{"ann", "ben", "eve"} {
		f.mustJoin(t, "count", uid, "tab") // the others stay live
	}
	d := joined["dan"].Session
	if res, err := f.store.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "count", ParticipantID: "dan", SessionID: d.ID,
		Generation: d.Generation, LeaseExpiresAt: d.LeaseExpiresAt}); err != nil || res.Outcome != presence.Done {
		t.Fatalf("expiry of dan: %+v %v", res, err)
	}
	if sum, docs := count("count"); sum != 3 || docs != 3 {
		t.Fatalf("after the expiry: the store counts %d, roster has %d, want 3 and 3", sum, docs)
	}

	// A policy that admits ann and ben only evicts eve.
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("count").Set(f.ctx, map[string]any{
		"allowedUsers": []string{"ann", "ben"}, "updatedAt": f.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.EnforcePolicy(f.ctx, presence.PolicyChange{RoomID: "count", UpdatedAt: f.clock.Now(),
		Policy: presence.Policy{AllowedUsers: []string{"ann", "ben"}}}, 10); err != nil {
		t.Fatal(err)
	}
	if sum, docs := count("count"); sum != 2 || docs != 2 {
		t.Fatalf("after the eviction: the store counts %d, roster has %d, want 2 and 2", sum, docs)
	}
}

// docs/races.md, "A crowd bigger than the places left", its last
// paragraph: in an older room one place below its cap, two new users
// joining at once through two instances, both having read the roster's
// size before either writes. Exactly one is admitted: each join near the
// cap reads every revision shard inside its transaction, and the other's
// entry lands on a shard it read. A room that keeps its size on its
// entries settles it with claims instead (claims_test.go).
func TestJoin_CapRace(t *testing.T) {
	kind := roomKinds[0]
	testCapRace(t, kind.older, kind.counted)
}

func testCapRace(t *testing.T, older bool, counted func(*fixture, testing.TB, string) int) {
	f := MustOpenStore(t)
	if older {
		f.olderRoom(t, "last")
	}
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("last").Set(f.ctx, map[string]any{"maxParticipants": 3}); err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, "last", "host", "s")
	f.mustJoin(t, "last", "guest", "s")
	key := func(uid string) presence.JoinRequest {
		return presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "last", ParticipantID: uid, SessionID: "s"}}
	}
	reads := raceTwoJoins(t, [2]*firestoredb.Store{f.store, f.other}, [2]presence.JoinRequest{key("carol"), key("dave")}, presence.ERoomFull)
	if reads[0]+reads[1] < 3 {
		t.Fatalf("attempts %d and %d: the loser decided only once, so the race was not run", reads[0], reads[1])
	}
	if _, docs := f.shardEntries(t, "last"); counted(f, t, "last") != 3 || docs != 3 {
		t.Fatalf("the store counts %d, roster has %d, want 3 and 3", counted(f, t, "last"), docs)
	}
}

// A room created before the shards counted entries (no entriesCounted on
// the room, no entry counts on its shards) is still capped exactly, by a
// count() of its entries, and still empties when its last user leaves.
func TestJoin_ARoomOfAnOlderServerIsCountedAsBefore(t *testing.T) {
	f := MustOpenStore(t)
	f.olderRoom(t, "old")
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("old").Set(f.ctx, map[string]any{"maxParticipants": 2}); err != nil {
		t.Fatal(err)
	}
	a := f.mustJoin(t, "old", "ann", "s")
	// What an older server left: the flag and the shards' counts absent.
	roomRef := f.client.Collection(firestoredb.RoomsCollection).Doc("old")
	if _, err := roomRef.Update(f.ctx, []firestore.Update{{Path: firestoredb.FieldEntriesCounted, Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
	shards, err := roomRef.Collection(firestoredb.RevisionsCollection).Documents(f.ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shards {
		if _, err := s.Ref.Update(f.ctx, []firestore.Update{{Path: firestoredb.FieldEntries, Value: firestore.Delete}}); err != nil {
			t.Fatal(err)
		}
	}
	b := f.mustJoin(t, "old", "ben", "s")
	f.mustRefuseWithoutWrites(t, f.store, "old", "cat", "s", presence.ERoomFull)

	f.clock.Advance(time.Second)
	for i, r := range []presence.JoinResult{a, b} {
		if _, err := f.store.Leave(f.ctx, ref("old", []string{"ann", "ben"}[i], "s", r.Session.Generation)); err != nil {
			t.Fatal(err)
		}
	}
	if room := f.readRoom(t, "old"); room["state"] != string(presence.StateSuspectedEmpty) {
		t.Fatalf("the older room after its last leave: %v, want suspected_empty", room)
	}
	if sum, _ := f.shardEntries(t, "old"); sum != -1 {
		t.Fatalf("shards count %d after one counted join and two leaves, want -1 (only changes since the upgrade)", sum)
	}
}

// A crowd of new users joins a room through two instances, and the count
// the store reads stays exact, in both kinds of room.
func TestEntries_ACrowdIsCountedExactly(t *testing.T) {
	for _, kind := range roomKinds {
		t.Run(kind.name, func(t *testing.T) {
			f := MustOpenStore(t)
			if kind.older {
				f.olderRoom(t, "many")
			}
			testCrowdCounted(t, f, kind.counted)
		})
	}
}

func testCrowdCounted(t *testing.T, f *fixture, counted func(*fixture, testing.TB, string) int) {
	f.mustJoin(t, "many", "host", "s")
	const crowd = 30
	each(t, crowd, func(i int) error {
		_, err := []*firestoredb.Store{f.store, f.other}[i%2].Join(f.ctx, presence.JoinRequest{
			SessionKey: presence.SessionKey{RoomID: "many", ParticipantID: fmt.Sprintf("u%02d", i), SessionID: "s"}})
		return err
	})
	if _, docs := f.shardEntries(t, "many"); counted(f, t, "many") != crowd+1 || docs != crowd+1 {
		t.Fatalf("the store counts %d, roster has %d, want %d", counted(f, t, "many"), docs, crowd+1)
	}
}
