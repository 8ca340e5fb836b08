package sweep_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/testclock"
)

// The sweeper's own decisions, on a fake store and a test clock: no
// emulator. The emulator tests beside them prove the storage half.

// A failed pass is followed by a pause that doubles from one second up to
// MaxBackoff, so that a sweeper does not hammer a Firestore that is down;
// one good pass starts the sequence again.
func TestSweeper_BacksOffAfterFailedPasses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   sweep.Config
		store *fakeStore
		want  []time.Duration // the pauses after each pass
	}{
		{
			name:  "each failed pass doubles the pause, from one second",
			cfg:   sweep.Config{MaxBackoff: 30 * time.Second},
			store: &fakeStore{modeErr: errInjected},
			want:  []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second},
		},
		{
			name:  "the pause stops growing at MaxBackoff",
			cfg:   sweep.Config{MaxBackoff: 5 * time.Second},
			store: &fakeStore{modeErr: errInjected},
			want:  []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second},
		},
		{
			name:  "a MaxBackoff under a second is the first pause too",
			cfg:   sweep.Config{MaxBackoff: 300 * time.Millisecond},
			store: &fakeStore{modeErr: errInjected},
			want:  []time.Duration{300 * time.Millisecond, 300 * time.Millisecond},
		},
		{
			name:  "a good pass starts the backoff again from one second",
			cfg:   sweep.Config{MaxWait: 5 * time.Second},
			store: &fakeStore{modeErrs: []error{errInjected, errInjected, nil, errInjected, errInjected}},
			want:  []time.Duration{1 * time.Second, 2 * time.Second, 5 * time.Second /* nothing scheduled: MaxWait */, 1 * time.Second, 2 * time.Second},
		},
		{
			name:  "a failed listing backs off as a failed mode read does",
			store: &fakeStore{listErrs: map[string]error{"ExpiredTyping": errInjected}},
			want:  []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name: "a pass stopped by failing candidates backs off",
			store: &fakeStore{sessions: sessions("a", "b", "c"),
				fail: failing("ExpireSession a", "ExpireSession b", "ExpireSession c")},
			want: []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:  "a pass that skipped one failing candidate does not back off",
			cfg:   sweep.Config{MaxWait: 5 * time.Second},
			store: &fakeStore{sessions: sessions("a", "b"), fail: failing("ExpireSession a")},
			want:  []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.RunBudget = time.Hour
			h := sweeperOnFake(t, tc.store, cfg)
			h.stopAfter = len(tc.want)
			sum := h.run()
			if !slices.Equal(h.sleeps, tc.want) {
				t.Fatalf("pauses %v, want %v", brief(h.sleeps), tc.want)
			}
			if sum.Passes != len(tc.want) {
				t.Fatalf("%d passes, want one per pause, %d", sum.Passes, len(tc.want))
			}
		})
	}
}

