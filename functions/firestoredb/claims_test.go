package firestoredb_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// setCap gives room a policy with a participant cap.
func (f *fixture) setCap(tb testing.TB, room string, limit int) {
	tb.Helper()
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc(room).Set(f.ctx, map[string]any{"maxParticipants": limit}); err != nil {
		tb.Fatal(err)
	}
}

// claimsLeft lists the ids of room's claims on places, sorted.
func (f *fixture) claimsLeft(tb testing.TB, room string) []string {
	return f.docIDs(tb, room, firestoredb.ClaimsCollection)
}

// mustSettleAs fails tb unless room's roster is exactly want (ids, sorted)
// and no claim on a place is left in it.
func (f *fixture) mustSettleAs(tb testing.TB, room, want string) {
	tb.Helper()
	if got := f.rosterIDs(tb, room); fmt.Sprint(got) != want {
		tb.Fatalf("roster %v, want %s", got, want)
	}
	if left := f.claimsLeft(tb, room); len(left) != 0 {
		tb.Fatalf("claims left: %v", left)
	}
}

// rosterIDs lists the ids of room's roster entries, sorted.
func (f *fixture) rosterIDs(tb testing.TB, room string) []string {
	return f.docIDs(tb, room, firestoredb.ParticipantsCollection)
}

func (f *fixture) docIDs(tb testing.TB, room, collection string) []string {
	tb.Helper()
	snaps, err := f.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(collection).Documents(f.ctx).GetAll()
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for _, s := range snaps {
		ids = append(ids, s.Ref.ID)
	}
	sort.Strings(ids)
	return ids
}

// A crowd bigger than the places left, every one of whose joins reads the
// roster after every claim is written and before any entry commits: the
// lockstep in which joins that trust a size read beside their transaction
// all commit (K − P over the cap). With claims, exactly the places left are
// taken and the rest are refused. Which claims take them depends on when
// each was written: a claim's snapshot is read at its claim's time
// (readat.go), so the claims written first may find the places free and
// be admitted at once, and those behind contest in the claims' order.
// Both stores read so (withTokens), each on a client of its own.
func TestJoin_ACrowdBiggerThanThePlacesLeftFillsThemExactly(t *testing.T) {
	f := MustOpenStore(t)
	admitted, _ := f.lockstepForTheLastPlaces(t)
	if len(admitted) != 2 {
		t.Fatalf("admitted %v, want exactly the 2 places left", admitted)
	}
	if got, want := f.rosterIDs(t, "last"), append(admitted, "host"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("roster %v, want %v", got, want)
	}
}

// The same lockstep through stores that read a claim's snapshot in a
// read-only transaction begun after the claim, as a store without the
// generated client does (readat.go): every snapshot then sees every
// claim, none fits, and the places go to the claims first in order.
func TestJoin_ACrowdBiggerThanThePlacesLeftFillsThemExactlyWithoutReadTimes(t *testing.T) {
	f := MustOpenStore(t)
	f.store.ReadAggregationsWith(nil)
	f.other.ReadAggregationsWith(nil)
	admitted, waited := f.lockstepForTheLastPlaces(t)
	// Every claim was made at the clock's one instant, so the order is the
	// claims' ids: c1 and c2 come first.
	if fmt.Sprint(admitted) != "[c1 c2]" {
		t.Fatalf("admitted %v, want [c1 c2], the first two claims", admitted)
	}
	if got := f.rosterIDs(t, "last"); fmt.Sprint(got) != "[c1 c2 host]" {
		t.Fatalf("roster %v, want [c1 c2 host]", got)
	}
	if waited == 0 {
		t.Fatal("no claim waited: the places were not contested, so the race was not run")
	}
}

// lockstepForTheLastPlaces sends four users at once, through the fixture's
// two stores, into a room of cap 3 that holds one, none taking its
// snapshot before all four claims are written. It fails the test on any
// outcome but admission or room_full, or on a claim left behind, and
// returns the admitted users, sorted, and how often a claim waited.
func (f *fixture) lockstepForTheLastPlaces(t *testing.T) ([]string, int32) {
	t.Helper()
	f.setCap(t, "last", 3)
	f.mustJoin(t, "last", "host", "s")
	crowd := []string{"c1", "c2", "c3", "c4"} // 4 joins for 2 places
	arrive := rendezvous(len(crowd))
	var claimed, waited atomic.Int32
	for _, s := range []*firestoredb.Store{f.store, f.other} {
		s.SetAfterClaim(func() {
			if claimed.Add(1) <= int32(len(crowd)) {
				arrive() // no snapshot before every claim is written
			}
		})
		s.SetClaimWaits(func() { waited.Add(1) })
	}
	errs := make([]error, len(crowd))
	var done sync.WaitGroup
	for i, uid := range crowd {
		done.Add(1)
		go func() {
			defer done.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			store := []*firestoredb.Store{f.store, f.other}[i%2] // two clients, as two instances
			_, errs[i] = store.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "last", ParticipantID: uid, SessionID: "s"}})
		}()
	}
	done.Wait()
	var admitted []string
	for i, err := range errs {
		switch {
		case err == nil:
			admitted = append(admitted, crowd[i])
		case presence.ErrorCode(err) != presence.ERoomFull:
			t.Fatalf("join of %s: %v", crowd[i], err)
		}
	}
	if left := f.claimsLeft(t, "last"); len(left) != 0 {
		t.Fatalf("claims left behind: %v", left)
	}
	return admitted, waited.Load()
}

