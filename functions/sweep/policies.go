package sweep

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errPassStopped says that a step's failures ended the pass; the failure
// is already in the pass's report.
var errPassStopped = errors.New("the pass stopped at a failed step")

// policyWatermark is how far one sweeper instance has enforced changed room
// policies. It lives in memory, like the repair watermark: another instance
// starts from its own lookback, and enforcing a policy twice is harmless
// (every eviction re-reads the policy in its transaction).
type policyWatermark struct {
	mu      sync.Mutex
	through time.Time
	// done holds, per room, the updatedAt of a policy already enforced
	// that the trailing watermark will list again, so that it is not
	// enforced (its roster listed) on every pass until the watermark
	// passes it. Entries at or below the watermark are dropped.
	done map[string]time.Time
}

// enforcePolicies finds room policies whose updatedAt is after the
// watermark and has each one enforced (PolicyEnforcer.EnforcePolicy).
//
// The watermark trails this instance's clock by PolicySkew rather than
// following the newest updatedAt seen: a policy's updatedAt is assigned by
// Firestore when its write commits, so a write committing while a pass
// lists may carry a time just before the listing's and appear only
// afterwards, and this instance's clock may differ from Firestore's. Such a
// policy is listed by a later pass, as long as both delays stay below the
// skew. A policy whose enforcement fails is one failed item (itemFailed):
// the others are enforced, and the watermark stays just before the failing
// one, so that it is listed again. It returns the listing's error, or
// errPassStopped when itemFailed says the pass must end.
func (s *Sweeper) enforcePolicies(ctx context.Context, r *PassReport, now time.Time, itemFailed func(string, error) bool) error {
	w := &s.policies
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.through.IsZero() {
		w.through = now.Add(-s.cfg.RepairLookback)
	}
	if w.done == nil {
		w.done = map[string]time.Time{}
	}
	changed, err := s.store.ChangedPolicies(ctx, w.through, s.cfg.BatchSize)
	if err != nil {
		return err
	}
	s.skip(ctx, r, changed.Undecodable)
	next := now.Add(-s.cfg.PolicySkew)
	if changed.Len() == s.cfg.BatchSize && len(changed.Items) > 0 {
		// A full page: more changes may wait beyond the last one listed.
		next = minTime(next, changed.Items[len(changed.Items)-1].UpdatedAt)
		r.Backlog = true
	}
	for _, c := range changed.Items {
		if done, ok := w.done[c.RoomID]; ok && done.Equal(c.UpdatedAt) {
			continue
		}
		rep, err := s.store.EnforcePolicy(ctx, c, s.cfg.BatchSize)
		if err != nil {
			next = minTime(next, c.UpdatedAt.Add(-time.Nanosecond))
			if itemFailed("enforcing a room policy", err) {
				return errPassStopped
			}
			continue
		}
		r.ParticipantsEvicted += rep.Evicted
		if rep.RoomSuspected {
			r.RoomsSuspected++
		}
		if rep.Evicted > 0 {
			s.log.DebugContext(ctx, "participants evicted by a changed room policy", "component", "sweeper",
				"roomId", c.RoomID, "evicted", rep.Evicted)
		}
		if rep.More {
			// Not finished: list this policy again next pass.
			r.Backlog = true
			next = minTime(next, c.UpdatedAt.Add(-time.Nanosecond))
			continue
		}
		w.done[c.RoomID] = c.UpdatedAt
	}
	if next.After(w.through) {
		w.through = next
	}
	for room, at := range w.done {
		if !at.After(w.through) {
			delete(w.done, room)
		}
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
