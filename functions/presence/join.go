package presence

import "time"

// JoinResult is what a successful join tells the client.
type JoinResult struct {
	Session  Session
	Revision int64 // the room's revision after the join
}

// JoinState is what the store read, inside its transaction, for a join.
// Nil means the document does not exist.
type JoinState struct {
	Room        *Room
	Participant *Participant
	Session     *Session
	Policy      *Policy
}

// JoinPlan is what a join writes. The store writes Session always, and Room
// and Participant only when their flags say so: a reconnect of a known
// session changes nothing that roster listeners see.
type JoinPlan struct {
	Room             Room
	WriteRoom        bool
	Participant      Participant
	WriteParticipant bool
	Session          Session
	RoomReactivated  bool // the join ended an empty-room grace
}

// PlanJoin decides a join at now. Returns EForbidden if the room's policy does
// not list the user, and ERoomFull if a new participant would exceed the cap.
func (s Settings) PlanJoin(now time.Time, st JoinState, req JoinRequest) (JoinPlan, error) {
	if !st.Policy.allows(req.ParticipantID) {
		return JoinPlan{}, Errorf(EForbidden, "this room admits only its listed participants")
	}
	var p JoinPlan

	// 1. The room: create it, or bring it back from the empty-room grace.
	// Advancing the generation is what makes a teardown decided before this
	// join lose its compare-and-set.
	if st.Room == nil {
		p.Room = Room{ID: req.RoomID, State: StateActive, Generation: 1, CreatedAt: now}
		p.WriteRoom = true
	} else {
		p.Room = *st.Room
		if p.Room.State != StateActive {
			p.Room.State = StateActive
			p.Room.Generation++
			p.Room.CleanupAfter = time.Time{}
			p.Room.EmptySince = time.Time{}
			p.WriteRoom = true
			p.RoomReactivated = true
		}
	}

	// 2. The roster entry: one per user, whatever the number of tabs.
	if st.Participant == nil {
		if p.Room.ParticipantCount >= s.roomCap(st.Policy) {
			return JoinPlan{}, Errorf(ERoomFull, "the room has reached its limit of %d participants", s.roomCap(st.Policy))
		}
		p.Participant = Participant{RoomID: req.RoomID, ID: req.ParticipantID, DisplayName: req.DisplayName, JoinedAt: now}
		p.WriteParticipant = true
		p.Room.ParticipantCount++
		p.Room.PeakParticipants = max(p.Room.PeakParticipants, p.Room.ParticipantCount)
	} else {
		p.Participant = *st.Participant
		if req.HasDisplayName && req.DisplayName != p.Participant.DisplayName {
			p.Participant.DisplayName = req.DisplayName
			p.WriteParticipant = true
		}
	}

	// 3. The session: always a new generation and a fresh lease. Only a new
	// session changes the roster entry (its session count). A session found
	// without a roster entry is a leftover of an earlier life of the room
	// (awaiting cleanup) and counts as new.
	if st.Session == nil || st.Participant == nil {
		var prev int64
		if st.Session != nil {
			prev = st.Session.Generation
		}
		p.Session = Session{RoomID: req.RoomID, ParticipantID: req.ParticipantID, ID: req.SessionID, CreatedAt: now,
			Generation: nextGeneration(now, prev)}
		p.Participant.SessionCount++
		p.WriteParticipant = true
	} else {
		p.Session = *st.Session
		p.Session.Generation = nextGeneration(now, st.Session.Generation)
	}
	p.Session.LeaseExpiresAt = now.Add(s.Lease)
	p.Session.ExpireAt = p.Session.LeaseExpiresAt.Add(s.SessionRetention)

	// 4. Every visible change counts once in the room's revision.
	if p.WriteParticipant {
		p.Participant.ExpireAt = now.Add(s.RecordHorizon)
		p.Room.Revision++
		p.WriteRoom = true
	}
	if p.WriteRoom {
		p.Room.UpdatedAt = now
		p.Room.ExpireAt = now.Add(s.RecordHorizon)
	}
	p.Session.RoomExpireAt, p.Session.EntryExpireAt = p.Room.ExpireAt, p.Participant.ExpireAt
	return p, nil
}
