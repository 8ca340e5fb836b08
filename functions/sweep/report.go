package sweep

import (
	"slices"
	"time"
)

// PassReport is what one pass did. Room ids appear only in Candidates and
// Deleted, which go to per-room debug lines, never into the summary line
// that log-based metrics read.
type PassReport struct {
	Mode                Mode
	SessionsExpired     int
	RoomsSuspected      int
	TypingCleared       int
	RoomsEligible       int // proven empty and past the grace (or, in off mode, due)
	RoomsDeleted        int
	RoomsRepaired       int
	RoomsPurged         int
	GenerationConflicts int
	CleanupLags         []time.Duration
	OldestEligibleAge   time.Duration
	Candidates          []string // rooms that would be (observe) or were (enforce) torn down
	Deleted             []string
	Backlog             bool // a row limit was hit: more work is waiting
	LeaseCheckFailures  int
	Err                 error
}

// Summary adds up the passes of one run.
type Summary struct {
	Mode                Mode
	Passes              int
	SessionsExpired     int
	RoomsSuspected      int
	TypingCleared       int
	RoomsEligible       int
	RoomsDeleted        int
	RoomsRepaired       int
	GenerationConflicts int
	LeaseCheckFailures  int
	CleanupLags         []time.Duration
	OldestEligibleAge   time.Duration
	LastError           string
	Started, Finished   time.Time
}

func (s *Summary) add(p PassReport) {
	s.Mode = p.Mode
	s.Passes++
	s.SessionsExpired += p.SessionsExpired
	s.RoomsSuspected += p.RoomsSuspected
	s.TypingCleared += p.TypingCleared
	s.RoomsEligible += p.RoomsEligible
	s.RoomsDeleted += p.RoomsDeleted
	s.RoomsRepaired += p.RoomsRepaired
	s.GenerationConflicts += p.GenerationConflicts
	s.LeaseCheckFailures += p.LeaseCheckFailures
	s.CleanupLags = append(s.CleanupLags, p.CleanupLags...)
	// The latest pass knows best how old the oldest waiting room is.
	s.OldestEligibleAge = p.OldestEligibleAge
	if p.Err != nil {
		s.LastError = p.Err.Error()
	}
}

// Fields are the summary's structured-log fields, in the names the
// Terraform log-based metrics extract (jsonPayload.<name>).
func (s Summary) Fields() map[string]any {
	maxLag, medianLag := lagStats(s.CleanupLags)
	f := map[string]any{
		"component":                    "sweeper",
		"mode":                         string(s.Mode),
		"passes":                       s.Passes,
		"sessionsExpired":              s.SessionsExpired,
		"roomsSuspected":               s.RoomsSuspected,
		"typingCleared":                s.TypingCleared,
		"roomsEligible":                s.RoomsEligible,
		"roomsDeleted":                 s.RoomsDeleted,
		"roomsRepaired":                s.RoomsRepaired,
		"generationConflicts":          s.GenerationConflicts,
		"leaseCheckFailures":           s.LeaseCheckFailures,
		"cleanupLagMaxSeconds":         maxLag.Seconds(),
		"cleanupLagMedianSeconds":      medianLag.Seconds(),
		"oldestEligibleRoomAgeSeconds": s.OldestEligibleAge.Seconds(),
		"durationSeconds":              s.Finished.Sub(s.Started).Seconds(),
	}
	if s.LastError != "" {
		f["lastError"] = s.LastError
	}
	return f
}

func lagStats(lags []time.Duration) (maxLag, median time.Duration) {
	if len(lags) == 0 {
		return 0, 0
	}
	sorted := slices.Clone(lags)
	slices.Sort(sorted)
	n := len(sorted)
	median = sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return sorted[n-1], median
}
