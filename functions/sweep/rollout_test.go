package sweep_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/testclock"
)

func percent(v float64) *float64 { return &v }

// enforcedIn returns the rooms a pass's calls tore down.
func enforcedIn(calls []string) []string {
	var out []string
	for _, c := range calls {
		if room, ok := strings.CutSuffix(strings.TrimPrefix(c, "TearDown "), " enforce=true"); ok {
			out = append(out, room)
		}
	}
	return out
}

// At a share of 50 % in enforce mode, about half of 1 000 due rooms are torn
// down, exactly those in the slice, the same ones pass after pass; the rest
// are observed; and the report splits the candidates by slice.
func TestSweeper_EnforcesASliceOfRooms(t *testing.T) {
	var ids []string
	for i := range 1000 {
		ids = append(ids, fmt.Sprintf("room-%d", i))
	}
	store := &fakeStore{due: dueRooms(ids...)}
	h := sweeperOnFake(t, store, sweep.Config{DefaultMode: sweep.Enforce, EnforceSharePercent: percent(50), BatchSize: 500})
	first := h.s.Pass(t.Context())
	enforced := enforcedIn(store.callsTo("TearDown"))
	if n := len(enforced); n < 450 || n > 550 {
		t.Fatalf("%d of 1000 rooms enforced at 50 %%", n)
	}
	for _, id := range enforced {
		if !presence.InEnforcedSlice(id, 5000) {
			t.Fatalf("%s enforced outside the slice", id)
		}
	}
	if first.CandidatesEnforced != len(enforced) || first.CandidatesObserved != 1000-len(enforced) || first.RoomsDeleted != len(enforced) {
		t.Fatalf("report %+v; want %d enforced candidates and deletions, the rest observed", first.Counts, len(enforced))
	}
	if due := store.callsTo("DueRooms"); !slices.Equal(due, []string{"DueRooms unreportedOnly=true"}) {
		t.Fatalf("listings %v: the observed rooms, once reported, must not be listed again", due)
	}
	store.calls = nil
	h.s.Pass(t.Context())
	if again := enforcedIn(store.callsTo("TearDown")); !slices.Equal(again, enforced) {
		t.Fatal("the second pass enforced other rooms")
	}

	sum := h.run()
	f := sum.Fields()
	if f["enforceSharePercent"] != 50.0 || f["candidatesEnforced"] == 0 || f["candidatesObserved"] == 0 {
		t.Fatalf("summary fields %v", f)
	}
}

// A share the sweeper does not understand means observe, as a mode it does
// not understand does: it never falls back to the default.
func TestSweeper_ShareNotUnderstoodMeansObserve(t *testing.T) {
	for name, set := range map[string]presence.ShareSetting{
		"NotANumber":  {Set: true, NotNumber: "string"},
		"Null":        {Set: true, NotNumber: "null"},
		"Negative":    {Set: true, Percent: -1},
		"AboveAll":    {Set: true, Percent: 101},
		"OnlyPercent": {Set: true, Percent: 1000},
	} {
		t.Run(name, func(t *testing.T) {
			store := &fakeStore{due: dueRooms("r1"), mode: presence.ModeSetting{Set: true, Value: "enforce", Share: set}}
			h := sweeperOnFake(t, store, sweep.Config{DefaultMode: sweep.Enforce})
			r := h.s.Pass(t.Context())
			if r.Mode != sweep.Observe || r.RoomsDeleted != 0 {
				t.Fatalf("mode %q, %+v; want observe", r.Mode, r.Counts)
			}
			if w := h.warnings(t, "roomlease/config enforceSharePercent not understood; observing"); len(w) != 1 {
				t.Fatalf("warnings %v", w)
			}
		})
	}
	t.Run("ZeroObservesEveryRoom", func(t *testing.T) {
		store := &fakeStore{due: dueRooms("r1", "r2"), mode: presence.ModeSetting{Share: presence.ShareSetting{Set: true, Percent: 0}}}
		h := sweeperOnFake(t, store, sweep.Config{DefaultMode: sweep.Enforce})
		if r := h.s.Pass(t.Context()); r.Mode != sweep.Enforce || r.RoomsDeleted != 0 || r.CandidatesObserved != 2 {
			t.Fatalf("mode %q, %+v", r.Mode, r.Counts)
		}
	})
}

