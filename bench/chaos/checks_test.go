package chaos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roomlease/roomlease/bench/workload"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(seconds float64) time.Time { return t0.Add(time.Duration(seconds * float64(time.Second))) }

func TestClassify409(t *testing.T) {
	lease := heldLease{UID: "u", Room: "r", Session: "tab-1", Gen: 7, Since: at(0), Until: at(6)}
	doubtful := lease
	doubtful.Doubtful = true
	tol := 250 * time.Millisecond
	for name, c := range map[string]struct {
		lease    heldLease
		answered time.Time
		want     verdict409
	}{
		"AnsweredWellInsideTheLeaseIsAFalseRemoval":     {lease, at(3), false409},
		"AnsweredJustBeforeTheToleranceIsAFalseRemoval": {lease, at(5.7), false409},
		"AnsweredWithinTheToleranceIsLate":              {lease, at(5.8), late409},
		"AnsweredAfterTheLeaseEndIsLate":                {lease, at(9), late409},
		"DoubtfulGenerationInsideTheLeaseIsExcused":     {doubtful, at(3), ownJoin409},
		"DoubtfulGenerationAfterTheLeaseEndIsLate":      {doubtful, at(7), late409},
	} {
		t.Run(name, func(t *testing.T) {
			if got := classify409(c.lease, c.answered, tol); got != c.want {
				t.Fatalf("classify409 = %s, want %s", got, c.want)
			}
		})
	}
}

func TestExpectListed(t *testing.T) {
	margin := time.Second
	start, end := at(10), at(10.3) // the roster read
	held := func(uid, sid string, gen int64, since, until float64) heldLease {
		return heldLease{UID: uid, Room: "r", Session: sid, Gen: gen, Since: at(since), Until: at(until)}
	}
	live := held("ada", "tab-1", 1, 2, 14)
	for name, c := range map[string]struct {
		before, after []heldLease
		want          []string
		doubtful      int
	}{
		"LiveThroughoutTheReadMustBeListed": {[]heldLease{live}, []heldLease{live}, []string{"ada"}, 0},
		"JoinAnsweredWithinTheMarginOfTheReadIsNotJudged": {
			[]heldLease{held("ada", "tab-1", 1, 9.5, 15)}, []heldLease{held("ada", "tab-1", 1, 9.5, 15)}, nil, 0},
		"LeaseEndingWithinTheMarginAfterTheReadIsNotJudged": {
			[]heldLease{held("ada", "tab-1", 1, 2, 11)}, []heldLease{held("ada", "tab-1", 1, 2, 11.5)}, nil, 0},
		"LeaseRenewedDuringTheReadCountsOnlyWhatWasKnownBefore": {
			[]heldLease{held("ada", "tab-1", 1, 2, 11)}, []heldLease{held("ada", "tab-1", 1, 2, 16)}, nil, 0},
		"LeftDuringTheReadIsNotJudged":     {[]heldLease{live}, nil, nil, 0},
		"RejoinedDuringTheReadIsNotJudged": {[]heldLease{live}, []heldLease{held("ada", "tab-1", 2, 10.2, 16)}, nil, 0},
		"DoubtfulLeaseIsSkippedAndCounted": {[]heldLease{{UID: "ada", Session: "tab-1", Gen: 1, Since: at(2), Until: at(14), Doubtful: true}}, []heldLease{{UID: "ada", Session: "tab-1", Gen: 1, Since: at(2), Until: at(14), Doubtful: true}}, nil, 1},
		"AnotherTabProvesADoubtfulUser": {
			[]heldLease{{UID: "ada", Session: "tab-1", Gen: 1, Since: at(2), Until: at(14), Doubtful: true}, held("ada", "tab-2", 3, 1, 13)},
			[]heldLease{{UID: "ada", Session: "tab-1", Gen: 1, Since: at(2), Until: at(14), Doubtful: true}, held("ada", "tab-2", 3, 1, 13)},
			[]string{"ada"}, 0},
		"TwoUsersOneJudged": {
			[]heldLease{live, held("bob", "tab-1", 5, 9.8, 15)}, []heldLease{live, held("bob", "tab-1", 5, 9.8, 15)}, []string{"ada"}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			got := expectListed(c.before, c.after, start, end, margin)
			if len(got.Must) != len(c.want) || got.Doubtful != c.doubtful {
				t.Fatalf("must %v (doubtful %d), want %v (doubtful %d)", got.Must, got.Doubtful, c.want, c.doubtful)
			}
			for _, uid := range c.want {
				if _, ok := got.Must[uid]; !ok {
					t.Fatalf("%s not expected: %v", uid, got.Must)
				}
			}
		})
	}
}

