package sweep

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Sweeper runs sweep passes against the presence store.
type Sweeper struct {
	// steps are a pass (passSteps), and beside the steps that run at the
	// same time (Pass); the run around the passes needs the other three
	// ports.
	steps     []step
	beside    []step
	repairs   Repairer
	deadlines DeadlineFinder
	status    StatusWriter

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
	cfg = cfg.withDefaults()
	s := &Sweeper{repairs: store, deadlines: store, status: store, cfg: cfg, now: now, sleep: sleep, log: log}
	s.steps = passSteps(store, cfg, now, &s.policies)
	return s, nil
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
		if saved, err := s.repairs.RepairWatermark(ctx); err == nil && !saved.IsZero() && saved.Before(s.repairedThrough) {
			s.repairedThrough = saved
		}
	}
	rep, err := s.repairs.RepairEmptyActive(ctx, s.repairedThrough, s.cfg.BatchSize)
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
	next, err := s.deadlines.NextDeadline(ctx, p.unreportedOnly())
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
	if err := s.status.WriteSweepStatus(statusCtx, status); err != nil && !errors.Is(err, context.Canceled) {
		s.log.WarnContext(ctx, "could not write the sweep status", "component", "sweeper", "error", err.Error())
	}
}
