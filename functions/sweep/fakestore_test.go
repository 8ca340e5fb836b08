package sweep_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/testclock"
	"github.com/roomlease/roomlease/internal/testlog"
)

var _ sweep.Store = (*fakeStore)(nil)

// errInjected is how a fake store's step fails: as the real store does
// when Firestore cannot be reached in time.
var errInjected = presence.Errorf(presence.EUnavailable, "injected")

// fakeStore is a sweep.Store in memory, for the sweeper's own decisions: a
// test case scripts what each listing returns and which steps fail, and
// reads back every call the sweeper made, in order. It keeps no state: an
// expired session it lists stays listed, pass after pass.
type fakeStore struct {
	mu    sync.Mutex
	calls []string

	mode presence.ModeSetting
	// modeErrs[i] is the error of the (i+1)-th CleanupMode call: a
	// script of which passes fail. Calls beyond it succeed.
	modeErrs []error
	// modeErr, when set, fails every CleanupMode call.
	modeErr   error
	modeReads int

	sessions    []presence.ExpiryCandidate
	typing      []presence.TypingCandidate
	due         []presence.Room
	policies    []presence.PolicyChange
	undecodable []string // listed beside the sessions
	policyMore  bool     // EnforcePolicy stops at its limit with users left
	purged      int      // how many teardowns PurgeClosed finishes
	// purgeOutlasts makes PurgeClosed run until its context ends, as the
	// purge of a room of thousands would, and return its error.
	purgeOutlasts bool
	deadline      time.Time
	deadlineErr   error
	// pending are the candidates PendingCandidates lists; classes says
	// what each room's classification finds (Confirmed when absent), and
	// classifiedElsewhere names rooms another sweeper classified first.
	pending             []presence.Candidate
	classes             map[string]presence.CandidateClass
	classifiedElsewhere map[string]bool

	// listErrs fails listings, by method name ("ExpiredSessions").
	listErrs map[string]error
	// fail names the steps that fail, as their call is recorded
	// ("ExpireSession s1", "TearDown r1 enforce=true", "PurgeClosed").
	fail map[string]bool
	// onFail, when set, runs as a scripted step fails (a test cancels the
	// pass's context there: its time is up).
	onFail func()
}

// call records a call and returns whether the script fails it.
func (f *fakeStore) call(format string, args ...any) bool {
	c := fmt.Sprintf(format, args...)
	f.mu.Lock()
	f.calls = append(f.calls, c)
	failing := f.fail[c]
	f.mu.Unlock()
	if failing && f.onFail != nil {
		f.onFail()
	}
	return failing
}

