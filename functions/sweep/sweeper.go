package sweep

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// maxItemFailures is how many candidates may fail in one pass before the
// pass stops and the run backs off.
const maxItemFailures = 3

// Sweeper runs sweep passes against the presence store.
type Sweeper struct {
	store Store
	cfg   Config
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	log   *slog.Logger

	// repairedThrough is how far this instance's emptiness re-checks have
	// looked (see repair). Runs on one instance may overlap, hence the
	// lock. Another instance starts from its own lookback; re-checking a
	// room twice is harmless.
	mu              sync.Mutex
	repairedThrough time.Time

	// policies is how far this instance has looked for changed room
	// policies (see enforcePolicies).
	policies policyWatermark
}

// New returns a sweeper. now and sleep are the clock; tests pass a clock
// whose sleep advances it, so no test waits for real time.
func New(store Store, cfg Config, now func() time.Time, sleep func(context.Context, time.Duration) error, log *slog.Logger) (*Sweeper, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if sleep == nil {
		sleep = SleepContext
	}
	return &Sweeper{store: store, cfg: cfg.withDefaults(), now: now, sleep: sleep, log: log}, nil
}

// SleepContext waits for d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mode returns the mode in force: the operator's, else the default. An
// unreadable operator setting, or one the sweeper does not understand (not
// a string, not one of the three modes: a boolean typed into the console,
// "", "Enforce"), falls back to the safest choice that still keeps rosters
// right, observe, and is logged at WARNING on every pass until it is fixed.
// It never falls back to the default: that may be enforce, and an operator
// who wrote something there meant to change it.
func (s *Sweeper) mode(ctx context.Context) (Mode, error) {
	set, err := s.store.CleanupMode(ctx)
	if err != nil {
		return Observe, err
	}
	if !set.Set {
		return s.cfg.DefaultMode, nil
	}
	m, err := ParseSetting(set)
	if err != nil {
		s.log.WarnContext(ctx, "roomlease/config cleanupMode not understood; observing", "component", "sweeper",
			"error", err.Error(), "mode", string(Observe))
		return Observe, nil
	}
	return m, nil
}

