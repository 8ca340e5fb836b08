package presence

import "time"

// ExpiryCandidate is a session a sweeper saw with an ended lease. Between
// that read and the transaction that acts on it, the session may have been
// renewed, superseded by a rejoin, left, or expired by another sweeper.
type ExpiryCandidate struct {
	RoomID         string
	ParticipantID  string
	SessionID      string
	Generation     int64
	LeaseExpiresAt time.Time
}

// Outcome says what a sweeper's step did.
type Outcome int

const (
	// Done: the step changed what it was meant to change.
	Done Outcome = iota
	// AlreadyDone: someone else (a leave, another sweeper) got there first.
	AlreadyDone
	// Conflict: the thing moved on (renewed, rejoined, reactivated); the
	// step was a quiet no-op. Sweepers report these as generation conflicts.
	Conflict
	// NotDue: the step's deadline has not come yet.
	NotDue
)

// ExpiryResult is what expiring one session did.
type ExpiryResult struct {
	Outcome       Outcome
	RoomSuspected bool // the roster became empty and the room entered its grace
}

// PlanExpiry re-checks a candidate against the session as read inside the
// expiring transaction, and plans its removal only if it is exactly the
// session the sweeper saw (same generation and deadline) and its lease has
// ended. Anything else is a no-op: a heartbeat that committed first keeps its
// lease, and a rejoin keeps its new generation.
func (s Settings) PlanExpiry(now time.Time, st DepartureState, c ExpiryCandidate) (DeparturePlan, Outcome) {
	switch {
	case st.Session == nil:
		return DeparturePlan{}, AlreadyDone
	case st.Session.Generation != c.Generation || !st.Session.LeaseExpiresAt.Equal(c.LeaseExpiresAt):
		return DeparturePlan{}, Conflict
	case st.Session.Live(now):
		return DeparturePlan{}, NotDue
	}
	p := s.planDeparture(now, st.Session.LeaseExpiresAt, st)
	p.Reason = ReasonExpired
	return p, Done
}
