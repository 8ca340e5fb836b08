package presence

import "time"

// Admit decides whether a room's policy admits uid: at a join, and again on
// every heartbeat, typing signal and read receipt, so that a user removed
// from a policy does not keep a session going. A nil policy, or one without
// AllowedUsers, admits everyone. Returns EForbidden otherwise.
func Admit(p *Policy, uid string) error {
	if !p.allows(uid) {
		return Errorf(EForbidden, "this room admits only its listed participants")
	}
	return nil
}

// PolicyChange is a room policy a sweeper found changed since it last
// looked: its updatedAt, and the policy as listed.
type PolicyChange struct {
	RoomID    string
	Policy    Policy
	UpdatedAt time.Time
}

// AdmitsEveryone reports whether the policy leaves nobody out, so that a
// change to it needs no look at the roster.
func (p *Policy) AdmitsEveryone() bool { return p == nil || len(p.AllowedUsers) == 0 }

// EvictionState is what the store read, inside the evicting transaction,
// about one user of a room: the policy as it stands now, the user's roster
// entry, and all of their session documents. Nil means absent.
type EvictionState struct {
	Policy      *Policy
	Participant *Participant
	Sessions    []Session
}

// PlanEviction decides whether a user whom a changed policy may no longer
// admit leaves the room at now: all of their sessions at once, and their
// roster entry, which is one visible change (the revision rises once per
// evicted user, whatever their number of tabs). It re-judges the policy as
// read in the same transaction, so a policy changed back meanwhile evicts
// nobody. The plan removes nothing when the policy admits the user or
// nothing of theirs is left.
func PlanEviction(now time.Time, st EvictionState, uid string) DeparturePlan {
	if st.Policy.allows(uid) || (st.Participant == nil && len(st.Sessions) == 0) {
		return DeparturePlan{}
	}
	p := DeparturePlan{Removed: true, DepartedAt: now, DeleteParticipant: st.Participant != nil, Reason: ReasonEvicted}
	if st.Participant != nil {
		p.Participant = *st.Participant
	}
	return p
}

// EvictionReport is what enforcing one changed policy did.
type EvictionReport struct {
	Evicted       int  // users removed from the roster
	RoomSuspected bool // the roster became empty and the room entered its grace
	// More is set when the call stopped at its limit with users still to
	// look at: the policy must be enforced again.
	More bool
}
