package fleet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/roomlease/roomlease/bench/workload"
)

func TestSummarizeBurst(t *testing.T) {
	t.Run("CountsSuccessesAndEveryOutcome", func(t *testing.T) {
		var attempts []Attempt
		for i := range 98 {
			attempts = append(attempts, Attempt{OK: true, Outcome: "200", Ms: float64(i + 1)})
		}
		attempts = append(attempts, Attempt{Outcome: "503 unavailable", Ms: 500}, Attempt{Outcome: "timeout", Ms: 10003})
		s := SummarizeBurst(attempts, 10000)
		if s.Attempts != 100 || s.OK != 98 || s.Outcomes["200"] != 98 || s.Outcomes["timeout"] != 1 || s.Outcomes["503 unavailable"] != 1 {
			t.Fatalf("%+v", s)
		}
		// Failures count at the moment they failed: p99 is the 503's 500 ms,
		// not the best success, and the maximum is the timeout.
		if s.Latency.P99 != 500 || s.P99Censored || !s.MaxCensored || s.Latency.Max != 10003 {
			t.Fatalf("p99 %v (censored %v), max %v (censored %v)", s.Latency.P99, s.P99Censored, s.Latency.Max, s.MaxCensored)
		}
	})
	t.Run("MostlyTimedOutIsALowerBound", func(t *testing.T) {
		attempts := []Attempt{{OK: true, Outcome: "200", Ms: 900}, {Outcome: "timeout", Ms: 10000}, {Outcome: "timeout", Ms: 10001}}
		s := SummarizeBurst(attempts, 10000)
		if !s.P50Censored || !s.P99Censored || s.OK != 1 {
			t.Fatalf("%+v", s)
		}
	})
	t.Run("SummarizesTheServersStepsOfAnsweredRequests", func(t *testing.T) {
		attempts := []Attempt{
			{OK: true, Outcome: "200", Ms: 30, Steps: map[string]float64{"join-txn": 20, "join-size": 5}},
			{OK: true, Outcome: "200", Ms: 50, Steps: map[string]float64{"join-txn": 40}},
			{Outcome: "timeout", Ms: 10000},
		}
		s := SummarizeBurst(attempts, 10000)
		if s.Steps["join-txn"].N != 2 || s.Steps["join-txn"].Max != 40 || s.Steps["join-size"].N != 1 {
			t.Fatalf("steps %+v", s.Steps)
		}
		if md := stepCell(s.Steps["join-size"], true); !strings.Contains(md, "(1)") {
			t.Fatalf("step cell %q", md)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		s := SummarizeBurst(nil, 10000)
		if s.Attempts != 0 || s.P99Censored || s.Latency.N != 0 {
			t.Fatalf("%+v", s)
		}
	})
}

func TestCompareP99(t *testing.T) {
	burstAt := func(p99 float64, censored bool) BurstSummary {
		return BurstSummary{Latency: workload.Summary{N: 1, P99: p99}, P99Censored: censored}
	}
	for name, c := range map[string]struct {
		one, sep  BurstSummary
		ratio     float64
		wantBound string
	}{
		"BothMeasured":             {burstAt(3000, false), burstAt(2000, false), 1.5, ""},
		"OneRoomTimedOut":          {burstAt(10000, true), burstAt(2500, false), 4, ">="},
		"FloorTimedOut":            {burstAt(5000, false), burstAt(10000, true), 0.5, "<="},
		"BothTimedOut":             {burstAt(10000, true), burstAt(10000, true), 1, "?"},
		"NoFloorGivesZeroNotInf":   {burstAt(3000, false), BurstSummary{}, 0, ""},
		"SharedRoomFasterIsBelow1": {burstAt(1000, false), burstAt(4000, false), 0.25, ""},
	} {
		t.Run(name, func(t *testing.T) {
			r, bound := CompareP99(c.one, c.sep)
			if r != c.ratio || bound != c.wantBound {
				t.Fatalf("ratio %v bound %q, want %v %q", r, bound, c.ratio, c.wantBound)
			}
		})
	}
}

func TestCheckRoster(t *testing.T) {
	crowd := []string{"a", "b", "c", "d"}
	entry := func(id string, sessions int) RosterEntry {
		return RosterEntry{ParticipantID: id, SessionCount: sessions}
	}
	t.Run("OK", func(t *testing.T) {
		c := CheckRoster(crowd, []string{"a", "b"}, []RosterEntry{entry("a", 1), entry("b", 1)}, 2)
		if !c.OK || c.Listed != 2 || c.Acknowledged != 2 {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("LateCommitOfATimedOutJoinIsAllowedAndCounted", func(t *testing.T) {
		c := CheckRoster(crowd, []string{"a"}, []RosterEntry{entry("a", 1), entry("c", 1)}, 2)
		if !c.OK || c.LateListed != 1 {
			t.Fatalf("%+v", c)
		}
	})
	for name, c := range map[string]struct {
		acked     []string
		roster    []RosterEntry
		entries   int
		wantWords string
	}{
		"ErrAcknowledgedJoinLost":   {[]string{"a", "b"}, []RosterEntry{entry("a", 1)}, 1, "acknowledged joins are not on the roster"},
		"ErrSessionCountTwo":        {[]string{"a"}, []RosterEntry{entry("a", 2)}, 1, "sessionCount other than 1"},
		"ErrEntriesDisagree":        {[]string{"a"}, []RosterEntry{entry("a", 1)}, 2, "Firestore holds 2 roster entries"},
		"ErrStrangerListed":         {[]string{"a"}, []RosterEntry{entry("a", 1), entry("z", 1)}, 2, "not in the crowd"},
		"ErrParticipantListedTwice": {[]string{"a"}, []RosterEntry{entry("a", 1), entry("a", 1)}, 2, "listed twice"},
	} {
		t.Run(name, func(t *testing.T) {
			got := CheckRoster(crowd, c.acked, c.roster, c.entries)
			if got.OK || !strings.Contains(strings.Join(got.Problems, "; "), c.wantWords) {
				t.Fatalf("want a problem with %q, got %+v", c.wantWords, got)
			}
		})
	}
}

func TestCheckEmpty(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c := CheckEmpty([]string{"active", "active", "suspected_empty"}, 7, 7, 0)
		if !c.OK || c.Transitions != 1 {
			t.Fatalf("%+v", c)
		}
	})
	for name, c := range map[string]struct {
		states    []string
		genAfter  int64
		remaining int
		wantWords string
	}{
		"ErrNeverEmptied":                  {[]string{"active"}, 7, 0, "ended \"active\""},
		"ErrEmptiedTwice":                  {[]string{"active", "suspected_empty", "active", "suspected_empty"}, 8, 0, "2 times"},
		"ErrRevivalHiddenBetweenSnapshots": {[]string{"active", "suspected_empty"}, 8, 0, "generation moved"},
		"ErrEntriesLeft":                   {[]string{"active", "suspected_empty"}, 7, 3, "3 roster entries remain"},
		"ErrRoomVanished":                  {[]string{"active", "absent", "suspected_empty"}, 7, 0, "vanished"},
		"ErrAlreadyEmptyBefore":            {[]string{"suspected_empty"}, 7, 0, "0 times"},
	} {
		t.Run(name, func(t *testing.T) {
			got := CheckEmpty(c.states, 7, c.genAfter, c.remaining)
			if got.OK || !strings.Contains(strings.Join(got.Problems, "; "), c.wantWords) {
				t.Fatalf("want a problem with %q, got %+v", c.wantWords, got)
			}
		})
	}
}

func TestFleetMarkdownMarksTimeouts(t *testing.T) {
	one := Case{Processes: 4, Crowd: 2, Rooms: "one",
		Join:  SummarizeBurst([]Attempt{{OK: true, Outcome: "200", Ms: 100}, {Outcome: "timeout", Ms: 10000}}, 10000),
		Leave: SummarizeBurst([]Attempt{{OK: true, Outcome: "200", Ms: 100}}, 10000)}
	sep := Case{Processes: 4, Crowd: 2, Rooms: "separate",
		Join:  SummarizeBurst([]Attempt{{OK: true, Outcome: "200", Ms: 50}, {OK: true, Outcome: "200", Ms: 50}}, 10000),
		Leave: SummarizeBurst([]Attempt{{OK: true, Outcome: "200", Ms: 50}}, 10000)}
	rep := &Report{Processes: []int{4}, Crowds: []int{2}, Cases: []Case{one, sep}}
	rep.Ratios = ratios(rep.Cases)
	md := Markdown(rep)
	for _, want := range []string{"| 4 | 2 | join | 1 / 2 |", "≥ 10.0 s", "≥ 200.00", "| 4 | 2 | leave | 1 / 1 |", "2.00 |", "timeout × 1"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if svg := Plot(rep); strings.Contains(svg, "NaN") || strings.Count(svg, "<polyline") != 4 {
		t.Errorf("plot: %d lines or NaN coordinates", strings.Count(svg, "<polyline"))
	}
}

// A step a request reports only when it took it (leave-retried) is shown
// as "none of N" where no answered leave took it, not left out.
func TestFleetMarkdownCountsAStepNoneTook(t *testing.T) {
	leave := func(retried bool) Attempt {
		a := Attempt{OK: true, Outcome: "200", Ms: 100, Steps: map[string]float64{"leave-txn": 80}}
		if retried {
			a.Steps["leave-retried"] = 30
		}
		return a
	}
	join := SummarizeBurst([]Attempt{{OK: true, Outcome: "200", Ms: 100}}, 10000)
	one := Case{Processes: 2, Crowd: 3, Rooms: "one", Join: join,
		Leave: SummarizeBurst([]Attempt{leave(false), leave(false), leave(false)}, 10000)}
	sep := Case{Processes: 2, Crowd: 3, Rooms: "separate", Join: join,
		Leave: SummarizeBurst([]Attempt{leave(true), leave(false)}, 10000)}
	rep := &Report{Processes: []int{2}, Crowds: []int{3}, Cases: []Case{one, sep}}
	rep.Ratios = ratios(rep.Cases)
	md := Markdown(rep)
	if want := "| 2 | 3 | leave-retried | none of 3 | 30.0 ms / 30.0 ms (1) |"; !strings.Contains(md, want) {
		t.Fatalf("markdown lacks %q:\n%s", want, md)
	}
}

// Past the gates: an answered request's latency less its gates step, over
// the answered requests that timed it; a failure and an answer without
// Server-Timing are left out. The report compares the two cases on it.
func TestPastTheGates(t *testing.T) {
	ok := func(ms, gates float64) Attempt {
		return Attempt{OK: true, Outcome: "200", Ms: ms, Steps: map[string]float64{"gates": gates, "join-txn": ms - gates}}
	}
	one := SummarizeBurst([]Attempt{ok(1000, 600), ok(3000, 1000), {Outcome: "timeout", Ms: 10000},
		{OK: true, Outcome: "200", Ms: 9000}}, 10000)
	if one.PastGates == nil || one.PastGates.N != 2 || one.PastGates.Max != 2000 || one.PastGates.P50 != 400 {
		t.Fatalf("past the gates %+v: want 400 and 2000 ms, from the two answers that timed their gates", one.PastGates)
	}
	sep := SummarizeBurst([]Attempt{ok(900, 700), ok(2500, 2000)}, 10000)
	if none := SummarizeBurst([]Attempt{{OK: true, Outcome: "200", Ms: 10}}, 10000); none.PastGates != nil {
		t.Fatalf("no gates timed, past the gates %+v: want none", none.PastGates)
	}
	rep := &Report{Processes: []int{8}, Crowds: []int{2}, Cases: []Case{
		{Processes: 8, Crowd: 2, Rooms: "one", Join: one, Leave: one},
		{Processes: 8, Crowd: 2, Rooms: "separate", Join: sep, Leave: sep}}}
	rep.Ratios = ratios(rep.Cases)
	md := Markdown(rep)
	want := fmt.Sprintf("| 8 | 2 | join | %s | %s | %.2f |", pastGatesCell(*one.PastGates), pastGatesCell(*sep.PastGates), one.PastGates.P99/sep.PastGates.P99)
	if !strings.Contains(md, "Past the gates") || !strings.Contains(md, want) {
		t.Fatalf("markdown lacks %q:\n%s", want, md)
	}
	if r := one.PastGates.P99 / sep.PastGates.P99; r < 3 {
		t.Fatalf("ratio past the gates %.2f: the one room's 2 s against the floor's 0.5 s should give about 4", r)
	}
}
