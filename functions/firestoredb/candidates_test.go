package firestoredb_test

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// observeCandidate empties room, has an observing sweeper check it, and
// returns the candidate it recorded.
func observeCandidate(t *testing.T, f *fixture, room string, enforce bool) presence.Candidate {
	t.Helper()
	j := f.mustJoin(t, room, "alice", "tab")
	if res, err := f.store.Leave(f.ctx, ref(room, "alice", "tab", j.Session.Generation)); err != nil || !res.Removed {
		t.Fatalf("leave: %v %v", res.Removed, err)
	}
	f.clock.Advance(presence.DefaultSettings().EmptyRoomGrace)
	// Rooms checked before are marked reported (observe) or gone (enforce).
	listing, err := f.store.DueRooms(f.ctx, f.clock.Now(), 10, true)
	if err != nil || len(listing.Items) != 1 || listing.Items[0].ID != room {
		t.Fatalf("due rooms %v, %v", listing.Items, err)
	}
	seen := listing.Items[0]
	res, err := f.store.TearDown(f.ctx, presence.CandidateOf(seen), enforce)
	if err != nil || res.Verdict != presence.TearDown || !res.Recorded {
		t.Fatalf("teardown: %+v, %v", res, err)
	}
	c := presence.DefaultSettings().NewCandidate(f.clock.Now(), *res.Room, 0, enforce)
	stored, err := f.store.Candidate(f.ctx, c)
	if err != nil || stored == nil {
		t.Fatalf("candidate record %+v, %v", stored, err)
	}
	return *stored
}

func (f *fixture) classify(t *testing.T, store *firestoredb.Store, c presence.Candidate) (presence.CandidateClass, bool) {
	t.Helper()
	class, stored, err := store.ClassifyCandidate(f.ctx, c)
	if err != nil {
		t.Fatalf("classify: %v", err)
	}
	return class, stored
}