func TestRevisionTracker(t *testing.T) {
	life1, life2 := at(0), at(100)
	read := func(exists bool, life time.Time, rev int64, when float64) revisionSeen {
		return revisionSeen{Exists: exists, Lifetime: life, Revision: rev, At: at(when)}
	}
	t.Run("RisingAndSteadyRevisionsAreFine", func(t *testing.T) {
		tr := newRevisionTracker()
		for i, rev := range []int64{1, 1, 3, 4, 4} {
			if d := tr.observe("r", read(true, life1, rev, float64(i))); d != nil {
				t.Fatalf("drop %+v", d)
			}
		}
	})
	t.Run("ErrDropWithinALifetime", func(t *testing.T) {
		tr := newRevisionTracker()
		tr.observe("r", read(true, life1, 5, 1))
		d := tr.observe("r", read(true, life1, 2, 2))
		if d == nil || d.Before != 5 || d.After != 2 || !d.Lifetime.Equal(life1) {
			t.Fatalf("drop %+v", d)
		}
		// The drop is reported once; rising from the new value is fine.
		if d := tr.observe("r", read(true, life1, 3, 3)); d != nil {
			t.Fatalf("second drop %+v", d)
		}
	})
	t.Run("ANewLifetimeStartsAnywhere", func(t *testing.T) {
		tr := newRevisionTracker()
		tr.observe("r", read(true, life1, 9, 1))
		if d := tr.observe("r", read(true, life2, 1, 2)); d != nil {
			t.Fatalf("drop across lifetimes %+v", d)
		}
		tr.observe("r", read(false, time.Time{}, 0, 3))
		if d := tr.observe("r", read(true, at(200), 1, 4)); d != nil {
			t.Fatalf("drop after a deletion %+v", d)
		}
		if n := tr.lifetimeCount(); n != 3 {
			t.Fatalf("lifetimes %d, want 3", n)
		}
	})
	t.Run("RoomsAreApart", func(t *testing.T) {
		tr := newRevisionTracker()
		tr.observe("a", read(true, life1, 9, 1))
		if d := tr.observe("b", read(true, life1, 1, 2)); d != nil {
			t.Fatalf("drop %+v", d)
		}
	})
}

func TestClassifyDocument(t *testing.T) {
	for path, want := range map[string]struct {
		kind string
		kept bool
	}{
		"rooms/r1":                               {docRoom, false},
		"rooms/r1/participants/u":                {docUnderRoom, false},
		"rooms/r1/participants/u/sessions/tab-1": {docUnderRoom, false},
		"rooms/r1/rosterRevisions/3":             {docUnderRoom, false},
		"roomClosings/r1~1700000000000000":       {docClosing, true},
		"roomClosings/r1~1/receipts/u":           {docClosing, true},
		"roomlease/sweepStatus":                  {docControl, true},
		"roomleaseUsers/u":                       {docUserRooms, true},
		"roomPolicies/r1":                        {docPolicy, true},
		"teardownCandidates/r1~1~1~1":            {docCandidate, true},
		"users/u":                                {docOther, false},
	} {
		kind, kept := classifyDocument(path)
		if kind != want.kind || kept != want.kept {
			t.Errorf("%s: %s %v, want %s %v", path, kind, kept, want.kind, want.kept)
		}
	}
}

func TestChaosSession(t *testing.T) {
	window := 35 * time.Second
	t.Run("AJoinAfterAnUnansweredOneIsDoubtfulUntilTheWindowPassed", func(t *testing.T) {
		s := &chaosSession{room: "r", sid: "tab-1"}
		s.unanswered(at(0).Add(window))
		s.joined(2, at(1), at(1.2), at(7.2))
		if l, ok := s.held("u"); !ok || !l.Doubtful || l.Gen != 2 {
			t.Fatalf("held %+v %v", l, ok)
		}
		s.joined(3, at(36), at(36.1), at(42.1))
		if l, _ := s.held("u"); l.Doubtful {
			t.Fatalf("still doubtful after the window: %+v", l)
		}
	})
	t.Run("AHeartbeatSentAfterTheWindowEndsTheDoubt", func(t *testing.T) {
		s := &chaosSession{room: "r", sid: "tab-1"}
		s.unanswered(at(10))
		s.joined(2, at(1), at(1.2), at(7.2))
		s.renewed(2, at(5), at(11)) // sent inside the window: proves nothing
		if l, _ := s.held("u"); !l.Doubtful {
			t.Fatalf("doubt ended by a heartbeat sent inside the window: %+v", l)
		}
		s.renewed(2, at(10.5), at(16.5))
		if l, _ := s.held("u"); l.Doubtful || !l.Until.Equal(at(16.5)) {
			t.Fatalf("held %+v", l)
		}
	})
	t.Run("RenewalsOnlyMoveTheLeaseOfTheirGenerationForward", func(t *testing.T) {
		s := &chaosSession{room: "r", sid: "tab-1"}
		s.joined(2, at(0), at(0.1), at(6))
		s.renewed(2, at(1), at(8))
		s.renewed(1, at(2), at(20)) // an older generation's answer: ignored
		s.renewed(2, at(3), at(7))  // back: counted, ignored
		if l, _ := s.held("u"); !l.Until.Equal(at(8)) || s.leaseMovedBack != 1 {
			t.Fatalf("until %s, moved back %d", l.Until, s.leaseMovedBack)
		}
	})
	t.Run("OnlyLiveAndCrashedSessionsClaimALease", func(t *testing.T) {
		for state, claims := range map[chaosSessState]bool{sessNone: false, sessJoining: false, sessLive: true, sessCrashed: true, sessLeft: false} {
			s := &chaosSession{room: "r", sid: "tab-1", gen: 4, state: state}
			if _, ok := s.held("u"); ok != claims {
				t.Errorf("state %d claims %v, want %v", state, ok, claims)
			}
		}
	})
}

