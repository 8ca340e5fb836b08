package firestoredb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// Two new users arriving at once through one instance. The first join's
// claim is judged in its transaction, which holds its read locks meanwhile.
// The second arrives while that judgement is under way (a crowd), so it
// reads outside any transaction, claims, and has its claim judged before it
// begins its own transaction: it holds no lock while it waits. Forced: the
// first join is held right after its claim is written, inside its
// transaction, until the second has claimed. Judged in its transaction as
// before, the second would claim only after its own attempt began (the
// second attempt of the two).
func TestJoin_ANewUserArrivingInACrowdIsJudgedBeforeItsTransaction(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "crowd", "host", "s")
	var attempts atomic.Int32
	f.store.SetBeforeJoinReads(func() { attempts.Add(1) })
	secondClaimed := make(chan int32, 1)
	firstHeld, release := holdTheFirstClaim(f.store, func() { secondClaimed <- attempts.Load() })
	ann := joinAsync(f.store, "crowd", "ann")
	<-firstHeld
	bob := joinAsync(f.store, "crowd", "bob")
	select {
	case began := <-secondClaimed:
		if began != 1 {
			t.Errorf("the second join claimed after %d transaction attempts had begun; want 1, the first join's", began)
		}
	case <-time.After(30 * time.Second):
		t.Error("the second join did not claim while the first was held in its transaction")
	}
	close(release)
	for _, err := range []error{<-ann, <-bob} {
		if err != nil {
			t.Fatalf("join: %v", err)
		}
	}
	if got := f.rosterIDs(t, "crowd"); fmt.Sprint(got) != "[ann bob host]" {
		t.Fatalf("roster %v, want [ann bob host]", got)
	}
	if left := f.claimsLeft(t, "crowd"); len(left) != 0 {
		t.Fatalf("claims left: %v", left)
	}
}

// The same arrival into a room whose cap leaves one place: the second
// join, judged before its transaction, is judged with the first's claim,
// which stands until the first commits, so it cannot take the place too.
// Judged before its claim was written, it would have been admitted.
func TestJoin_ANewUserJudgedBeforeItsTransactionCountsTheClaimsAhead(t *testing.T) {
	f := MustOpenStore(t)
	f.setCap(t, "one-left", 2)
	f.mustJoin(t, "one-left", "host", "s")
	var release chan struct{}
	firstHeld, release := holdTheFirstClaim(f.store, func() {
		close(release) // both claims stand: only now is either judged
	})
	ann := joinAsync(f.store, "one-left", "ann")
	<-firstHeld
	bob := joinAsync(f.store, "one-left", "bob")
	// Ann's claim was judged at its own time, before Bob's was written:
	// the place was free. Bob's, judged at his, counts Ann's ahead of it.
	if err := <-ann; err != nil {
		t.Fatalf("ann, first to claim: %v; want admitted", err)
	}
	if err := <-bob; presence.ErrorCode(err) != presence.ERoomFull {
		t.Fatalf("bob, behind ann's claim for the one place left: %v; want room_full", err)
	}
	if got := f.rosterIDs(t, "one-left"); fmt.Sprint(got) != "[ann host]" {
		t.Fatalf("roster %v, want [ann host]", got)
	}
	if left := f.claimsLeft(t, "one-left"); len(left) != 0 {
		t.Fatalf("claims left: %v", left)
	}
}

// holdTheFirstClaim holds the first join that claims a place through s
// right after its claim is written, until release is closed; onSecond
// runs when the second join has claimed.
func holdTheFirstClaim(s *firestoredb.Store, onSecond func()) (firstHeld, release chan struct{}) {
	firstHeld, release = make(chan struct{}), make(chan struct{})
	var claims atomic.Int32
	s.SetAfterClaim(func() {
		switch claims.Add(1) {
		case 1:
			close(firstHeld)
			<-release
		case 2:
			onSecond()
		}
	})
	return firstHeld, release
}

// joinAsync joins uid into room through s, with a session "s", and
// delivers the outcome.
func joinAsync(s *firestoredb.Store, room, uid string) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := s.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: "s"}})
		done <- err
	}()
	return done
}