// An observing check records its verdict with its mark, once, holding no
// uid; the record waits for its window, then is classified once.
func TestCandidates_ObserveRecordsOnceAndClassifiesAfterTheWindow(t *testing.T) {
	f := MustOpenStore(t)
	c := observeCandidate(t, f, "c1", false)
	if c.Enforced || c.LiveLeases != 0 || c.Generation != 1 || !c.CheckedAt.Equal(f.clock.Now()) || c.Class != "" {
		t.Fatalf("candidate %+v", c)
	}
	again, err := f.store.TearDown(f.ctx, presence.TeardownCandidate{RoomID: "c1", Generation: c.Generation, CreatedAt: c.CreatedAt}, false)
	if err != nil || again.Verdict != presence.TearDown || again.Recorded {
		t.Fatalf("second check: %+v, %v; want no second record", again, err)
	}
	snaps, err := f.client.Collection(firestoredb.CandidatesCollection).Documents(f.ctx).GetAll()
	if err != nil || len(snaps) != 1 {
		t.Fatalf("%d candidate records, %v", len(snaps), err)
	}
	var fields []string
	for k := range snaps[0].Data() {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	for _, k := range fields {
		if v, ok := snaps[0].Data()[k].(string); ok && v == "alice" {
			t.Fatalf("the record holds a uid in %s: %v", k, fields)
		}
	}

	pending := func() int {
		l, err := f.store.PendingCandidates(f.ctx, f.clock.Now(), 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Items)
	}
	f.clock.Advance(presence.DefaultSettings().ReconnectWindow - time.Millisecond)
	if n := pending(); n != 0 {
		t.Fatalf("%d pending before the window ended", n)
	}
	f.clock.Advance(time.Millisecond)
	if n := pending(); n != 1 {
		t.Fatalf("%d pending once the window ended, want 1", n)
	}
	if class, stored := f.classify(t, f.store, c); class != presence.Confirmed || !stored {
		t.Fatalf("class %q stored %v, want confirmed", class, stored)
	}
	if _, stored := f.classify(t, f.store, c); stored {
		t.Fatal("classified twice")
	}
	if n := pending(); n != 0 {
		t.Fatalf("%d pending after the classification", n)
	}
	if got, _ := f.store.Candidate(f.ctx, c); got == nil || got.Class != presence.Confirmed || got.ClassifiedAt.IsZero() {
		t.Fatalf("stored %+v", got)
	}
}

// A participant back within the window after the candidate (a revive, in
// observe mode) is a reconnect; one back after it is not.
func TestCandidates_ReconnectWithinTheWindow(t *testing.T) {
	f := MustOpenStore(t)
	window := presence.DefaultSettings().ReconnectWindow
	back := observeCandidate(t, f, "back", false)
	late := observeCandidate(t, f, "late", false)
	f.clock.Advance(window / 3)
	f.mustJoin(t, "back", "alice", "tab")
	f.clock.Advance(window)
	f.mustJoin(t, "late", "alice", "tab")
	if class, _ := f.classify(t, f.store, back); class != presence.ReconnectAfterCandidate {
		t.Fatalf("back within the window: %q", class)
	}
	if class, _ := f.classify(t, f.store, late); class != presence.Confirmed {
		t.Fatalf("back after the window: %q", class)
	}
}

// In the enforced slice the room is gone: a join within the window makes a
// new lifetime, and counts as a reconnect.
func TestCandidates_EnforcedRoomRecreatedWithinTheWindow(t *testing.T) {
	f := MustOpenStore(t)
	c := observeCandidate(t, f, "e1", true)
	gone := observeCandidate(t, f, "e2", true)
	if !c.Enforced {
		t.Fatalf("candidate %+v, want enforced", c)
	}
	f.clock.Advance(time.Second)
	f.mustJoin(t, "e1", "alice", "tab")
	f.clock.Advance(presence.DefaultSettings().ReconnectWindow)
	if class, _ := f.classify(t, f.store, c); class != presence.ReconnectAfterCandidate {
		t.Fatalf("recreated within the window: %q", class)
	}
	if class, _ := f.classify(t, f.store, gone); class != presence.Confirmed {
		t.Fatalf("never recreated: %q", class)
	}
}

// A session the check did not see, live at the candidate's time, is a
// violation (injected here, since the store's own paths never make one).
func TestCandidates_ALiveLeaseTheCheckMissedIsAViolation(t *testing.T) {
	f := MustOpenStore(t)
	c := observeCandidate(t, f, "v1", false)
	_, err := f.client.Collection(firestoredb.RoomsCollection).Doc("v1").Collection(firestoredb.ParticipantsCollection).Doc("ghost").
		Collection(firestoredb.SessionsCollection).Doc("tab").Set(f.ctx, map[string]any{
		"roomId": "v1", "participantId": "ghost", "sessionId": "tab", "leaseShard": firestoredb.LeaseShardOf("v1", "ghost", "tab"),
		"generation": c.CheckedAt.Add(-time.Minute).UnixMicro(), "leaseExpiresAt": c.CheckedAt.Add(5 * time.Second),
		"expireAt": c.CheckedAt.Add(time.Hour), "createdAt": c.CheckedAt.Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(presence.DefaultSettings().ReconnectWindow)
	if class, _ := f.classify(t, f.store, c); class != presence.Violation {
		t.Fatalf("class %q, want violation", class)
	}
}

// docs/races.md, "two sweepers classify one candidate": both have read the
// evidence and decided before either commits; the one that commits second
// finds the candidate classified and does not count it. The hooks order the
// two so that their transactions do not overlap (see
// TestTeardown_AJoinDuringTheTeardownStartsANewLifetime for why).
func TestCandidates_TwoSweepersClassifyingAtOnceCountOnce(t *testing.T) {
	f := MustOpenStore(t)
	c := observeCandidate(t, f, "twice", false)
	f.clock.Advance(presence.DefaultSettings().ReconnectWindow)

	bDecided, aCommitted := make(chan struct{}), make(chan struct{})
	f.store.SetBeforeClassifyCommit(func() { <-bDecided })
	f.other.SetAfterClassifyEvidence(func() { close(bDecided); <-aCommitted })

	var wg sync.WaitGroup
	var aStored, bStored bool
	var aErr, bErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, aStored, aErr = f.store.ClassifyCandidate(f.ctx, c)
		close(aCommitted)
	}()
	go func() {
		defer wg.Done()
		_, bStored, bErr = f.other.ClassifyCandidate(f.ctx, c)
	}()
	wg.Wait()
	if aErr != nil || bErr != nil {
		t.Fatal(aErr, bErr)
	}
	if !aStored || bStored {
		t.Fatalf("stored by the first %v, by the second %v; want the first only", aStored, bStored)
	}
}
