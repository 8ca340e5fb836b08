package firestoredb_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/roomlease/roomlease/functions/presence"
)

// leadAndFollow joins leader into room through f.store, and, while the
// leader leads the store's joins into the room looked at (roomlead.go),
// before it plans, starts follower's join through the same store and lets
// the leader go on only once the follower waits for it: the interleaving
// forced, not hoped for. It returns both joins' errors and the store's
// document lookups over both.
func leadAndFollow(t *testing.T, f *fixture, room, leader, follower string) (leaderErr, followerErr error, lookups int64) {
	t.Helper()
	key := func(uid string) presence.SessionKey {
		return presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: "t1"}
	}
	following := make(chan struct{})
	var once sync.Once
	f.store.SetFollowsLead(func() { close(following) })
	var wg sync.WaitGroup
	f.store.SetLeads(func() {
		once.Do(func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, followerErr = f.store.Join(f.ctx, presence.JoinRequest{SessionKey: key(follower)})
			}()
			<-following
		})
	})
	before := f.store.DocumentLookups()
	_, leaderErr = f.store.Join(f.ctx, presence.JoinRequest{SessionKey: key(leader)})
	wg.Wait()
	f.store.SetLeads(nil)
	f.store.SetFollowsLead(nil)
	return leaderErr, followerErr, f.store.DocumentLookups() - before
}

// fillRooms puts uid on the roster of presence's per-user cap of rooms,
// none of them room.
func fillRooms(t *testing.T, f *fixture, uid string) {
	t.Helper()
	for i := range presence.DefaultSettings().MaxRoomsPerUser {
		f.mustJoin(t, fmt.Sprintf("full-%s-%02d", uid, i), uid, "s")
	}
}

// Two joins of one instance into a missing room: the one that leads
// creates the room in its own transaction (createjoin.go); the one that
// follows waits and goes to its transaction without a read of its own.
// One room, made once, with both users in it.
func TestJoin_OneJoinOfAnInstancePlansTheRoomsStep(t *testing.T) {
	f := MustOpenStore(t)
	leaderErr, followerErr, lookups := leadAndFollow(t, f, "led", "alice", "bob")
	if leaderErr != nil || followerErr != nil {
		t.Fatalf("joins: alice %v, bob %v", leaderErr, followerErr)
	}
	f.wantCreatedOnce(t, "led", "alice", "bob")
	// alice: the look, her transaction's read and, with bob following, a
	// look again before her create (createjoin.go); bob: his look and his
	// transaction's read. A follower that planned for itself would read
	// once more.
	if lookups != 5 {
		t.Fatalf("%d document lookups for the two joins, want 5 (3 for the leader, 2 for the follower)", lookups)
	}
}

// The leader is refused at the rooms cap, so it makes no step: the
// follower leads anew and creates the room. The refused join wrote
// nothing, not even the room.
func TestJoin_AFollowerOfARefusedLeaderPlansForItself(t *testing.T) {
	f := MustOpenStore(t)
	fillRooms(t, f, "mallory")
	leaderErr, followerErr, _ := leadAndFollow(t, f, "led", "mallory", "bob")
	wantCode(t, leaderErr, presence.ETooManyRooms)
	if followerErr != nil {
		t.Fatalf("bob's join: %v", followerErr)
	}
	ids, _ := f.liveIDs(t, "led", "bob")
	if len(ids) != 1 || ids[0] != "bob" {
		t.Fatalf("roster %v, want bob alone", ids)
	}
	if rooms := f.userRooms(t, "mallory"); len(rooms) != presence.DefaultSettings().MaxRoomsPerUser || rooms["led"] != nil {
		t.Fatalf("mallory's rooms %v: the refused join wrote to them", rooms)
	}
}

// The follower is at the rooms cap: its leader creates the room, and the
// follower, which planned nothing, is refused in its transaction, writing
// nothing. The room is the leader's, made for a join that was allowed.
func TestJoin_AFollowerAtACapIsRefusedInItsTransaction(t *testing.T) {
	f := MustOpenStore(t)
	fillRooms(t, f, "mallory")
	leaderErr, followerErr, _ := leadAndFollow(t, f, "led", "alice", "mallory")
	if leaderErr != nil {
		t.Fatalf("alice's join: %v", leaderErr)
	}
	wantCode(t, followerErr, presence.ETooManyRooms)
	ids, r := f.liveIDs(t, "led", "alice")
	if len(ids) != 1 || ids[0] != "alice" || r.Revision != 1 {
		t.Fatalf("roster %v at revision %d, want alice alone at 1", ids, r.Revision)
	}
	if rooms := f.userRooms(t, "mallory"); len(rooms) != presence.DefaultSettings().MaxRoomsPerUser || rooms["led"] != nil {
		t.Fatalf("mallory's rooms %v: the refused join wrote to them", rooms)
	}
}
