package fanout

import (
	"testing"
	"time"
)

// The checks the bench runs on its own counts must fail on the results
// that break a bound, or a run that breaks one would pass.
func TestCheck_FailsOnEachBrokenBound(t *testing.T) {
	ok := LargeResult{Participants: 10000, Joins: 200, Leaves: 200, Seconds: 20.2, DocsPerListener: 21, Summaries: 21, FullModeDocsPerChange: -1}
	if err := ok.Check(); err != nil {
		t.Fatalf("a result within the bounds failed: %v", err)
	}
	broken := map[string]func(*LargeResult){
		"nothing measured":          func(r *LargeResult) { r.Summaries = 0 },
		"two summaries a second":    func(r *LargeResult) { r.DocsPerListener = 40 },
		"an inexact count":          func(r *LargeResult) { r.Inexact = 1 },
		"full mode, two per change": func(r *LargeResult) { r.FullModeDocsPerChange = 2 },
	}
	for name, breakIt := range broken {
		r := ok
		breakIt(&r)
		if r.Check() == nil {
			t.Errorf("%s: passed", name)
		}
	}
	changes := []Result{{Change: "state update", Listeners: 100, DocsPerListener: 1}, {Change: "typing signal", Listeners: 100, DocsPerListener: 1}}
	if err := CheckChanges(changes); err != nil {
		t.Fatalf("one read per change failed: %v", err)
	}
	changes[0].DocsPerListener = 2
	if CheckChanges(changes) == nil {
		t.Error("a state update at two reads per listener passed")
	}
}

// The count a summary is checked against follows rounds of any size: m
// joins take the room up one at a time, m leaves bring it back.
func TestChurnCount_FollowsRoundsOfAnySize(t *testing.T) {
	rounds := []int64{2, 3}
	want := []int64{100, 101, 102, 101, 100, 101, 102, 103, 102, 101, 100}
	for k, w := range want {
		got, ok := churnCount(100, int64(k), rounds)
		if !ok || got != w {
			t.Errorf("after change %d: %d, %v; want %d", k, got, ok, w)
		}
	}
	for _, k := range []int64{-1, 11} {
		if got, ok := churnCount(100, k, rounds); ok {
			t.Errorf("change %d, beyond the rounds, counted as %d", k, got)
		}
	}
}

// A round carries what the seconds begun so far owe, within its bounds.
func TestRoundSize_CatchesUpWithinBounds(t *testing.T) {
	for _, c := range []struct {
		elapsed time.Duration
		done    int
		want    int
	}{
		{0, 0, 10},                        // the first round
		{time.Second, 10, 10},             // on time
		{1500 * time.Millisecond, 10, 15}, // a slow round: the next is bigger
		{300 * time.Millisecond, 20, 10},  // ahead: never fewer than a second's
		{10 * time.Second, 10, 40},        // a stall: at most four seconds' worth
	} {
		if got := roundSize(10, c.elapsed, c.done); got != c.want {
			t.Errorf("roundSize(10, %v, %d) = %d, want %d", c.elapsed, c.done, got, c.want)
		}
	}
}