// A claim counts against the cap until its join commits or gives up: a
// join behind a claim that fills the room is refused. Once the claim is
// older than any join lives, the next contest deletes it as abandoned and
// the join is admitted.
func TestJoin_AnAbandonedClaimIsClearedByTheNextContest(t *testing.T) {
	f := MustOpenStore(t)
	f.setCap(t, "held", 2)
	f.mustJoin(t, "held", "host", "s")
	at := f.clock.Now()
	id := "ghost~s"
	claim := map[string]any{"roomId": "held", "order": fmt.Sprintf("%020d~%s", at.UnixNano(), id), "claimedAt": at, "expireAt": at.Add(time.Hour)}
	if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc("held").Collection(firestoredb.ClaimsCollection).Doc(id).Set(f.ctx, claim); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	f.mustRefuseWithoutWrites(t, f.store, "held", "late", "s", presence.ERoomFull)

	f.clock.Advance(2 * time.Minute)
	f.mustJoin(t, "held", "late", "s")
	f.mustSettleAs(t, "held", "[host late]")
}

// A claim deleted under its join, between its write and the transaction
// that would commit the entry, was perhaps never seen by a snapshot that
// judged another join: the join finds it gone and claims again.
func TestJoin_AClaimDeletedUnderItsJoinIsMadeAgain(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "again", "host", "s")
	var claims atomic.Int32
	f.store.SetAfterClaim(func() {
		if claims.Add(1) == 1 {
			if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc("again").Collection(firestoredb.ClaimsCollection).Doc("ann~s").Delete(f.ctx); err != nil {
				t.Error(err)
			}
		}
	})
	f.mustJoin(t, "again", "ann", "s")
	if claims.Load() != 2 {
		t.Fatalf("%d claims written, want 2: the deleted one and the one made again", claims.Load())
	}
	f.mustSettleAs(t, "again", "[ann host]")
}

// Two joins of one session at once (a client's retry while the first is
// in flight), the second begun once the first has claimed, and both held
// after their claims until both have claimed: the second finds the first's
// claim and adopts it, unchanged. Had it rewritten the claim, the first's
// commit, conditioned on the update time it wrote, would fail whenever
// the first commits first, and each twin would in turn undo the other's
// claim, up to the join's limit of attempts.
func TestJoin_TwinJoinsOfOneSessionShareTheirClaim(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "twins", "host", "s")
	claimRef := f.client.Collection(firestoredb.RoomsCollection).Doc("twins").Collection(firestoredb.ClaimsCollection).Doc("ann~tab")
	firstClaimed, secondClaimed := make(chan struct{}), make(chan struct{})
	var asWritten, asAdopted time.Time // the claim's update time after each
	claimTime := func() time.Time {
		snap, err := claimRef.Get(f.ctx)
		if err != nil {
			t.Error(err)
			return time.Time{}
		}
		return snap.UpdateTime
	}
	var claims atomic.Int32
	f.store.SetAfterClaim(func() {
		if claims.Add(1) == 1 {
			asWritten = claimTime()
			close(firstClaimed)
			<-secondClaimed
		}
	})
	f.other.SetAfterClaim(func() {
		if claims.Add(1) == 2 {
			asAdopted = claimTime()
			close(secondClaimed)
		}
	})
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "twins", ParticipantID: "ann", SessionID: "tab"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var second sync.WaitGroup
	var secondErr error
	second.Add(1)
	go func() {
		defer second.Done()
		<-firstClaimed
		f.clock.Advance(time.Millisecond) // a retry comes later: its claim would differ
		_, secondErr = f.other.Join(ctx, req)
	}()
	_, firstErr := f.store.Join(ctx, req)
	second.Wait()
	if firstErr != nil || secondErr != nil {
		t.Fatalf("joins: %v, %v", firstErr, secondErr)
	}
	if asWritten.IsZero() || !asAdopted.Equal(asWritten) {
		t.Fatalf("the claim was at %v after the first join's write and at %v after the second's: rewritten, not adopted", asWritten, asAdopted)
	}
	f.mustSettleAs(t, "twins", "[ann host]")
}

