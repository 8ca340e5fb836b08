package firestoredb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// A teardown raced by a join (docs/races.md, "A new lifetime before the
// purge"). The teardown commits; before the purge comes, Carol's join
// creates the room's next lifetime, and Alice comes back and posts a read
// position lower than the one her earlier visit left. The new lifetime's
// revision counts from 0 and rises by one per visible change, before and
// after the purge; Alice's position is this lifetime's, and it survives
// the purge.
func TestLifetime_ANewLifetimeStartsCleanBeforeThePurge(t *testing.T) {
	f := MustOpenStore(t)
	alice := f.mustJoin(t, "lt", "alice", "tab")
	bob := f.mustJoin(t, "lt", "bob", "tab")
	if _, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "lt", ParticipantID: "alice", LastReadSeq: 9}); err != nil {
		t.Fatal(err)
	}
	for _, j := range []presence.JoinResult{alice, bob} {
		if _, err := f.store.Leave(f.ctx, ref("lt", j.Session.ParticipantID, "tab", j.Session.Generation)); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(presence.DefaultSettings().EmptyRoomGrace)
	due, err := f.store.DueRooms(f.ctx, f.clock.Now(), 10, false)
	if err != nil || len(due.Items) != 1 {
		t.Fatalf("due rooms %v, %v", due.Items, err)
	}
	if res, err := f.store.TearDown(f.ctx, presence.CandidateOf(due.Items[0]), true); err != nil || res.Verdict != presence.TearDown {
		t.Fatalf("teardown: %v %v", res.Verdict, err)
	}

	f.clock.Advance(time.Second)
	carol := f.mustJoin(t, "lt", "carol", "tab")
	if carol.Revision != 1 {
		t.Fatalf("the new lifetime's first join reports revision %d, want 1", carol.Revision)
	}
	f.mustJoin(t, "lt", "alice", "tab")
	pos, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "lt", ParticipantID: "alice", LastReadSeq: 3})
	if err != nil || pos != 3 {
		t.Fatalf("alice's read position in the new lifetime: %d, %v; want 3", pos, err)
	}

	if n, err := f.store.PurgeClosed(f.ctx, 10); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if _, r := f.liveIDs(t, "lt", "carol"); r.Revision != 2 {
		t.Fatalf("revision after the purge %d, want 2 (carol and alice joined this lifetime)", r.Revision)
	}
	snap, err := f.client.Doc("rooms/lt/receipts/alice").Get(f.ctx)
	if err != nil {
		t.Fatalf("alice's receipt of the new lifetime did not survive the purge: %v", err)
	}
	if got := snap.Data()["lastReadSeq"]; got != int64(3) {
		t.Fatalf("alice's stored position %v, want 3", got)
	}
}

// Revision shards outlive no refresh of their room (docs/races.md, "A
// revision shard that expires before its room"). Carol's shard is last
// written when she leaves on day 0. Two days later the room empties and is
// revived, which moves the room's expireAt a whole horizon ahead; heartbeats
// refresh room and shards only within a day of that. Every shard must live
// until then, or TTL takes Carol's changes out of the revision.
func TestLifetime_RevisionShardsOutliveTheirRoomsRefresh(t *testing.T) {
	f := MustOpenStore(t)
	carol := f.mustJoin(t, "ttl", "carol", "tab")
	dave := f.mustJoin(t, "ttl", "dave", "tab")
	if _, err := f.store.Leave(f.ctx, ref("ttl", "carol", "tab", carol.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(48 * time.Hour)
	if _, err := f.store.Leave(f.ctx, ref("ttl", "dave", "tab", dave.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	f.mustJoin(t, "ttl", "erin", "tab") // revives the room in its grace

	room := f.readRoom(t, "ttl")
	if room["state"] != string(presence.StateActive) {
		t.Fatalf("room %v, want it revived", room)
	}
	roomExpireAt, _ := room[firestoredb.FieldExpireAt].(time.Time)
	shards, err := f.client.Collection("rooms/ttl/" + firestoredb.RevisionsCollection).Documents(f.ctx).GetAll()
	if err != nil || len(shards) < 3 {
		t.Fatalf("%d shards, %v; want one per user at least (carol, dave and erin on different shards)", len(shards), err)
	}
	for _, shard := range shards {
		if strings.HasPrefix(shard.Ref.ID, firestoredb.DepartureMarkPrefix) {
			continue // a departure's mark for the repair: it counts nothing
		}
		exp, _ := shard.Data()[firestoredb.FieldExpireAt].(time.Time)
		if !exp.After(roomExpireAt.Add(-presence.RefreshWindow)) {
			t.Errorf("shard %s expires at %v, before heartbeats refresh a room expiring at %v", shard.Ref.ID, exp, roomExpireAt)
		}
	}
}

// A transaction that runs out of time says how many attempts it made and
// for how long, so that a timed-out request tells contention (many
// attempts) from a wait on one (docs/runbook.md, "Failing requests").
func TestTransact_ATimedOutRequestNamesItsAttempts(t *testing.T) {
	f := MustOpenStore(t)
	// The request ends inside the first attempt, after the transaction
	// began, whatever the machine's speed: a deadline would race the
	// transaction's start on a loaded machine.
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	f.store.SetBeforeJoinReads(cancel)
	_, err := f.store.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "slow", ParticipantID: "alice", SessionID: "tab"}})
	wantCode(t, err, presence.EUnavailable)
	if !strings.Contains(err.Error(), "1 attempts in") {
		t.Fatalf("error %q does not name its attempts", err)
	}
}
