package firestoredb

import (
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// Chosen changes (presence/allowance.go): the visible changes a client
// makes at will, bounded by the user's allowance. The allowance is asked
// inside the transaction, once the reads have shown what the request would
// change, so that a request that changes nothing visible spends nothing;
// Join and HeartbeatAway wrap it with Allowance.Once, so that a retried
// transaction repeats the first answer instead of asking again.

// planJoin is PlanJoin with the user's allowance asked when, and only
// when, the join would make a chosen change: refused, the join is planned
// again keeping the stored state, name and mode (presence.JoinPlan.Held).
func (s *Store) planJoin(now time.Time, st presence.JoinState, req presence.JoinRequest) (presence.JoinPlan, error) {
	plan, err := s.settings.PlanJoin(now, st, req)
	if err != nil || !plan.ChosenChange || req.Allowance.Take() {
		return plan, err
	}
	req.Hold = true
	return s.settings.PlanJoin(now, st, req)
}
