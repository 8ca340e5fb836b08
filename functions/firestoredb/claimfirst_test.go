package firestoredb_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

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
	f.twoNewUsersArrive(t, func() { secondClaimed <- attempts.Load() }, func() {
		select {
		case began := <-secondClaimed:
			if began != 1 {
				t.Errorf("the second join claimed after %d transaction attempts had begun; want 1, the first join's", began)
			}
		case <-time.After(30 * time.Second):
			t.Error("the second join did not claim while the first was held in its transaction")
		}
	})
}

// The same arrival, seen from the second join's transaction: it is begun
// while the claim is judged, so that its round trip overlaps the
// judgement, and its attempt waits for the judgement before it reads.
// Forced: the second join's judgement is held right after its claim until
// its transaction's attempt is waiting. Begun only after the judgement,
// the transaction would never get there while the judgement is held.
func TestJoin_ATransactionBeginsWhileItsClaimIsJudged(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "crowd", "host", "s")
	waiting := make(chan struct{})
	var once sync.Once
	f.store.SetAttemptWaits(func() { once.Do(func() { close(waiting) }) })
	begun := make(chan bool, 1)
	f.twoNewUsersArrive(t, func() {
		select {
		case <-waiting:
			begun <- true
		case <-time.After(20 * time.Second):
			begun <- false
		}
	}, func() {
		if !<-begun {
			t.Error("the second join's transaction had not begun while its claim was held before its judgement; want its attempt waiting for the judgement")
		}
	})
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
	f.mustSettleAs(t, "one-left", "[ann host]")
}

// twoNewUsersArrive has ann join "crowd" through f.store and, while her
// join is held right after her claim (inside her transaction), bob: a
// crowd arriving. onSecond runs when bob has claimed, whileHeld while ann
// is still held; then both must be admitted, leaving no claim behind.
func (f *fixture) twoNewUsersArrive(t *testing.T, onSecond, whileHeld func()) {
	t.Helper()
	firstHeld, release := holdTheFirstClaim(f.store, onSecond)
	ann := joinAsync(f.store, "crowd", "ann")
	<-firstHeld
	bob := joinAsync(f.store, "crowd", "bob")
	whileHeld()
	close(release)
	mustAllJoin(t, ann, bob)
	f.mustSettleAs(t, "crowd", "[ann bob host]")
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

// mustAllJoin waits for every join started by joinAsync and fails the
// test unless each succeeded.
func mustAllJoin(t *testing.T, joins ...<-chan error) {
	t.Helper()
	for _, join := range joins {
		if err := <-join; err != nil {
			t.Fatalf("join: %v", err)
		}
	}
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

// A claim outlives its room's lifetime: while its join contests (outside
// any transaction), the room is torn down and made again, and the new
// lifetime fills to the cap. The join's next transaction reads the new
// lifetime and judges its claim again. Read at the claim's own time, that
// snapshot would predate the new lifetime and count none of its entries,
// admitting one over the cap; so a claim made for another lifetime is
// adopted again and read from then on.
func TestJoin_AClaimFromAnEarlierLifetimeIsJudgedAfresh(t *testing.T) {
	f := MustOpenStore(t)
	f.setCap(t, "anew", 2)
	f.mustJoin(t, "anew", "host", "s")
	room := f.client.Collection(firestoredb.RoomsCollection).Doc("anew")
	claims := room.Collection(firestoredb.ClaimsCollection)
	// A claim behind ann's (later in order) leaves her waiting, not refused.
	later := f.clock.Now().Add(time.Hour)
	if _, err := claims.Doc("ghost~s").Set(f.ctx, map[string]any{"roomId": "anew", "order": fmt.Sprintf("%020d~ghost~s", later.UnixNano()),
		"claimedAt": later, "expireAt": later.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var swapped atomic.Bool
	f.store.SetClaimWaits(func() {
		if swapped.Swap(true) {
			return
		}
		// The room torn down and made again by two other users, who fill
		// the new lifetime to the cap (raised while they join, so that
		// ann's claim does not keep them out).
		for _, doc := range []*firestore.DocumentRef{room.Collection(firestoredb.ParticipantsCollection).Doc("host"), claims.Doc("ghost~s"), room} {
			if _, err := doc.Delete(f.ctx); err != nil {
				t.Error(err)
			}
		}
		f.clock.Advance(time.Second)
		f.setCap(t, "anew", 3)
		for _, uid := range []string{"xan", "yve"} {
			if _, err := f.other.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "anew", ParticipantID: uid, SessionID: "s"}}); err != nil {
				t.Errorf("join of %s into the new lifetime: %v", uid, err)
			}
		}
		f.setCap(t, "anew", 2)
	})
	_, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "anew", ParticipantID: "ann", SessionID: "s"}})
	if !swapped.Load() {
		t.Fatal("ann's claim never waited: the lifetime was not swapped under it")
	}
	if presence.ErrorCode(err) != presence.ERoomFull {
		t.Fatalf("ann into a new lifetime already at its cap: %v; want room_full", err)
	}
	f.mustSettleAs(t, "anew", "[xan yve]")
}