// After a good pass the sweeper sleeps until just after the next deadline
// (a lease is live strictly before its end), at least MinWait and at most
// MaxWait; with a backlog it takes only MinWait, without asking.
func TestSweeper_WaitsForTheNextDeadline(t *testing.T) {
	start := testclock.Start
	const minWait, maxWait = 100 * time.Millisecond, 5 * time.Second
	cfg := sweep.Config{MinWait: minWait, MaxWait: maxWait, BatchSize: 3}
	for _, tc := range []struct {
		name  string
		store *fakeStore
		want  time.Duration
		// asked is the NextDeadline call the sweeper made; "" when it
		// must not ask.
		asked string
	}{
		{
			name:  "until just after the next deadline",
			store: &fakeStore{deadline: start.Add(2 * time.Second)},
			want:  2*time.Second + time.Millisecond, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "no longer than MaxWait",
			store: &fakeStore{deadline: start.Add(time.Minute)},
			want:  maxWait, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "at least MinWait for a deadline just ahead",
			store: &fakeStore{deadline: start.Add(10 * time.Millisecond)},
			want:  minWait, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "MinWait for a deadline already passed",
			store: &fakeStore{deadline: start.Add(-time.Minute)},
			want:  minWait, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "MaxWait when nothing is scheduled",
			store: &fakeStore{},
			want:  maxWait, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "MaxWait when the next deadline cannot be read",
			store: &fakeStore{deadline: start.Add(2 * time.Second), deadlineErr: errInjected},
			want:  maxWait, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "an observing sweeper asks only for unreported rooms' deadlines",
			store: &fakeStore{mode: presence.ModeSetting{Set: true, Value: "observe"}, deadline: start.Add(2 * time.Second)},
			want:  2*time.Second + time.Millisecond, asked: "NextDeadline unreportedOnly=true",
		},
		{
			name:  "a listing shorter than the batch is no backlog",
			store: &fakeStore{sessions: sessions("a", "b"), deadline: start.Add(2 * time.Second)},
			want:  2*time.Second + time.Millisecond, asked: "NextDeadline unreportedOnly=false",
		},
		{
			name:  "MinWait with a batch of expired sessions",
			store: &fakeStore{sessions: sessions("a", "b", "c"), deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
		{
			name:  "MinWait when undecodable documents fill the batch",
			store: &fakeStore{sessions: sessions("a"), undecodable: []string{"shop/x/sessions/1", "shop/x/sessions/2"}, deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
		{
			name:  "MinWait with a batch of changed policies",
			store: &fakeStore{policies: policiesOf("p1", "p2", "p3"), deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
		{
			name:  "MinWait while a policy's enforcement is unfinished",
			store: &fakeStore{policies: policiesOf("p1"), policyMore: true, deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
		{
			name:  "MinWait with a batch of expired typing signals",
			store: &fakeStore{typing: typingOf("a", "b", "c"), deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
		{
			name:  "MinWait with a batch of due rooms",
			store: &fakeStore{due: dueRooms("r1", "r2", "r3"), deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
		{
			name:  "MinWait with a batch of purges",
			store: &fakeStore{purged: 3, deadline: start.Add(2 * time.Second)},
			want:  minWait,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := sweeperOnFake(t, tc.store, cfg)
			h.stopAfter = 1
			h.run()
			if len(h.sleeps) != 1 || h.sleeps[0] != tc.want {
				t.Fatalf("pauses %v, want one pause of %v", h.sleeps, tc.want)
			}
			asked := tc.store.callsTo("NextDeadline")
			if tc.asked == "" && len(asked) != 0 {
				t.Fatalf("with a backlog it asked %v", asked)
			}
			if tc.asked != "" && !slices.Equal(asked, []string{tc.asked}) {
				t.Fatalf("asked %v, want %q", asked, tc.asked)
			}
		})
	}
}

// The operator's setting picks the mode; none means the default. A setting
// the sweeper does not understand means observe, never the default (which
// may be enforce), and a WARNING on every pass. A setting that cannot be
// read fails the pass before anything is listed, let alone deleted.
func TestSweeper_FallsBackToASafeMode(t *testing.T) {
	str := func(v string) presence.ModeSetting { return presence.ModeSetting{Set: true, Value: v} }
	const observing = "TearDown r1 enforce=false"
	for _, tc := range []struct {
		name     string
		def      sweep.Mode
		setting  presence.ModeSetting
		readErr  error
		wantMode sweep.Mode
		warned   bool
		// acts are the calls that check, report or delete due rooms.
		acts []string
	}{
		{name: "no setting means the default, enforce", def: sweep.Enforce,
			wantMode: sweep.Enforce, acts: []string{"TearDown r1 enforce=true", "PurgeClosed"}},
		{name: "no setting means the default, observe", def: sweep.Observe,
			wantMode: sweep.Observe, acts: []string{observing}},
		{name: "no setting means the default, off", def: sweep.Off,
			wantMode: sweep.Off, acts: []string{"MarkReported r1"}},
		{name: "a setting overrides the default", def: sweep.Enforce, setting: str("off"),
			wantMode: sweep.Off, acts: []string{"MarkReported r1"}},
		{name: "a boolean means observe", def: sweep.Enforce, setting: presence.ModeSetting{Set: true, NotString: "bool"},
			wantMode: sweep.Observe, warned: true, acts: []string{observing}},
		{name: "null means observe", def: sweep.Enforce, setting: presence.ModeSetting{Set: true, NotString: "null"},
			wantMode: sweep.Observe, warned: true, acts: []string{observing}},
		{name: "an empty string means observe", def: sweep.Enforce, setting: str(""),
			wantMode: sweep.Observe, warned: true, acts: []string{observing}},
		{name: "another case means observe", def: sweep.Enforce, setting: str("Enforce"),
			wantMode: sweep.Observe, warned: true, acts: []string{observing}},
		{name: "an unknown word means observe, not the default off", def: sweep.Off, setting: str("disabled"),
			wantMode: sweep.Observe, warned: true, acts: []string{observing}},
		{name: "an unreadable setting fails the pass and acts on nothing", def: sweep.Enforce, readErr: errInjected,
			wantMode: sweep.Observe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &fakeStore{mode: tc.setting, modeErr: tc.readErr, sessions: sessions("a"), due: dueRooms("r1")}
			h := sweeperOnFake(t, store, sweep.Config{DefaultMode: tc.def})
			r := h.s.Pass(context.Background())
			if r.Mode != tc.wantMode {
				t.Fatalf("mode %q, want %q", r.Mode, tc.wantMode)
			}
			if acts := store.callsTo("TearDown", "MarkReported", "PurgeClosed"); !slices.Equal(acts, tc.acts) {
				t.Fatalf("due rooms: %v, want %v", acts, tc.acts)
			}
			warned := h.warnings(t, "roomlease/config cleanupMode not understood; observing")
			if tc.warned != (len(warned) == 1) || len(warned) > 1 {
				t.Fatalf("%d warnings that the mode was not understood, want %v; log:\n%s", len(warned), tc.warned, h.logs)
			}
			if tc.readErr == nil {
				if r.Err != nil {
					t.Fatalf("the pass failed: %v", r.Err)
				}
				return
			}
			if r.Err == nil || r.FailedSteps != 1 || sweep.Redacted(r.Err) != "reading the cleanup mode: unavailable" {
				t.Fatalf("pass with an unreadable mode: err %v, %+v; want it failed at the mode", r.Err, r.Counts)
			}
			if calls := store.calls; !slices.Equal(calls, []string{"CleanupMode"}) {
				t.Fatalf("after the failed mode read the pass called %v", calls)
			}
		})
	}
}

// One candidate whose step fails is counted, logged and skipped: the pass
// goes on with the next candidate and the next steps, and does not fail.
// Listed oldest first, a candidate that keeps failing would otherwise stop
// every pass at the same place.
func TestSweeper_SkipsAFailingCandidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		def   sweep.Mode
		store *fakeStore
		acts  []string // the calls to the steps that act, in order
		step  string   // the failed step
	}{
		{
			name:  "a session whose expiry fails",
			store: &fakeStore{sessions: sessions("a", "b", "c"), fail: failing("ExpireSession a")},
			acts:  []string{"ExpireSession a", "ExpireSession b", "ExpireSession c", "PurgeClosed"},
			step:  "expiring a session",
		},
		{
			name:  "a policy whose enforcement fails",
			store: &fakeStore{policies: policiesOf("p1", "p2"), fail: failing("EnforcePolicy p1")},
			acts:  []string{"EnforcePolicy p1", "EnforcePolicy p2", "PurgeClosed"},
			step:  "enforcing a room policy",
		},
		{
			name:  "a typing signal whose clearing fails",
			store: &fakeStore{typing: typingOf("a", "b"), fail: failing("ClearTyping a")},
			acts:  []string{"ClearTyping a", "ClearTyping b", "PurgeClosed"},
			step:  "clearing typing",
		},
		{
			name:  "a due room whose check fails",
			store: &fakeStore{due: dueRooms("r1", "r2"), fail: failing("TearDown r1 enforce=true")},
			acts:  []string{"TearDown r1 enforce=true", "TearDown r2 enforce=true", "PurgeClosed"},
			step:  "checking a room for teardown",
		},
		{
			name:  "a due room whose report fails, in off mode",
			def:   sweep.Off,
			store: &fakeStore{due: dueRooms("r1", "r2"), fail: failing("MarkReported r1")},
			acts:  []string{"MarkReported r1", "MarkReported r2"},
			step:  "reporting a due room",
		},
		{
			name:  "a purge that fails",
			store: &fakeStore{sessions: sessions("a"), fail: failing("PurgeClosed")},
			acts:  []string{"ExpireSession a", "PurgeClosed"},
			step:  "purging torn-down rooms",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := sweeperOnFake(t, tc.store, sweep.Config{DefaultMode: tc.def})
			r := h.s.Pass(context.Background())
			if r.Err != nil || r.FailedSteps != 1 || r.ItemErr == nil {
				t.Fatalf("err %v, item err %v, %d failed steps; want one skipped failure and the pass not failed", r.Err, r.ItemErr, r.FailedSteps)
			}
			if got := sweep.Redacted(r.ItemErr); got != tc.step+": unavailable" {
				t.Fatalf("the skipped failure is %q, want the step %q", got, tc.step)
			}
			acts := tc.store.callsTo("ExpireSession", "EnforcePolicy", "ClearTyping", "TearDown", "MarkReported", "PurgeClosed")
			if !slices.Equal(acts, tc.acts) {
				t.Fatalf("acted %v, want %v", acts, tc.acts)
			}
			warned := h.warnings(t, "sweep step failed; went on with the next candidate")
			if len(warned) != 1 || !strings.HasPrefix(warned[0]["error"].(string), tc.step+": ") {
				t.Fatalf("warnings %v, want one naming %q", warned, tc.step)
			}
		})
	}
}

// Many failing candidates in one pass look like Firestore failing: at the
// third the pass stops, fails, and acts on nothing more; so does the first
// failure after the pass's time is up.
func TestSweeper_StopsAfterTooManyFailedCandidates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		store    *fakeStore
		timeUp   bool     // the pass's time is up as the first step fails
		acts     []string // the calls to the steps that act, in order
		failed   int      // FailedSteps
		stopping string   // the failed step that ends the pass; "" if none does
	}{
		{
			name:   "two failures let the pass finish",
			store:  &fakeStore{sessions: sessions("a", "b", "c"), fail: failing("ExpireSession a", "ExpireSession b")},
			acts:   []string{"ExpireSession a", "ExpireSession b", "ExpireSession c", "PurgeClosed"},
			failed: 2,
		},
		{
			name: "the third failure stops the pass before the next candidate",
			store: &fakeStore{sessions: sessions("a", "b", "c", "d"), typing: typingOf("t"),
				fail: failing("ExpireSession a", "ExpireSession b", "ExpireSession c")},
			acts:     []string{"ExpireSession a", "ExpireSession b", "ExpireSession c"},
			failed:   3,
			stopping: "expiring a session",
		},
		{
			name: "failures add up across the steps of a pass",
			store: &fakeStore{sessions: sessions("a", "b"), typing: typingOf("t"), due: dueRooms("r1", "r2"),
				fail: failing("ExpireSession a", "ClearTyping t", "TearDown r1 enforce=true")},
			acts:     []string{"ExpireSession a", "ExpireSession b", "ClearTyping t", "TearDown r1 enforce=true"},
			failed:   3,
			stopping: "checking a room for teardown",
		},
		{
			name: "a third failing policy stops the pass",
			store: &fakeStore{policies: policiesOf("p1", "p2", "p3", "p4"), typing: typingOf("t"),
				fail: failing("EnforcePolicy p1", "EnforcePolicy p2", "EnforcePolicy p3")},
			acts:     []string{"EnforcePolicy p1", "EnforcePolicy p2", "EnforcePolicy p3"},
			failed:   3,
			stopping: "enforcing a room policy",
		},
		{
			name: "a failing purge can be the third",
			store: &fakeStore{sessions: sessions("a", "b"),
				fail: failing("ExpireSession a", "ExpireSession b", "PurgeClosed")},
			acts:     []string{"ExpireSession a", "ExpireSession b", "PurgeClosed"},
			failed:   3,
			stopping: "purging torn-down rooms",
		},
		{
			name:     "a failure once the pass's time is up stops it at once",
			store:    &fakeStore{sessions: sessions("a", "b"), fail: failing("ExpireSession a")},
			timeUp:   true,
			acts:     []string{"ExpireSession a"},
			failed:   1,
			stopping: "expiring a session",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.timeUp {
				tc.store.onFail = cancel
			}
			h := sweeperOnFake(t, tc.store, sweep.Config{})
			r := h.s.Pass(ctx)
			acts := tc.store.callsTo("ExpireSession", "EnforcePolicy", "ClearTyping", "TearDown", "MarkReported", "PurgeClosed")
			if !slices.Equal(acts, tc.acts) {
				t.Fatalf("acted %v, want %v", acts, tc.acts)
			}
			if r.FailedSteps != tc.failed {
				t.Fatalf("%d failed steps, want %d", r.FailedSteps, tc.failed)
			}
			switch {
			case tc.stopping == "" && r.Err != nil:
				t.Fatalf("the pass failed: %v", r.Err)
			case tc.stopping != "" && sweep.Redacted(r.Err) != tc.stopping+": unavailable":
				t.Fatalf("the pass ended with %v, want it stopped at %q", r.Err, tc.stopping)
			}
		})
	}
}

// A run keeps sweeping while its next pause would end before RunBudget
// (Cloud Scheduler starts the next run a minute after this one), backoff
// pauses included; whatever the budget, it makes one pass, and it reports
// once, at the end.
func TestSweeper_RunStaysWithinItsBudget(t *testing.T) {
	failingMode := func() *fakeStore { return &fakeStore{modeErr: errInjected} }
	for _, tc := range []struct {
		name      string
		budget    time.Duration
		store     *fakeStore
		cancelled bool // the run's context has ended before it starts
		sleeps    []time.Duration
		passes    int
	}{
		{name: "a budget shorter than the first pause makes one pass", budget: time.Second, passes: 1},
		{name: "a budget of a nanosecond makes one pass", budget: time.Nanosecond, passes: 1},
		{name: "no pause that would pass the budget", budget: 12 * time.Second, sleeps: []time.Duration{5 * time.Second, 5 * time.Second}, passes: 3},
		{name: "no pause that would end exactly at the budget", budget: 10 * time.Second, sleeps: []time.Duration{5 * time.Second}, passes: 2},
		{name: "backoff pauses count against the budget", budget: 4 * time.Second, store: failingMode(),
			sleeps: []time.Duration{1 * time.Second, 2 * time.Second}, passes: 3},
		{name: "a run whose every pass fails makes one pass", budget: time.Nanosecond, store: failingMode(), passes: 1},
		{name: "a run whose context has ended makes one pass", budget: time.Minute, cancelled: true, passes: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.store == nil {
				tc.store = &fakeStore{} // nothing to do, nothing scheduled
			}
			h := sweeperOnFake(t, tc.store, sweep.Config{RunBudget: tc.budget, MaxWait: 5 * time.Second})
			var sum sweep.Summary
			if tc.cancelled {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				sum = h.s.Run(ctx)
			} else {
				sum = h.run()
			}
			if sum.Passes != tc.passes || !slices.Equal(h.sleeps, tc.sleeps) {
				t.Fatalf("%d passes, pauses %v; want %d and %v", sum.Passes, brief(h.sleeps), tc.passes, tc.sleeps)
			}
			if n := len(tc.store.callsTo("CleanupMode")); n != tc.passes {
				t.Fatalf("%d passes read the mode, the summary counts %d", n, sum.Passes)
			}
			if calls := tc.store.calls; calls[len(calls)-1] != "WriteSweepStatus" || len(tc.store.callsTo("WriteSweepStatus")) != 1 {
				t.Fatalf("calls %v, want the status written once, last", calls)
			}
		})
	}
}

// brief is the start of a list of pauses, for a failure message.
func brief(sleeps []time.Duration) string {
	if len(sleeps) <= 10 {
		return fmt.Sprint(sleeps)
	}
	return fmt.Sprintf("%v … (%d in all)", sleeps[:10], len(sleeps))
}

// A purge that outlasts its budget (a room of thousands of documents) is
// unfinished, not failed: the pass goes on to its later steps, does not
// fail or back the run off, and asks for the next pass at once, which
// meets the deadlines that came meanwhile before it purges again.
func TestSweeper_APurgeOutOfBudgetIsABacklogNotAFailure(t *testing.T) {
	store := &fakeStore{purgeOutlasts: true, purged: 2}
	h := sweeperOnFake(t, store, sweep.Config{PurgeBudget: 10 * time.Millisecond})
	r := h.s.Pass(context.Background())
	if r.Err != nil || r.ItemErr != nil || r.FailedSteps != 0 {
		t.Fatalf("err %v, item err %v, %d failed steps; want the purge's budget spent without a failure", r.Err, r.ItemErr, r.FailedSteps)
	}
	if !r.Backlog || r.RoomsPurged != 2 {
		t.Fatalf("backlog %v, %d purged; want a backlog and the 2 finished counted", r.Backlog, r.RoomsPurged)
	}
	if calls := store.callsTo("PendingCandidates"); len(calls) != 1 {
		t.Fatalf("the steps after the purge ran %v; want step 7 run", calls)
	}
}
