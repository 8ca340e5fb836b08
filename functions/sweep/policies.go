package sweep

import (
	"sync"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

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

// enforcePolicies is step 3: room policies whose updatedAt is after the
// watermark, each enforced (PolicyEnforcer.EnforcePolicy), so that whoever
// a changed policy no longer admits leaves within one pass of the change.
// Bookkeeping, done in every mode.
//
// The watermark trails this instance's clock by PolicySkew rather than
// following the newest updatedAt seen: a policy's updatedAt is assigned by
// Firestore when its write commits, so a write committing while a pass
// lists may carry a time just before the listing's and appear only
// afterwards, and this instance's clock may differ from Firestore's. Such a
// policy is listed by a later pass, as long as both delays stay below the
// skew. A policy whose enforcement fails is one failed item (itemFailed):
// the others are enforced, and the watermark stays just before the failing
// one, so that it is listed again. A pass that stops leaves the watermark
// where it was.
func enforcePolicies(store PolicyEnforcer, w *policyWatermark) step {
	return func(p *pass) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.through.IsZero() {
			w.through = p.now.Add(-p.cfg.RepairLookback)
		}
		if w.done == nil {
			w.done = map[string]time.Time{}
		}
		changed, err := store.ChangedPolicies(p.ctx, w.through, p.cfg.BatchSize)
		if err != nil {
			return &stepError{step: "listing changed room policies", err: err}
		}
		p.skip(changed.Undecodable)
		next := p.now.Add(-p.cfg.PolicySkew)
		if changed.Len() == p.cfg.BatchSize && len(changed.Items) > 0 {
			// A full page: more changes may wait beyond the last one listed.
			next = minTime(next, changed.Items[len(changed.Items)-1].UpdatedAt)
			p.r.Backlog = true
		}
		// One at a time: the acts share the watermark's next and done.
		err = forEach(p, "enforcing a room policy", changed.Items, 1, func(ip *pass, c presence.PolicyChange) error {
			if done, ok := w.done[c.RoomID]; ok && done.Equal(c.UpdatedAt) {
				return nil
			}
			rep, err := store.EnforcePolicy(ip.ctx, c, ip.cfg.BatchSize)
			if err != nil {
				next = minTime(next, c.UpdatedAt.Add(-time.Nanosecond))
				return err
			}
			ip.r.ParticipantsEvicted += rep.Evicted
			if rep.RoomSuspected {
				ip.r.RoomsSuspected++
			}
			if rep.Evicted > 0 {
				ip.log.DebugContext(ip.ctx, "participants evicted by a changed room policy", "component", "sweeper",
					"roomId", c.RoomID, "evicted", rep.Evicted)
			}
			if rep.More {
				// Not finished: list this policy again next pass.
				ip.r.Backlog = true
				next = minTime(next, c.UpdatedAt.Add(-time.Nanosecond))
				return nil
			}
			w.done[c.RoomID] = c.UpdatedAt
			return nil
		})
		if err != nil {
			return err
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
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