// Pass runs one bounded pass. A failed listing ends the pass: nothing after
// a failed read is acted upon. A failed step on one candidate is counted and
// skipped (see itemFailed), up to maxItemFailures in a pass.
func (s *Sweeper) Pass(ctx context.Context) PassReport {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.PassTimeout)
	defer cancel()
	var r PassReport
	fail := func(step string, err error) PassReport {
		r.FailedSteps++
		r.Err = &stepError{step: step, err: err}
		return r
	}
	// itemFailed records a failed step on one candidate (one session, one
	// room) and says whether the pass must stop. Each candidate is its own
	// transaction that re-checks everything it acts on, so skipping one
	// acts on nothing unverified; stopping at the first would let a single
	// candidate that keeps failing (listed oldest first, so first on every
	// pass) hold up every other room's cleanup. A pass whose time is up, or
	// several failures in one pass, look like Firestore itself failing:
	// then the pass stops and the run backs off.
	itemFailed := func(step string, err error) bool {
		r.FailedSteps++
		failure := &stepError{step: step, err: err}
		if ctx.Err() != nil || r.FailedSteps >= maxItemFailures {
			r.Err = failure
			return true
		}
		r.ItemErr = failure
		// The full error names the candidate's documents: this line, not
		// the run's summary, is where it may appear (see failure.go).
		s.log.WarnContext(ctx, "sweep step failed; went on with the next candidate", "component", "sweeper",
			"error", failure.Error())
		return false
	}
	// 1. The cleanup mode (steps as in the package comment).
	mode, err := s.mode(ctx)
	r.Mode = mode
	if err != nil {
		return fail("reading the cleanup mode", err)
	}
	now := s.now()

	// 2. Leases. Bookkeeping, done in every mode: rosters must stay true
	// even with the kill switch on.
	expired, err := s.store.ExpiredSessions(ctx, now, s.cfg.BatchSize)
	if err != nil {
		return fail("listing expired sessions", err)
	}
	s.skip(ctx, &r, expired.Undecodable)
	r.Backlog = expired.Len() == s.cfg.BatchSize
	for _, c := range expired.Items {
		res, err := s.store.ExpireSession(ctx, c)
		if err != nil {
			if itemFailed("expiring a session", err) {
				return r
			}
			continue
		}
		switch res.Outcome {
		case presence.Done:
			r.SessionsExpired++
			if res.RoomSuspected {
				r.RoomsSuspected++
			}
		case presence.Conflict:
			r.GenerationConflicts++
		}
	}

	// 3. Room policies changed since the last pass: whoever they no longer
	// admit leaves, within one pass of the change. Bookkeeping too, so in
	// every mode.
	if err := s.enforcePolicies(ctx, &r, now, itemFailed); errors.Is(err, errPassStopped) {
		return r
	} else if err != nil {
		return fail("listing changed room policies", err)
	}

	// 4. Typing signals.
	typing, err := s.store.ExpiredTyping(ctx, now, s.cfg.BatchSize)
	if err != nil {
		return fail("listing expired typing", err)
	}
	s.skip(ctx, &r, typing.Undecodable)
	r.Backlog = r.Backlog || typing.Len() == s.cfg.BatchSize
	for _, c := range typing.Items {
		out, err := s.store.ClearTyping(ctx, c)
		if err != nil {
			if itemFailed("clearing typing", err) {
				return r
			}
			continue
		}
		if out == presence.Done {
			r.TypingCleared++
		}
	}

	// 5. Rooms past their grace. A sweeper that deletes nothing (observe,
	// off) reports each room once and marks it, so that it pages through
	// them instead of reading the same ones on every pass.
	due, err := s.store.DueRooms(ctx, now, s.cfg.BatchSize, mode != Enforce)
	if err != nil {
		return fail("listing due rooms", err)
	}
	s.skip(ctx, &r, due.Undecodable)
	r.Backlog = r.Backlog || due.Len() == s.cfg.BatchSize
	for _, room := range due.Items {
		if age := now.Sub(room.CleanupAfter); age > r.OldestEligibleAge {
			r.OldestEligibleAge = age
		}
		if mode == Off {
			marked, err := s.store.MarkReported(ctx, presence.CandidateOf(room))
			if err != nil {
				if itemFailed("reporting a due room", err) {
					return r
				}
				continue
			}
			if marked {
				r.RoomsEligible++
			}
			continue
		}
		if err := s.teardown(ctx, &r, room, mode == Enforce); err != nil && itemFailed("checking a room for teardown", err) {
			return r
		}
	}

	// 6. Finish teardowns: this pass's and any a crashed sweeper left.
	if mode == Enforce {
		// A teardown whose purge fails is one failed item: the others were
		// finished, and the failing one stays pending for the next pass.
		n, err := s.store.PurgeClosed(ctx, s.cfg.BatchSize)
		r.RoomsPurged = n
		if err != nil && itemFailed("purging torn-down rooms", err) {
			return r
		}
		r.Backlog = r.Backlog || n == s.cfg.BatchSize
	}
	return r
}

// skip reports listed documents that are not presence data: counted, logged
// with their path for an operator to look at, and otherwise left alone.
func (s *Sweeper) skip(ctx context.Context, r *PassReport, paths []string) {
	r.SkippedDocuments += len(paths)
	for _, p := range paths {
		s.log.WarnContext(ctx, "skipped a document that is not presence data", "component", "sweeper", "path", p)
	}
}

func (s *Sweeper) teardown(ctx context.Context, r *PassReport, room presence.Room, enforce bool) error {
	c := presence.CandidateOf(room)
	res, err := s.store.TearDown(ctx, c, enforce)
	if err != nil {
		return err
	}
	switch res.Verdict {
	case presence.TearDown:
		r.RoomsEligible++
		r.Candidates = append(r.Candidates, room.ID)
		evidence := []any{"component", "sweeper", "roomId", room.ID, "generation", room.Generation,
			"emptySince", room.EmptySince, "cleanupAfter", room.CleanupAfter, "liveLeases", res.LiveLeases}
		if res.Closing != nil {
			r.RoomsDeleted++
			r.Deleted = append(r.Deleted, room.ID)
			r.CleanupLags = append(r.CleanupLags, res.Closing.CleanupLag())
			s.log.DebugContext(ctx, "room torn down", append(evidence, "cleanupLagSeconds", res.Closing.CleanupLag().Seconds())...)
		} else {
			s.log.DebugContext(ctx, "room would be torn down (observe mode)", evidence...)
		}
	case presence.GenerationChanged:
		r.GenerationConflicts++
		s.log.DebugContext(ctx, "teardown lost to a newer generation", "component", "sweeper", "roomId", room.ID, "generation", room.Generation)
	case presence.LeasesLive:
		r.RoomsRepaired++
		s.log.DebugContext(ctx, "room suspected empty held live leases; reactivated", "component", "sweeper", "roomId", room.ID)
	}
	return nil
}

