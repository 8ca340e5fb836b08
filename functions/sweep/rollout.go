package sweep

import (
	"context"
	"log/slog"

	"github.com/roomlease/roomlease/functions/presence"
)

// Rolling teardown out on evidence. In enforce mode the sweeper tears down
// only the rooms in the enforced slice (presence.InEnforcedSlice at the
// share in force) and observes the others; every room the check finds
// proven empty, in either slice, is recorded as a candidate by the store;
// and step 7 classifies each candidate once its reconnect window is over
// (presence.ClassifyCandidate). The counts go into the run's report split
// by slice, so that enforced rooms are compared with observed ones on the
// same traffic.

// inForce returns the mode and the enforced share (basis points) in force:
// the operator's, else the defaults. An unreadable roomlease/config means
// observe, and the pass acts on nothing (readMode); a mode or a share the
// sweeper does not understand means observe, logged at WARNING on every
// pass until it is fixed, never the default (which may be enforce at 100%).
func inForce(ctx context.Context, store ModeReader, cfg Config, log *slog.Logger) (Mode, int, error) {
	set, err := store.CleanupMode(ctx)
	if err != nil {
		return Observe, 0, err
	}
	mode := modeInForce(ctx, set, cfg.DefaultMode, log)
	if !set.Share.Set {
		return mode, cfg.defaultShare(), nil
	}
	share, err := ParseShareSetting(set.Share)
	if err != nil {
		log.WarnContext(ctx, "roomlease/config enforceSharePercent not understood; observing", "component", "sweeper",
			"error", err.Error(), "mode", string(Observe))
		return Observe, 0, nil
	}
	return mode, share, nil
}

// unreportedOnly says whether the pass lists only due rooms not yet
// reported: unless every room is torn down, the observed ones stay due, and
// each is reported (and read) once rather than on every pass. A room that an
// observing pass reported is therefore torn down only once the share reaches
// 100 %, or once its state changes, even if a raised share puts it in the
// enforced slice: as when switching from observe to enforce.
func (r PassReport) unreportedOnly() bool { return r.Mode != Enforce || r.Share < presence.FullShare }

// recorded counts a candidate the store recorded with this pass's check.
func (r *PassReport) recorded(recorded, enforced bool) {
	switch {
	case !recorded:
	case enforced:
		r.CandidatesEnforced++
	default:
		r.CandidatesObserved++
	}
}

// classified counts a candidate this pass classified.
func (r *PassReport) classified(class presence.CandidateClass, enforced bool) {
	counts := map[presence.CandidateClass][2]*int{
		presence.Confirmed:               {&r.ConfirmedObserved, &r.ConfirmedEnforced},
		presence.ReconnectAfterCandidate: {&r.ReconnectsObserved, &r.ReconnectsEnforced},
		presence.Violation:               {&r.ViolationsObserved, &r.ViolationsEnforced},
	}[class]
	i := 0
	if enforced {
		i = 1
	}
	if counts[i] != nil {
		*counts[i]++
	}
}

// classifyCandidates is step 7, in every mode (the kill switch stops
// deletion, not telemetry): candidates whose window is over, oldest first,
// each classified and counted by the one sweeper that stores its class.
func classifyCandidates(store CandidateClassifier) step {
	return func(p *pass) error {
		pending, err := store.PendingCandidates(p.ctx, p.now, p.cfg.BatchSize)
		return eachCandidate(p, "listing teardown candidates", pending, err, "classifying a teardown candidate", func(ip *pass, c presence.Candidate) error {
			class, stored, err := store.ClassifyCandidate(ip.ctx, c)
			if err != nil || !stored {
				return err
			}
			ip.r.classified(class, c.Enforced)
			// A per-room line (the room id is here, never in the run's
			// summary): where an operator starts when a count moves.
			level := slog.LevelDebug
			if class == presence.Violation {
				level = slog.LevelError
			}
			ip.log.Log(ip.ctx, level, "teardown candidate classified", "component", "sweeper", "roomId", c.RoomID,
				"class", string(class), "enforced", c.Enforced, "generation", c.Generation, "checkedAt", c.CheckedAt,
				"emptySince", c.EmptySince, "cleanupAfter", c.CleanupAfter, "liveLeases", c.LiveLeases)
			return nil
		})
	}
}