func TestAmbiguous(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	for name, c := range map[string]struct {
		r    workload.Result
		want bool
	}{
		"RefusedNeverReachedAProcess": {workload.Result{Err: refused}, false},
		"TimeoutMayHaveCommitted":     {workload.Result{Err: context.DeadlineExceeded}, true},
		"ResetMayHaveCommitted":       {workload.Result{Err: fmt.Errorf("post: %w", syscall.ECONNRESET)}, true},
		"Status503MayHaveCommitted":   {workload.Result{Status: 503, Code: "unavailable"}, true},
		"Status409IsAnAnswer":         {workload.Result{Status: 409, Code: "stale_generation"}, false},
		"Status200IsAnAnswer":         {workload.Result{Status: 200}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := ambiguous(c.r); got != c.want {
				t.Fatalf("ambiguous = %v, want %v (refused: %v)", got, c.want, errors.Is(c.r.Err, syscall.ECONNREFUSED))
			}
		})
	}
}

func TestChaosMarkdown(t *testing.T) {
	rep := &Report{Processes: 4, Users: 40, Rooms: 16, Violations: map[string]int{violation409: 0, violationMissing: 1},
		Counts: map[string]int64{"joins": 12, "heartbeats": 340}, Actions: map[string]int{"kill": 3, "freeze": 4, "restart": 3},
		Details: []Violation{{Kind: violationMissing, At: "2026-12-01T12:00:10Z", Room: "chaos-1-3", UID: "ada", Session: "tab-1",
			Generation: 9, Process: -1, Seed: 19, Detail: "gone", Documents: []string{"rooms/chaos-1-3 absent"}, Trail: []string{"join …"}}}}
	md := Markdown(rep)
	for _, want := range []string{"| **0** |", "| **1** |", "| processes killed (SIGKILL) | 3 |", "| heartbeats answered 200 | 340 |",
		"**missingRosterEntry** at 2026-12-01T12:00:10Z, room `chaos-1-3`, user `ada`", "rooms/chaos-1-3 absent", "seed 19"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestChaosMarkdown_ARevisionCheckThatSawNoChangeIsNotCounted(t *testing.T) {
	rep := &Report{Violations: map[string]int{}, Counts: map[string]int64{"joins": 12}, RevisionReads: 40}
	if md := Markdown(rep); !strings.Contains(md, "| revision decreases within a room's lifetime | **not checked: 40 readings, none saw a change** |") {
		t.Fatalf("a run whose readings saw only revision 0 reports its revision check as passed:\n%s", md)
	}
	rep.MaxRevision = 7
	if md := Markdown(rep); !strings.Contains(md, "| revision decreases within a room's lifetime | **0** |") {
		t.Fatalf("a run whose readings saw revision 7 does not report its decreases:\n%s", md)
	}
}

func TestHeartbeatAttemptTimeout(t *testing.T) {
	for _, c := range []struct{ left, want time.Duration }{
		{6 * time.Second, 2 * time.Second},
		{3 * time.Second, 1500 * time.Millisecond},
		{time.Second, 500 * time.Millisecond},
		{200 * time.Millisecond, 300 * time.Millisecond},
		{-time.Second, 300 * time.Millisecond},
	} {
		if got := heartbeatAttemptTimeout(2*time.Second, c.left); got != c.want {
			t.Errorf("%v left: %v, want %v", c.left, got, c.want)
		}
	}
}
