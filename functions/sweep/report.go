package sweep

import (
	"slices"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// Counts are the counters of the summary line: what one pass did, and, added
// up, what a run's passes did. PassReport and Summary both embed them, so the
// set is declared once and added up in one place.
type Counts struct {
	SessionsExpired int
	RoomsSuspected  int
	TypingCleared   int
	// DeparturesFolded counts departure records folded into their rooms'
	// retired counts (firestoredb/fold.go).
	DeparturesFolded    int
	RoomsEligible       int // proven empty and past the grace (or, in off mode, due)
	RoomsDeleted        int
	RoomsRepaired       int
	RoomsPurged         int // teardowns whose documents were all deleted
	GenerationConflicts int
	// ParticipantsEvicted counts users removed from a roster because a
	// changed room policy no longer admits them.
	ParticipantsEvicted int
	// EventsRelayed counts events the relay published from the outbox:
	// none while every instance publishes its own commits.
	EventsRelayed int
	// FailedSteps counts steps of a pass that failed (a read, a
	// transaction, the mode lookup). A failed listing ends its pass; a
	// failed step on one candidate is skipped, unless too many fail.
	FailedSteps int
	// SkippedDocuments counts listed documents that did not read as
	// candidates (another app's data in a shared collection group, a hand
	// edit); each is logged with its path and the pass goes on.
	SkippedDocuments int
	// The rollout's evidence (rollout.go), split by slice: teardown
	// candidates recorded by this run's checks, and candidates it
	// classified (each counted by one sweeper only).
	CandidatesObserved, CandidatesEnforced int
	ConfirmedObserved, ConfirmedEnforced   int
	ReconnectsObserved, ReconnectsEnforced int
	ViolationsObserved, ViolationsEnforced int
}

// named lists each counter once, with its name in the summary line (the
// names the Terraform log-based metrics extract, jsonPayload.<name>).
func (c *Counts) named() []struct {
	name string
	n    *int
} {
	return []struct {
		name string
		n    *int
	}{
		{"sessionsExpired", &c.SessionsExpired},
		{"roomsSuspected", &c.RoomsSuspected},
		{"typingCleared", &c.TypingCleared},
		{"departuresFolded", &c.DeparturesFolded},
		{"roomsEligible", &c.RoomsEligible},
		{"roomsDeleted", &c.RoomsDeleted},
		{"roomsRepaired", &c.RoomsRepaired},
		{"roomsPurged", &c.RoomsPurged},
		{"generationConflicts", &c.GenerationConflicts},
		{"participantsEvicted", &c.ParticipantsEvicted},
		{"eventsRelayed", &c.EventsRelayed},
		{"failedSteps", &c.FailedSteps},
		{"skippedDocuments", &c.SkippedDocuments},
		{"candidatesObserved", &c.CandidatesObserved},
		{"candidatesEnforced", &c.CandidatesEnforced},
		{"confirmedObserved", &c.ConfirmedObserved},
		{"confirmedEnforced", &c.ConfirmedEnforced},
		{"reconnectsAfterCandidateObserved", &c.ReconnectsObserved},
		{"reconnectsAfterCandidateEnforced", &c.ReconnectsEnforced},
		{"violationsObserved", &c.ViolationsObserved},
		{"violationsEnforced", &c.ViolationsEnforced},
	}
}

func (c *Counts) add(o Counts) {
	mine, theirs := c.named(), o.named()
	for i := range mine {
		*mine[i].n += *theirs[i].n
	}
}

// PassReport is what one pass did. Room ids appear only in Candidates and
// Deleted, which go to per-room debug lines, never into the summary line
// that log-based metrics read.
type PassReport struct {
	Counts
	Mode              Mode
	Share             int // the enforced share in basis points (rollout.go)
	CleanupLags       []time.Duration
	OldestEligibleAge time.Duration
	Candidates        []string // rooms that would be (observe) or were (enforce) torn down
	Deleted           []string
	Backlog           bool // a row limit was hit: more work is waiting
	// EventsPending and OldestEventAge are what the relay found in the
	// events outbox: how many records, and the age of the oldest.
	EventsPending  int
	OldestEventAge time.Duration
	// Err says the pass stopped early (the run then backs off); ItemErr is
	// the last failure of a candidate that the pass skipped.
	Err     error
	ItemErr error
}

// merge adds what one candidate's act (forEach), or a step beside the pass
// (Pass), recorded to the pass's report: counts, lags, rooms and pending
// events add up, the oldest ages are the larger, and a backlog anywhere is
// the pass's.
func (r *PassReport) merge(o PassReport) {
	r.Counts.add(o.Counts)
	r.CleanupLags = append(r.CleanupLags, o.CleanupLags...)
	r.Candidates = append(r.Candidates, o.Candidates...)
	r.Deleted = append(r.Deleted, o.Deleted...)
	r.OldestEligibleAge = max(r.OldestEligibleAge, o.OldestEligibleAge)
	r.EventsPending += o.EventsPending
	r.OldestEventAge = max(r.OldestEventAge, o.OldestEventAge)
	r.Backlog = r.Backlog || o.Backlog
}

// Summary adds up the passes of one run.
type Summary struct {
	Counts
	Mode              Mode
	Share             int // the latest pass's enforced share, basis points
	Passes            int
	CleanupLags       []time.Duration
	OldestEligibleAge time.Duration
	// EventsPending and OldestEventAge are the latest pass's (see
	// PassReport); OldestEventAge is the alarm of docs/events.md.
	EventsPending  int
	OldestEventAge time.Duration
	// LastError is the latest failure's redacted form (Redacted): the step
	// and a code, never the error's text, which names rooms and users.
	LastError         string
	Started, Finished time.Time
}

func (s *Summary) add(p PassReport) {
	s.Mode, s.Share = p.Mode, p.Share
	s.Passes++
	s.Counts.add(p.Counts)
	s.CleanupLags = append(s.CleanupLags, p.CleanupLags...)
	// The latest pass knows best how old the oldest waiting room is.
	s.OldestEligibleAge = p.OldestEligibleAge
	s.EventsPending, s.OldestEventAge = p.EventsPending, p.OldestEventAge
	if p.ItemErr != nil {
		s.LastError = Redacted(p.ItemErr)
	}
	if p.Err != nil {
		s.LastError = Redacted(p.Err)
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
		"cleanupLagMaxSeconds":         maxLag.Seconds(),
		"cleanupLagMedianSeconds":      medianLag.Seconds(),
		"oldestEligibleRoomAgeSeconds": s.OldestEligibleAge.Seconds(),
		"durationSeconds":              s.Finished.Sub(s.Started).Seconds(),
		"enforceSharePercent":          float64(s.Share) * 100 / presence.FullShare,
		// Both slices' violations, for the alert that must never fire.
		"violations": s.ViolationsObserved + s.ViolationsEnforced,
	}
	// The events outbox: an alarm on the age, long before its TTL.
	f["eventsPending"], f["oldestUnpublishedEventAgeSeconds"] = s.EventsPending, s.OldestEventAge.Seconds()
	for _, c := range s.Counts.named() {
		f[c.name] = *c.n
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
