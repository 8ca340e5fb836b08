package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// A room's departure records are folded up to a cutoff that moves a whole
// minute at a time, the same on every instance: sweeps a second apart fold
// up to the same instant, so a room gets at most one fold a minute.
func TestDeparturesFoldedBefore_MovesAMinuteAtATime(t *testing.T) {
	s := presence.DefaultSettings()
	base := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC).Add(s.RecentlyLeft + presence.DepartureFoldAfter)
	cutoffs := map[time.Time]bool{}
	for sec := range 60 {
		cutoffs[s.DeparturesFoldedBefore(base.Add(time.Duration(sec)*time.Second))] = true
	}
	if len(cutoffs) != 1 || !cutoffs[time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)] {
		t.Fatalf("a minute of sweeps folds up to %v, want 10:00:00 only", cutoffs)
	}
	if got := s.DeparturesFoldedBefore(base.Add(time.Minute)); !got.Equal(time.Date(2026, 12, 2, 10, 1, 0, 0, time.UTC)) {
		t.Fatalf("a minute later the cutoff is %v", got)
	}
	d := &presence.Departure{LeftAt: time.Date(2026, 12, 2, 9, 59, 59, 0, time.UTC)}
	if !s.Folds(base, d) || s.Folds(base, &presence.Departure{LeftAt: base.Add(-s.RecentlyLeft)}) || s.Folds(base, nil) {
		t.Fatal("Folds disagrees with the cutoff")
	}
}