// Step 7 counts each class by slice, only for candidates this sweeper
// classified, and a violation is logged at ERROR.
func TestSweeper_CountsClassifiedCandidatesBySlice(t *testing.T) {
	cand := func(room string, enforced bool) presence.Candidate {
		return presence.Candidate{RoomID: room, Enforced: enforced, CheckedAt: testclock.Start.Add(-time.Minute)}
	}
	store := &fakeStore{
		pending: []presence.Candidate{cand("gone", false), cand("back", false), cand("bad", false), cand("gone2", true),
			cand("back2", true), cand("elsewhere", true)},
		classes: map[string]presence.CandidateClass{"back": presence.ReconnectAfterCandidate, "back2": presence.ReconnectAfterCandidate,
			"bad": presence.Violation, "elsewhere": presence.Violation},
		classifiedElsewhere: map[string]bool{"elsewhere": true},
	}
	h := sweeperOnFake(t, store, sweep.Config{DefaultMode: sweep.Observe})
	r := h.s.Pass(t.Context())
	want := sweep.Counts{ConfirmedObserved: 1, ReconnectsObserved: 1, ViolationsObserved: 1, ConfirmedEnforced: 1, ReconnectsEnforced: 1}
	if r.Counts != want {
		t.Fatalf("counts %+v, want %+v", r.Counts, want)
	}
	bad := h.logs.Lines(t, map[string]any{"message": "teardown candidate classified", "class": "violation"})
	if len(bad) != 1 || bad[0]["severity"] != "ERROR" || bad[0]["roomId"] != "bad" {
		t.Fatalf("violation lines %v", bad)
	}
	if f := (sweep.Summary{Counts: r.Counts}).Fields(); f["violations"] != 1 {
		t.Fatalf("violations field %v", f["violations"])
	}
}

// On the emulator, in observe mode: a room abandoned for good is counted
// confirmed, and a room whose participant comes back within the window
// after it became a candidate is counted as a reconnect after candidate, in
// the run's log line and in roomlease/sweepStatus.
func TestSweep_ObserveCountsConfirmedAndReconnects(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{DefaultMode: sweep.Observe, RunBudget: time.Millisecond})
	f.leave(t, f.join(t, "gone", "ada", "tab"))
	f.leave(t, f.join(t, "back", "bob", "tab"))
	f.clock.Advance(f.settings.EmptyRoomGrace)
	if r := f.pass(t, s); r.CandidatesObserved != 2 || r.CandidatesEnforced != 0 {
		t.Fatalf("first pass %+v; want two observed candidates", r.Counts)
	}
	f.clock.Advance(f.settings.ReconnectWindow / 3)
	f.join(t, "back", "bob", "tab") // a reconnect: the room revives
	if r := f.pass(t, s); r.ConfirmedObserved+r.ReconnectsObserved != 0 {
		t.Fatalf("classified before the window ended: %+v", r.Counts)
	}
	f.clock.Advance(f.settings.ReconnectWindow)

	sum := s.Run(f.ctx)
	if sum.ConfirmedObserved != 1 || sum.ReconnectsObserved != 1 || sum.ViolationsObserved+sum.ViolationsEnforced != 0 {
		t.Fatalf("run %+v; want one confirmed, one reconnect", sum.Counts)
	}
	line := f.logLine(t, "sweep run")
	status := f.docData(t, "roomlease/sweepStatus")
	for _, fields := range []map[string]any{line, status} {
		if fmt.Sprint(fields["confirmedObserved"]) != "1" || fmt.Sprint(fields["reconnectsAfterCandidateObserved"]) != "1" ||
			fmt.Sprint(fields["violations"]) != "0" || fmt.Sprint(fields["confirmedEnforced"]) != "0" {
			t.Fatalf("report %v", fields)
		}
		for k, v := range fields {
			if v == "gone" || v == "back" {
				t.Fatalf("the report names a room in %s", k)
			}
		}
	}
	// Classified once: a second run counts nothing again.
	if again := s.Run(f.ctx); again.ConfirmedObserved+again.ReconnectsObserved != 0 {
		t.Fatalf("second run %+v", again.Counts)
	}
}
