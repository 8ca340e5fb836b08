package fanout

import "testing"

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