// Run sweeps until its budget is spent or ctx ends, then logs one summary
// line and stores it at roomlease/sweepStatus. Overlapping runs (a scheduler
// retry, the next minute's run) are safe. A run makes at least one pass.
func (s *Sweeper) Run(ctx context.Context) Summary {
	sum := Summary{Started: s.now(), Mode: s.cfg.DefaultMode}
	deadline := sum.Started.Add(s.cfg.RunBudget)
	backoff := time.Duration(0)

	s.repair(ctx, &sum)

	for {
		p := s.Pass(ctx)
		sum.add(p)
		var wait time.Duration
		if p.Err != nil {
			// Fail closed and back off: 1 s, 2 s, 4 s … up to MaxBackoff.
			backoff = min(max(2*backoff, time.Second), s.cfg.MaxBackoff)
			wait = backoff
			// The full error, which may name rooms and users, goes to
			// this line only; the summary carries its redacted form.
			s.log.WarnContext(ctx, "sweep pass failed; backing off", "component", "sweeper",
				"error", p.Err.Error(), "backoffSeconds", wait.Seconds())
		} else {
			backoff = 0
			wait = s.nextWait(ctx, p)
		}
		now := s.now()
		if ctx.Err() != nil || !now.Add(wait).Before(deadline) {
			break
		}
		if err := s.sleep(ctx, wait); err != nil {
			break
		}
	}
	sum.Finished = s.now()
	s.report(ctx, sum)
	return sum
}

// repair re-checks rooms that a departing request may have left active with
// an empty roster (it died between its commit and its own check). It runs
// once per run, not per pass: such rooms are rare, and the grace counts from
// the departure, not from when the re-check comes. Like a pass it is bounded
// in time: Firestore's client retries an unavailable backend until the
// deadline.
func (s *Sweeper) repair(ctx context.Context, sum *Summary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.PassTimeout)
	defer cancel()
	if s.repairedThrough.IsZero() {
		// A new sweeper looks back RepairLookback, or further, to where
		// the sweepers before it got: after an outage longer than the
		// lookback, the marks left meanwhile are still re-checked.
		s.repairedThrough = sum.Started.Add(-s.cfg.RepairLookback)
		if saved, err := s.store.RepairWatermark(ctx); err == nil && !saved.IsZero() && saved.Before(s.repairedThrough) {
			s.repairedThrough = saved
		}
	}
	rep, err := s.store.RepairEmptyActive(ctx, s.repairedThrough, s.cfg.BatchSize)
	sum.RoomsRepaired += rep.Repaired
	if rep.Through.After(s.repairedThrough) {
		s.repairedThrough = rep.Through
	}
	if err != nil {
		failure := &stepError{step: "re-checking rooms that may have emptied unnoticed", err: err}
		sum.FailedSteps += max(rep.Failed, 1)
		sum.LastError = Redacted(failure)
		s.log.WarnContext(ctx, "sweep repair failed", "component", "sweeper", "error", failure.Error())
	}
}

// nextWait sleeps until the next deadline, clamped to [MinWait, MaxWait];
// with a backlog it only takes the minimum breath.
func (s *Sweeper) nextWait(ctx context.Context, p PassReport) time.Duration {
	if p.Backlog {
		return s.cfg.MinWait
	}
	// Rooms an observing sweeper has reported stay due; their deadlines,
	// in the past, must not wake it again at once.
	next, err := s.store.NextDeadline(ctx, p.Mode != Enforce)
	if err != nil || next.IsZero() {
		return s.cfg.MaxWait
	}
	// Wake just after the deadline: a lease is live strictly before it.
	wait := next.Sub(s.now()) + time.Millisecond
	return min(max(wait, s.cfg.MinWait), s.cfg.MaxWait)
}

func (s *Sweeper) report(ctx context.Context, sum Summary) {
	fields := sum.Fields()
	level := slog.LevelInfo
	if sum.FailedSteps > 0 {
		level = slog.LevelWarn
	}
	args := make([]any, 0, 2*len(fields))
	for k, v := range fields {
		args = append(args, k, v)
	}
	s.log.Log(ctx, level, "sweep run", args...)
	status := fields
	status["finishedAt"] = sum.Finished
	// The status document is best effort: a failure here must not hide the
	// run's own report, which is already logged.
	// It gets its own short deadline, and survives the run's cancellation.
	statusCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.PassTimeout)
	defer cancel()
	if err := s.store.WriteSweepStatus(statusCtx, status); err != nil && !errors.Is(err, context.Canceled) {
		s.log.WarnContext(ctx, "could not write the sweep status", "component", "sweeper", "error", err.Error())
	}
}
