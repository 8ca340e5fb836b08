package presence

import "time"

// LeaveResult is what a leave tells the client.
type LeaveResult struct {
	Removed bool
	// CleanupAfter is set when, after this leave, the room is in its
	// empty-room grace: the time from which it may be torn down unless
	// someone joins. The last participant out can show a countdown from it
	// without reading the room.
	CleanupAfter time.Time
}

// DepartureState is what the store read for removing one session: the
// session, the user's roster entry, and all of the user's session documents
// in the room (the departing one among them). Nil means absent.
type DepartureState struct {
	Participant *Participant
	Session     *Session
	Sessions    []Session
}

// DeparturePlan is what removing a session writes. It never writes the room
// document: whether the room became empty is decided afterwards, by
// PlanEmptiness, in a transaction of its own.
type DeparturePlan struct {
	// Removed is false when nothing is to be done; the store then writes
	// nothing at all.
	Removed bool
	// The session document is deleted whenever Removed is set.
	DeleteParticipant bool
	// ExpiredSiblings are the user's other sessions whose leases had
	// ended at the departure's now: they are deleted with it. The recount
	// leaves them out, and a session left out of the count must not stay
	// renewable, or a heartbeat with an earlier clock could renew it after
	// this commit and hold a live lease that no roster entry shows (see
	// ExpiredSiblings).
	ExpiredSiblings  []string
	WriteParticipant bool // a visible change: it counts once in the revision
	Participant      Participant
	// Reason says why (ReasonLeft, ReasonExpired, ReasonEvicted): what
	// the departure's record shows when it removes the entry.
	Reason string
	// DepartedAt is when the participant actually left: the request's time
	// for a leave, the lease's end for an expiry. The empty-room grace
	// counts from it, so that a sweep that comes late does not also delay
	// the teardown.
	DepartedAt time.Time
}

// VisibleChange reports whether the plan changes what roster listeners see.
func (p DeparturePlan) VisibleChange() bool { return p.DeleteParticipant || p.WriteParticipant }

// PlanLeave decides a client's leave at now. A leave whose generation is not
// the stored one (a late leave of an earlier connection) or whose session is
// gone removes nothing and is not an error: leaving is idempotent.
func (s Settings) PlanLeave(now time.Time, st DepartureState, ref SessionRef) DeparturePlan {
	if st.Session == nil || st.Session.Generation != ref.Generation {
		return DeparturePlan{}
	}
	p := s.planDeparture(now, now, st)
	p.Reason = ReasonLeft
	return p
}

// planDeparture removes st.Session and recounts the user's live sessions.
// It is the one place where a roster entry reacts to a session going, for
// leaves and for lease expiry alike.
func (s Settings) planDeparture(now, departedAt time.Time, st DepartureState) DeparturePlan {
	p := DeparturePlan{Removed: true, DepartedAt: departedAt}
	if st.Participant == nil {
		// An orphaned session (its roster entry is already gone): deleting
		// it is all there is to do, and no listener sees a change.
		return p
	}
	p.Participant = *st.Participant
	// Recounted, not decremented: a count that drifted (sessions removed
	// by TTL while the sweeper was down) heals at the next departure.
	remaining := liveOthers(now, st.Sessions, st.Session.ID)
	p.ExpiredSiblings = ExpiredSiblings(now, st.Sessions, st.Session.ID)
	switch {
	case remaining == 0:
		p.DeleteParticipant = true
	default:
		others := make([]Session, 0, len(st.Sessions))
		for _, other := range st.Sessions {
			if other.ID != st.Session.ID {
				others = append(others, other)
			}
		}
		away := allAway(now, others)
		if remaining != p.Participant.SessionCount || away != p.Participant.Away {
			p.Participant.SessionCount, p.Participant.Away = remaining, away
			p.Participant.ExpireAt = now.Add(s.RecordHorizon)
			p.WriteParticipant = true
		}
	}
	return p
}

// ExpiredSiblings returns the ids of the sessions in sessions, other than
// sessionID, whose lease has ended at now.
//
// Whether a lease holds is a judgement at one instant, and instances' clocks
// and request times differ: a heartbeat may judge at its own now that a
// lease still holds, and renew it, after a departure judged at a later now
// that it had ended. A decision that leaves a session out of the roster's
// count therefore deletes that session in the same transaction. A renewal
// that commits first is then read by the departure (and counted), and one
// that comes after finds the session gone and answers stale_generation, so
// the user joins again: the heartbeat either wins atomically or gets 409,
// as with the sweeper's expiry.
func ExpiredSiblings(now time.Time, sessions []Session, sessionID string) []string {
	var out []string
	for _, sess := range sessions {
		if sess.ID != sessionID && !sess.Live(now) {
			out = append(out, sess.ID)
		}
	}
	return out
}