// A claim deleted while its join contests: the look at the contest lists
// the first claims in order, as many as the places left, and the deleted
// claim sorts among them without being there, so it is gone, not behind
// them, and its join claims again at once. Four claims behind it (later
// orders) make it wait, and while it waits the first time its own claim
// and one of those go: three are left for two places, so the look lists
// two, and not every claim. The second time it waits, two more go, and it
// fits with the last. Had the look taken the unlisted claim for one still
// standing, the join would have waited once more on a claim that was gone
// before claiming again.
func TestJoin_AClaimDeletedDuringItsContestIsMadeAgain(t *testing.T) {
	f := MustOpenStore(t)
	f.setCap(t, "contest", 3)
	f.mustJoin(t, "contest", "host", "s")
	claims := f.client.Collection(firestoredb.RoomsCollection).Doc("contest").Collection(firestoredb.ClaimsCollection)
	behind := f.clock.Now().Add(time.Second) // after the contestant's claim, far from abandoned
	for _, id := range []string{"g1~s", "g2~s", "g3~s", "g4~s"} {
		ghost := map[string]any{"roomId": "contest", "order": fmt.Sprintf("%020d~%s", behind.UnixNano(), id), "claimedAt": behind, "expireAt": behind.Add(time.Hour)}
		if _, err := claims.Doc(id).Set(f.ctx, ghost); err != nil {
			t.Fatal(err)
		}
	}
	deleteClaims := func(ids ...string) {
		for _, id := range ids {
			if _, err := claims.Doc(id).Delete(f.ctx); err != nil {
				t.Error(err)
			}
		}
	}
	var written, waits, waitsAtSecondClaim atomic.Int32
	f.store.SetAfterClaim(func() {
		if written.Add(1) == 2 {
			waitsAtSecondClaim.Store(waits.Load())
		}
	})
	f.store.SetClaimWaits(func() {
		switch waits.Add(1) {
		case 1:
			deleteClaims("ann~s", "g1~s")
		case 2:
			deleteClaims("g2~s", "g3~s")
		}
	})
	f.mustJoin(t, "contest", "ann", "s")
	if written.Load() != 2 {
		t.Fatalf("%d claims written, want 2: the one deleted in the contest and the one made again", written.Load())
	}
	if got := waitsAtSecondClaim.Load(); got != 1 {
		t.Fatalf("claimed again after %d waits, want 1: the first look after the deletion should find the claim gone", got)
	}
	if got := f.rosterIDs(t, "contest"); fmt.Sprint(got) != "[ann host]" {
		t.Fatalf("roster %v, want [ann host]", got)
	}
	if left := f.claimsLeft(t, "contest"); fmt.Sprint(left) != "[g4~s]" {
		t.Fatalf("claims left: %v, want [g4~s]", left)
	}
}

// A join that adopts a claim its session's twin wrote earlier reads its
// snapshot no earlier than its own request: the twin's claim may predate
// changes the joining client has already seen. Here the twin died after
// claiming (its claim is left), carol changes her state twice, and then
// the session joins: its reply must count carol's changes and its own.
// Read at the claim's update time, it answered two below.
func TestJoin_AnAdoptedClaimIsJudgedNoEarlierThanItsRequest(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "adopt", "host", "s")
	carol := f.mustJoin(t, "adopt", "carol", "s")
	claimedAt := f.clock.Now()
	if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc("adopt").Collection(firestoredb.ClaimsCollection).Doc("ann~tab").
		Create(f.ctx, map[string]any{"roomId": "adopt", "order": fmt.Sprintf("%020d~ann~tab", claimedAt.UnixNano()),
			"claimedAt": claimedAt, "expireAt": claimedAt.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"x", "y"} {
		if _, err := f.store.SetState(f.ctx, presence.StateRequest{SessionRef: ref("adopt", "carol", "s", carol.Session.Generation), State: presence.State{"s": v}}); err != nil {
			t.Fatal(err)
		}
	}
	before := mustRevision(t, f, "adopt")
	res := f.mustJoin(t, "adopt", "ann", "tab")
	if res.Revision <= before {
		t.Fatalf("the join answered revision %d; the room was at %d before it was asked", res.Revision, before)
	}
	f.mustSettleAs(t, "adopt", "[ann carol host]")
}
