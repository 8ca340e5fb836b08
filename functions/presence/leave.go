package presence

import "time"

// DepartureState is what the store read for removing one session: the
// session, its roster entry and its room (nil when absent).
type DepartureState struct {
	Room        *Room
	Participant *Participant
	Session     *Session
}

// DeparturePlan is what removing a session writes.
type DeparturePlan struct {
	// Removed is false when nothing is to be done; the store then writes
	// nothing at all.
	Removed bool
	// The session document is deleted whenever Removed is set.
	DeleteParticipant bool
	WriteParticipant  bool
	Participant       Participant
	WriteRoom         bool
	Room              Room
	// RoomSuspected reports that the roster became empty and the room
	// entered its grace.
	RoomSuspected bool
}

// PlanLeave decides a client's leave at now. A leave whose generation is not
// the stored one (a late leave of an earlier connection) or whose session is
// gone removes nothing and is not an error: leaving is idempotent.
func (s Settings) PlanLeave(now time.Time, st DepartureState, ref SessionRef) DeparturePlan {
	if st.Session == nil || st.Session.Generation != ref.Generation {
		return DeparturePlan{}
	}
	return s.planDeparture(now, now, st)
}

// planDeparture removes st.Session and updates what depends on it. It is the
// one place where a roster entry and a room react to a session going, for
// leaves and for lease expiry alike. departedAt is when the participant
// actually left: now for a leave, the lease deadline for an expiry. The
// empty-room grace counts from it, so that a sweep that comes late does not
// also delay the teardown.
func (s Settings) planDeparture(now, departedAt time.Time, st DepartureState) DeparturePlan {
	p := DeparturePlan{Removed: true}
	if st.Participant == nil {
		// An orphaned session (its roster entry is already gone): deleting
		// it is all there is to do, and no listener sees a change.
		return p
	}
	p.Participant = *st.Participant
	p.Participant.SessionCount--
	if p.Participant.SessionCount <= 0 {
		p.DeleteParticipant = true
	} else {
		p.WriteParticipant = true
		p.Participant.ExpireAt = now.Add(s.RecordHorizon)
	}
	if st.Room == nil {
		return p
	}
	p.Room = *st.Room
	p.WriteRoom = true
	p.Room.Revision++
	if p.DeleteParticipant && p.Room.ParticipantCount > 0 {
		p.Room.ParticipantCount--
	}
	if p.Room.ParticipantCount == 0 && p.Room.State == StateActive {
		// Not yet a deletion: a room only suspected of being empty is torn
		// down by the sweeper after the grace, once it has proved inside a
		// transaction that no lease is live and the generation is unchanged.
		p.Room.State = StateSuspectedEmpty
		p.Room.EmptySince = departedAt
		p.Room.CleanupAfter = departedAt.Add(s.EmptyRoomGrace)
		p.RoomSuspected = true
	}
	p.Room.UpdatedAt = now
	p.Room.ExpireAt = now.Add(s.RecordHorizon)
	return p
}
