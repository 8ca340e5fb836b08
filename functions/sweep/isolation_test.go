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
	presence.SweepStore
	refuse func(presence.ExpiryCandidate) bool
}

func (s *refusingStore) ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error) {
	if s.refuse(c) {
		return presence.ExpiryResult{}, errors.New("injected: this candidate keeps failing")
	}
	return s.SweepStore.ExpireSession(ctx, c)
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
// candidates refuse picks.
func passRefusing(t *testing.T, f *fixture, refuse func(presence.ExpiryCandidate) bool) sweep.PassReport {
	t.Helper()
	return f.sweeper(t, &refusingStore{SweepStore: f.store, refuse: refuse}, sweep.Config{}).Pass(f.ctx)
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
// waits for a later pass.
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