// callsTo returns the recorded calls to the named methods, in order.
func (f *fakeStore) callsTo(methods ...string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		name, _, _ := strings.Cut(c, " ")
		if slices.Contains(methods, name) {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeStore) listErr(method string) error {
	f.call("%s", method)
	return f.listErrs[method]
}

func (f *fakeStore) CleanupMode(context.Context) (presence.ModeSetting, error) {
	f.call("CleanupMode")
	f.mu.Lock()
	n := f.modeReads
	f.modeReads++
	f.mu.Unlock()
	if f.modeErr != nil {
		return presence.ModeSetting{}, f.modeErr
	}
	if n < len(f.modeErrs) && f.modeErrs[n] != nil {
		return presence.ModeSetting{}, f.modeErrs[n]
	}
	return f.mode, nil
}

func (f *fakeStore) ExpiredSessions(context.Context, time.Time, int) (presence.Listing[presence.ExpiryCandidate], error) {
	if err := f.listErr("ExpiredSessions"); err != nil {
		return presence.Listing[presence.ExpiryCandidate]{}, err
	}
	return presence.Listing[presence.ExpiryCandidate]{Items: f.sessions, Undecodable: f.undecodable}, nil
}

func (f *fakeStore) ExpireSession(_ context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error) {
	if f.call("ExpireSession %s", c.SessionID) {
		return presence.ExpiryResult{}, errInjected
	}
	return presence.ExpiryResult{Outcome: presence.Done}, nil
}

func (f *fakeStore) ChangedPolicies(context.Context, time.Time, int) (presence.Listing[presence.PolicyChange], error) {
	if err := f.listErr("ChangedPolicies"); err != nil {
		return presence.Listing[presence.PolicyChange]{}, err
	}
	return presence.Listing[presence.PolicyChange]{Items: f.policies}, nil
}

func (f *fakeStore) EnforcePolicy(_ context.Context, c presence.PolicyChange, _ int) (presence.EvictionReport, error) {
	if f.call("EnforcePolicy %s", c.RoomID) {
		return presence.EvictionReport{}, errInjected
	}
	return presence.EvictionReport{Evicted: 1, More: f.policyMore}, nil
}

func (f *fakeStore) ExpiredTyping(context.Context, time.Time, int) (presence.Listing[presence.TypingCandidate], error) {
	if err := f.listErr("ExpiredTyping"); err != nil {
		return presence.Listing[presence.TypingCandidate]{}, err
	}
	return presence.Listing[presence.TypingCandidate]{Items: f.typing}, nil
}

func (f *fakeStore) ClearTyping(_ context.Context, c presence.TypingCandidate) (presence.Outcome, error) {
	if f.call("ClearTyping %s", c.ParticipantID) {
		return 0, errInjected
	}
	return presence.Done, nil
}

func (f *fakeStore) StaleDepartures(context.Context, time.Time, int) (presence.Listing[presence.StaleDepartures], error) {
	return presence.Listing[presence.StaleDepartures]{}, nil
}

func (f *fakeStore) FoldDepartures(context.Context, presence.StaleDepartures) (int, error) {
	return 0, nil
}

func (f *fakeStore) DueRooms(_ context.Context, _ time.Time, _ int, unreportedOnly bool) (presence.Listing[presence.Room], error) {
	f.call("DueRooms unreportedOnly=%v", unreportedOnly)
	if err := f.listErrs["DueRooms"]; err != nil {
		return presence.Listing[presence.Room]{}, err
	}
	return presence.Listing[presence.Room]{Items: f.due}, nil
}

func (f *fakeStore) TearDown(_ context.Context, c presence.TeardownCandidate, enforce bool) (presence.TeardownResult, error) {
	if f.call("TearDown %s enforce=%v", c.RoomID, enforce) {
		return presence.TeardownResult{}, errInjected
	}
	res := presence.TeardownResult{Verdict: presence.TearDown, Recorded: true}
	if enforce {
		res.Closing = &presence.Closing{RoomID: c.RoomID, EmptySince: c.EmptySince, ClosedAt: c.CleanupAfter}
	}
	return res, nil
}

func (f *fakeStore) MarkReported(_ context.Context, c presence.TeardownCandidate) (bool, error) {
	if f.call("MarkReported %s", c.RoomID) {
		return false, errInjected
	}
	return true, nil
}

func (f *fakeStore) PurgeClosed(ctx context.Context, _ int) (int, error) {
	if f.call("PurgeClosed") {
		return f.purged, errInjected
	}
	if f.purgeOutlasts {
		<-ctx.Done()
		return f.purged, ctx.Err()
	}
	return f.purged, nil
}

func (f *fakeStore) PendingCandidates(context.Context, time.Time, int) (presence.Listing[presence.Candidate], error) {
	if err := f.listErr("PendingCandidates"); err != nil {
		return presence.Listing[presence.Candidate]{}, err
	}
	return presence.Listing[presence.Candidate]{Items: f.pending}, nil
}

func (f *fakeStore) ClassifyCandidate(_ context.Context, c presence.Candidate) (presence.CandidateClass, bool, error) {
	if f.call("ClassifyCandidate %s", c.RoomID) {
		return "", false, errInjected
	}
	class, ok := f.classes[c.RoomID]
	if !ok {
		class = presence.Confirmed
	}
	return class, !f.classifiedElsewhere[c.RoomID], nil
}

func (f *fakeStore) RepairEmptyActive(_ context.Context, since time.Time, _ int) (presence.RepairReport, error) {
	f.call("RepairEmptyActive")
	return presence.RepairReport{Through: since}, nil
}

func (f *fakeStore) RepairWatermark(context.Context) (time.Time, error) {
	f.call("RepairWatermark")
	return time.Time{}, nil
}

func (f *fakeStore) NextDeadline(_ context.Context, unreportedOnly bool) (time.Time, error) {
	f.call("NextDeadline unreportedOnly=%v", unreportedOnly)
	return f.deadline, f.deadlineErr
}

func (f *fakeStore) WriteSweepStatus(context.Context, map[string]any) error {
	f.call("WriteSweepStatus")
	return nil
}

// onFake is a sweeper on a fake store and a test clock: its pauses advance
// the clock and are recorded instead of waited.
type onFake struct {
	store  *fakeStore
	clock  *testclock.Clock
	logs   *testlog.Buffer
	sleeps []time.Duration
	s      *sweep.Sweeper
	// stopAfter, when above zero, ends a run at its stopAfter-th pause, as
	// if its context ended while it slept.
	stopAfter int
	stop      context.CancelFunc
}

// maxFakeSleeps ends a run that would not end by itself (a budget not
// kept), so that the test fails instead of hanging.
const maxFakeSleeps = 1000

func sweeperOnFake(tb testing.TB, store *fakeStore, cfg sweep.Config) *onFake {
	tb.Helper()
	h := &onFake{store: store, clock: testclock.New(testclock.Start), logs: &testlog.Buffer{}}
	if cfg.Concurrency == 0 {
		// These tests read the calls back in order: one candidate at a
		// time. TestSweeper_ActsOnCandidatesAtOnce sets its own.
		cfg.Concurrency = 1
	}
	s, err := sweep.New(store, cfg, h.clock.Now, func(ctx context.Context, d time.Duration) error {
		h.sleeps = append(h.sleeps, d)
		h.clock.Advance(d)
		if n := len(h.sleeps); (h.stopAfter > 0 && n >= h.stopAfter) || n >= maxFakeSleeps {
			h.stop()
		}
		return ctx.Err()
	}, logging.New(h.logs, levelDebug))
	if err != nil {
		tb.Fatal(err)
	}
	h.s = s
	return h
}

// run runs the sweeper once, until its budget is spent or stopAfter.
func (h *onFake) run() sweep.Summary {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.stop = cancel
	return h.s.Run(ctx)
}

// warnings returns the WARNING lines logged with message.
func (h *onFake) warnings(tb testing.TB, message string) []map[string]any {
	tb.Helper()
	return h.logs.Lines(tb, map[string]any{"severity": "WARNING", "message": message})
}

// Fixtures for the fake: candidates named as the fake records their calls.

func sessions(ids ...string) []presence.ExpiryCandidate {
	var out []presence.ExpiryCandidate
	for _, id := range ids {
		out = append(out, presence.ExpiryCandidate{RoomID: "room-" + id, ParticipantID: "u-" + id, SessionID: id,
			Generation: 1, LeaseExpiresAt: testclock.Start.Add(-time.Second)})
	}
	return out
}

func typingOf(uids ...string) []presence.TypingCandidate {
	var out []presence.TypingCandidate
	for _, uid := range uids {
		out = append(out, presence.TypingCandidate{RoomID: "chat", ParticipantID: uid, ExpiresAt: testclock.Start.Add(-time.Second)})
	}
	return out
}

// dueRooms are rooms whose grace ended a minute before testclock.Start.
func dueRooms(ids ...string) []presence.Room {
	var out []presence.Room
	for _, id := range ids {
		out = append(out, presence.Room{ID: id, State: presence.StateSuspectedEmpty, Generation: 1,
			EmptySince: testclock.Start.Add(-2 * time.Minute), CleanupAfter: testclock.Start.Add(-time.Minute)})
	}
	return out
}

func policiesOf(rooms ...string) []presence.PolicyChange {
	var out []presence.PolicyChange
	for _, room := range rooms {
		out = append(out, presence.PolicyChange{RoomID: room, Policy: presence.Policy{AllowedUsers: []string{"bob"}},
			UpdatedAt: testclock.Start.Add(-time.Minute)})
	}
	return out
}

// failing is the set of calls a fake fails.
func failing(calls ...string) map[string]bool {
	m := map[string]bool{}
	for _, c := range calls {
		m[c] = true
	}
	return m
}
