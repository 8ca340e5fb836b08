package sweep

import (
	"cmp"
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

// errPassStopped says that failures of candidates ended the pass; they are
// already in the pass's report (see itemFailed).
var errPassStopped = errors.New("the pass stopped at a failed step")

// pass is one pass in progress: what its steps share, and its report.
type pass struct {
	ctx  context.Context
	cfg  Config
	log  *slog.Logger
	mode Mode
	// share is the enforced share in basis points: in enforce mode, rooms
	// in the slice (presence.InEnforcedSlice) are torn down, the rest
	// observed.
	share int
	now   time.Time // read once the mode is known; every step lists as of it

	// mu guards r while candidates are acted on at once (forEach): each
	// records into a report of its own, added to r as it finishes.
	mu sync.Mutex
	r  PassReport
}

// step is one step of a pass. It returns nil to go on with the next step,
// a *stepError when a read it needed failed, or errPassStopped when
// itemFailed ended the pass.
type step func(p *pass) error

// passSteps are the steps of every pass, in order, as the package comment
// numbers them; each is given only its own port.
func passSteps(store Store, cfg Config, now func() time.Time, policies *policyWatermark) []step {
	return []step{
		readMode(store, cfg, now),        // 1. the cleanup mode
		expireLeases(store),              // 2. leases
		enforcePolicies(store, policies), // 3. changed room policies
		clearTyping(store),               // 4. typing signals
		foldDepartures(store),            //    and departure records
		checkDueRooms(store),             // 5. rooms past their grace
		purgeClosed(store),               // 6. finishing teardowns
		classifyCandidates(store),        // 7. teardown candidates (rollout.go)
	}
}

// Pass runs one bounded pass. A failed read ends the pass: nothing after it
// is acted upon. A failed step on one candidate is counted and skipped (see
// itemFailed), up to maxItemFailures in a pass.
//
// The steps beside the pass (the events relay) run at the same time, on a
// report of their own, and end with it. They act on none of what the
// steps act on, so nothing orders them; run after the steps, they would
// wait behind any step that fails or runs to the pass's deadline (a
// session whose documents a dead instance's transaction still locks, a
// store in trouble), pass after pass, and the events that other instances
// committed would wait with them.
func (s *Sweeper) Pass(ctx context.Context) PassReport {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.PassTimeout)
	defer cancel()
	p := &pass{ctx: ctx, cfg: s.cfg, log: s.log}
	beside := make([]*pass, len(s.beside))
	var wg sync.WaitGroup
	for i, run := range s.beside {
		bp := &pass{ctx: ctx, cfg: s.cfg, log: s.log, now: s.now()}
		beside[i] = bp
		wg.Add(1)
		go func() {
			defer wg.Done()
			runSteps(bp, run)
		}()
	}
	runSteps(p, s.steps...)
	wg.Wait()
	for _, bp := range beside {
		p.r.merge(bp.r)
		p.r.Err, p.r.ItemErr = cmp.Or(p.r.Err, bp.r.Err), cmp.Or(p.r.ItemErr, bp.r.ItemErr)
	}
	return p.r
}

// runSteps runs steps in order on p until one ends the pass.
func runSteps(p *pass, steps ...step) {
	for _, run := range steps {
		err := run(p)
		if errors.Is(err, errPassStopped) {
			return
		}
		if err != nil {
			p.r.FailedSteps++
			p.r.Err = err
			return
		}
	}
}

// readMode is step 1: the mode and enforced share in force (inForce),
// read on every pass so that an operator's kill switch takes effect on the
// next one; then the pass's now.
func readMode(store ModeReader, cfg Config, now func() time.Time) step {
	return func(p *pass) error {
		mode, share, err := inForce(p.ctx, store, cfg, p.log)
		p.mode, p.r.Mode = mode, mode
		p.share, p.r.Share = share, share
		if err != nil {
			return &stepError{step: "reading the cleanup mode", err: err}
		}
		p.now = now()
		return nil
	}
}

// modeInForce returns the operator's mode, else the default. An operator
// setting the sweeper does not understand (not a string, not one of the
// three modes: a boolean typed into the console, "", "Enforce"), falls back
// to the safest choice that still keeps rosters right, observe, and is
// logged at WARNING on every pass until it is fixed. It never falls back to
// the default: that may be enforce, and an operator who wrote something
// there meant to change it. (An unreadable setting is inForce's: observe.)
func modeInForce(ctx context.Context, set presence.ModeSetting, defaultMode Mode, log *slog.Logger) Mode {
	if !set.Set {
		return defaultMode
	}
	m, err := ParseSetting(set)
	if err != nil {
		log.WarnContext(ctx, "roomlease/config cleanupMode not understood; observing", "component", "sweeper",
			"error", err.Error(), "mode", string(Observe))
		return Observe
	}
	return m
}

// expireLeases is step 2: sessions whose lease ended, oldest first.
// Bookkeeping, done in every mode: rosters must stay true even with the
// kill switch on.
func expireLeases(store LeaseExpirer) step {
	return func(p *pass) error {
		expired, err := store.ExpiredSessions(p.ctx, p.now, p.cfg.BatchSize)
		return eachCandidate(p, "listing expired sessions", expired, err, "expiring a session", func(ip *pass, c presence.ExpiryCandidate) error {
			res, err := store.ExpireSession(ip.ctx, c)
			if err != nil {
				return err
			}
			switch res.Outcome {
			case presence.Done:
				ip.r.SessionsExpired++
				if res.RoomSuspected {
					ip.r.RoomsSuspected++
				}
			case presence.Conflict:
				ip.r.GenerationConflicts++
			}
			return nil
		})
	}
}

