package sweep_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
)

// refusingStore is the real store with the expiry of some candidates
// failing every time, as a candidate that Firestore (or the emulator) keeps
// refusing would.
type refusingStore struct {
	sweep.Store
	refuse func(presence.ExpiryCandidate) bool
}

func (s *refusingStore) ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error) {
	if s.refuse(c) {
		return presence.ExpiryResult{}, errors.New("injected: this candidate keeps failing")
	}
	return s.Store.ExpireSession(ctx, c)
}

// crashFour puts users a, b, c and d into rooms of their own, a second
// apart, and lets every lease run out: the sweeper lists them oldest first.
func crashFour(t *testing.T, f *fixture) {
	t.Helper()
	for _, uid := range []string{"a", "b", "c", "d"} {
		f.join(t, "room-"+uid, uid, "tab")
		f.clock.Advance(time.Second)
	}
	f.clock.Advance(f.settings.Lease)
}

// passRefusing runs one pass on a store whose expiries fail for the
// candidates refuse picks, acting on one candidate at a time so that which
// ones a stopping pass never started is known.
func passRefusing(t *testing.T, f *fixture, refuse func(presence.ExpiryCandidate) bool) sweep.PassReport {
	t.Helper()
	return f.sweeper(t, &refusingStore{Store: f.store, refuse: refuse}, sweep.Config{Concurrency: 1}).Pass(f.ctx)
}

// slowStore is the real store with room-a's expiry held until the other
// rooms' expiries have all returned.
type slowStore struct {
	sweep.Store
	others chan struct{} // one value per other expiry returned
	n      int           // how many others to wait for
}

func (s *slowStore) ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error) {
	if c.RoomID != "room-a" {
		defer func() { s.others <- struct{}{} }()
		return s.Store.ExpireSession(ctx, c)
	}
	for range s.n {
		select {
		case <-s.others:
		case <-time.After(10 * time.Second):
			return presence.ExpiryResult{}, errors.New("the other expiries did not run while room-a's was held")
		}
	}
	return s.Store.ExpireSession(ctx, c)
}

// A candidate whose step is slow (a contended room, a slow round trip)
// must not hold up the deadlines listed after it: the pass acts on several
// at once. room-a, listed first, is held until b's, c's and d's expiries
// have committed; acting one at a time, they would never start.
func TestSweep_ASlowCandidateDoesNotHoldUpTheOthers(t *testing.T) {
	f := MustOpen(t)
	crashFour(t, f)
	slow := &slowStore{Store: f.store, others: make(chan struct{}, 3), n: 3}
	r := f.sweeper(t, slow, sweep.Config{}).Pass(f.ctx)
	if r.Err != nil || r.ItemErr != nil || r.SessionsExpired != 4 {
		t.Fatalf("pass with a slow first candidate: err=%v itemErr=%v %+v; want all four expired", r.Err, r.ItemErr, r.Counts)
	}
	for _, uid := range []string{"a", "b", "c", "d"} {
		if f.exists(t, "rooms/room-"+uid+"/participants/"+uid) {
			t.Errorf("%s is still listed", uid)
		}
	}
}

// One candidate that keeps failing must not hold up the others: listed
// oldest first, it comes first on every pass, so a pass that stopped there
// would never expire anyone again.
func TestSweep_AFailingCandidateDoesNotStopThePass(t *testing.T) {
	f := MustOpen(t)
	crashFour(t, f)
	r := passRefusing(t, f, func(c presence.ExpiryCandidate) bool { return c.RoomID == "room-a" })
	if r.Err != nil || r.ItemErr == nil || r.FailedSteps != 1 || r.SessionsExpired != 3 {
		t.Fatalf("pass with one failing candidate: err=%v itemErr=%v %+v; want b, c and d expired and one failed step",
			r.Err, r.ItemErr, r.Counts)
	}
	for _, uid := range []string{"b", "c", "d"} {
		if f.exists(t, "rooms/room-"+uid+"/participants/"+uid) {
			t.Errorf("%s is still listed", uid)
		}
	}
	if !f.exists(t, "rooms/room-a/participants/a") {
		t.Error("a was removed although its expiry failed")
	}
}

// Several failures in one pass look like Firestore failing: the pass stops
// (the run then backs off), and what comes after the last allowed failure
// waits for a later pass. (Acting on several at once, those already
// started when the third failure comes finish; none starts after it.)
func TestSweep_ManyFailingCandidatesStopThePass(t *testing.T) {
	f := MustOpen(t)
	crashFour(t, f)
	r := passRefusing(t, f, func(c presence.ExpiryCandidate) bool { return c.RoomID != "room-d" })
	if r.Err == nil || r.FailedSteps != 3 || r.SessionsExpired != 0 {
		t.Fatalf("pass with three failing candidates: err=%v %+v; want it stopped after three failures", r.Err, r.Counts)
	}
	if !f.exists(t, "rooms/room-d/participants/d") {
		t.Error("d was expired after the pass should have stopped")
	}
}

// failingSteps is the real store with a room policy's enforcement and the
// purge of torn-down rooms failing every time.
type failingSteps struct {
	sweep.Store
}

func (s failingSteps) EnforcePolicy(context.Context, presence.PolicyChange, int) (presence.EvictionReport, error) {
	return presence.EvictionReport{}, errors.New("injected: this policy keeps failing")
}

func (s failingSteps) PurgeClosed(ctx context.Context, limit int) (int, error) {
	return 0, errors.New("injected: this purge keeps failing")
}

// A policy whose enforcement keeps failing, and a purge that keeps failing,
// are failed items, not failed passes: expiry and teardown go on in the
// same pass, and the run does not back off (docs/races.md, "A sweeper that
// stalls on one bad item").
func TestSweep_AFailingPolicyOrPurgeDoesNotStopThePass(t *testing.T) {
	f := MustOpen(t)
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"bob"}, "updatedAt": f.clock.Now()})
	alice := f.join(t, "quiet", "alice", "tab")
	f.leave(t, alice)
	f.join(t, "crash", "carol", "tab")
	f.clock.Advance(f.settings.EmptyRoomGrace + f.settings.Lease)

	r := f.sweeper(t, failingSteps{f.store}, sweep.Config{}).Pass(f.ctx)
	if r.Err != nil {
		t.Fatalf("the pass failed as a whole: %v", r.Err)
	}
	if r.FailedSteps != 2 || r.ItemErr == nil {
		t.Fatalf("failed steps %d (%v), want the policy and the purge", r.FailedSteps, r.ItemErr)
	}
	// Carol's lease ended a grace ago, so her room is due as soon as her
	// expiry empties it.
	if r.SessionsExpired != 1 || r.RoomsDeleted != 2 {
		t.Fatalf("pass %+v; want carol expired and both rooms torn down", r.Counts)
	}
}