// clearTyping is step 4: expired typing signals.
func clearTyping(store TypingClearer) step {
	return func(p *pass) error {
		typing, err := store.ExpiredTyping(p.ctx, p.now, p.cfg.BatchSize)
		return eachCandidate(p, "listing expired typing", typing, err, "clearing typing", func(ip *pass, c presence.TypingCandidate) error {
			out, err := store.ClearTyping(ip.ctx, c)
			if err == nil && out == presence.Done {
				ip.r.TypingCleared++
			}
			return err
		})
	}
}

// foldDepartures is step 4's second half: departure records nobody shows.
func foldDepartures(store DepartureFolder) step {
	return func(p *pass) error {
		stale, err := store.StaleDepartures(p.ctx, p.now, p.cfg.BatchSize)
		return eachCandidate(p, "listing departures to fold", stale, err, "folding departures", func(ip *pass, b presence.StaleDepartures) error {
			n, err := store.FoldDepartures(ip.ctx, b)
			ip.r.DeparturesFolded += n
			return err
		})
	}
}

// checkDueRooms is step 5: rooms past their grace. In enforce mode the
// check and the teardown are one transaction; in observe mode the check
// runs and its verdict is reported; in off mode rooms are only counted. A
// sweeper that deletes nothing (observe, off) reports each room once and
// marks it, so that it pages through them instead of reading the same ones
// on every pass.
func checkDueRooms(store DueRoomChecker) step {
	return func(p *pass) error {
		due, err := store.DueRooms(p.ctx, p.now, p.cfg.BatchSize, p.r.unreportedOnly())
		item, check := "checking a room for teardown", func(ip *pass, room presence.Room) error {
			// The slice is the room id's: the same treatment on every
			// pass at this share (rollout.go).
			return ip.tearDown(store, room, ip.mode == Enforce && presence.InEnforcedSlice(room.ID, ip.share))
		}
		if p.mode == Off {
			item, check = "reporting a due room", func(ip *pass, room presence.Room) error {
				marked, err := store.MarkReported(ip.ctx, presence.CandidateOf(room))
				if err == nil && marked {
					ip.r.RoomsEligible++
				}
				return err
			}
		}
		return eachCandidate(p, "listing due rooms", due, err, item, func(ip *pass, room presence.Room) error {
			ip.r.OldestEligibleAge = ip.now.Sub(room.CleanupAfter)
			return check(ip, room)
		})
	}
}

// tearDown checks one due room (step 5) and reports what the check found.
func (p *pass) tearDown(store DueRoomChecker, room presence.Room, enforce bool) error {
	res, err := store.TearDown(p.ctx, presence.CandidateOf(room), enforce)
	if err != nil {
		return err
	}
	switch res.Verdict {
	case presence.TearDown:
		p.r.RoomsEligible++
		p.r.recorded(res.Recorded, enforce)
		p.r.Candidates = append(p.r.Candidates, room.ID)
		evidence := []any{"component", "sweeper", "roomId", room.ID, "generation", room.Generation,
			"emptySince", room.EmptySince, "cleanupAfter", room.CleanupAfter, "entries", res.Entries}
		if res.Closing != nil {
			p.r.RoomsDeleted++
			p.r.Deleted = append(p.r.Deleted, room.ID)
			p.r.CleanupLags = append(p.r.CleanupLags, res.Closing.CleanupLag())
			p.log.DebugContext(p.ctx, "room torn down", append(evidence, "cleanupLagSeconds", res.Closing.CleanupLag().Seconds())...)
		} else {
			p.log.DebugContext(p.ctx, "room would be torn down (observe mode)", evidence...)
		}
	case presence.GenerationChanged:
		p.r.GenerationConflicts++
		p.log.DebugContext(p.ctx, "teardown lost to a newer generation", "component", "sweeper", "roomId", room.ID, "generation", room.Generation)
	case presence.Occupied:
		p.r.RoomsRepaired++
		p.log.DebugContext(p.ctx, "room suspected empty had roster entries; reactivated", "component", "sweeper", "roomId", room.ID)
	}
	return nil
}

// purgeClosed is step 6, in enforce mode: the documents of torn-down rooms,
// this pass's and any a crashed sweeper left half done. A teardown whose
// purge fails is one failed item: the others were finished, and the failing
// one stays pending for the next pass.
//
// The step has PurgeBudget of the pass's time. A big room's purge (a
// 10 000-person room leaves tens of thousands of documents) can outlast a
// pass; run to the pass's deadline it would fail the pass, back the run
// off, and hold every lease end and grace behind it. Out of budget, the
// purge stops where it is (it is idempotent, and its record stays pending)
// and the next pass, which comes at once, goes on with it after the
// deadlines that came meanwhile.
func purgeClosed(store Purger) step {
	return func(p *pass) error {
		if p.mode != Enforce {
			return nil
		}
		ctx, cancel := context.WithTimeout(p.ctx, p.cfg.PurgeBudget)
		defer cancel()
		n, err := store.PurgeClosed(ctx, p.cfg.BatchSize)
		p.r.RoomsPurged = n
		if err != nil && ctx.Err() != nil && p.ctx.Err() == nil {
			p.r.Backlog = true // out of budget: unfinished, not failed
			return nil
		}
		if err != nil && p.itemFailed("purging torn-down rooms", err) {
			return errPassStopped
		}
		p.r.Backlog = p.r.Backlog || n == p.cfg.BatchSize
		return nil
	}
}
