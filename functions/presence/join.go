package presence

import "time"

// JoinResult is what a successful join tells the client.
type JoinResult struct {
	Session Session
	// Grant is what the client is told of its lease: when to renew, and
	// a token for the renewal.
	Grant Grant
	// Revision is the room's revision read after the join committed: it
	// reflects this join and possibly later changes.
	Revision int64
	// Held says the join kept the stored state, name and mode, the user's
	// allowance of chosen changes being spent (see Allowance): it joined,
	// and the roster shows what it showed.
	Held bool
}

// JoinState is what the store read, inside its transaction, for a join.
// Nil means the document does not exist.
type JoinState struct {
	Room        *Room
	Participant *Participant
	// Sessions are the user's session documents in this room, the joining
	// one among them if it exists.
	Sessions []Session
	Policy   *Policy
	// Entries is the number of roster entries, counted only when the join
	// would add one (it is needed for the participant cap).
	Entries int
	// Claims is how many other joins hold a claim on a place (see
	// JudgeClaim) that counts against the cap beside Entries: they may
	// add their entries after this join read the roster.
	Claims int
	// UserRooms is the user's per-user document, read only when the join
	// would add a roster entry (AddsEntry); nil when absent.
	UserRooms *UserRooms
	// CheckedRooms tells, for each room RoomsToCheck named, whether the
	// user's roster entry still exists there.
	CheckedRooms map[string]bool
}

// AddsEntry says the join would add the user's roster entry: the user
// has none, or has one left over from an earlier lifetime of the room.
// Such an entry stays when the room's document goes without a teardown
// (TTL takes the room's document first; a teardown only ever closes an
// empty roster). In a room that keeps its revision on its entries, the
// lifetime's revision and size count only the entries stamped with it
// (Participant.OpenedAt), so a join that kept the entry as it stands
// would be counted nowhere: its reply would name a revision the roster
// never reaches, and the cap would not count it. The join adds it anew:
// stamped with this lifetime, judged by the cap, and a joined event. Its
// session count is still recounted from every live session of the user,
// those of the earlier lifetime included, so that none is dropped.
func (st JoinState) AddsEntry() bool {
	if st.Participant == nil {
		return true
	}
	r := st.Room
	return r != nil && r.RevisionOnEntries && !st.Participant.OpenedAt.Equal(r.CreatedAt)
}

// RoomStep is a lifecycle transition a join needs before it can proceed.
// The store makes it on its own, as a single conditional write of the room
// document, and then runs the join again: the join itself never writes the
// room, so concurrent joins of one room write no common document.
type RoomStep int

const (
	NoRoomStep RoomStep = iota
	CreateRoom          // the room does not exist: create it, active
	ReviveRoom          // the room is in its empty-room grace: make it active again
)

// JoinPlan is what a join writes. The store writes Session always, and the
// Participant only when WriteParticipant says so: a reconnect of a known
// session changes nothing that roster listeners see.
type JoinPlan struct {
	// RoomStep, when set, is all the plan says: make it (Room is the room
	// to write), then join again.
	RoomStep         RoomStep
	Room             Room
	Participant      Participant
	WriteParticipant bool // a visible change: it counts once in the revision
	// AddsEntry says the join would put a new user on the roster, so the
	// store must count the entries for the cap (JoinState.Entries).
	AddsEntry bool
	Session   Session
	// FenceParticipant says the store must write the entry although
	// nothing visible changed (not counted in the revision): the join makes
	// a session live, and concurrent joins of the same user must serialise
	// on the entry for the sessions cap to hold. Only a stored session count
	// that is already stale (a lease ended, not yet swept) leaves the entry
	// otherwise unwritten.
	FenceParticipant bool
	// MarkLarge says the join takes the room across its large-room
	// threshold: after the commit the store marks the room for the
	// summarizer (MarksLarge).
	MarkLarge bool
	// CheckLargeAt, when not 0, says the join read the roster just below
	// the large-room threshold (NearLarge): after the commit the store
	// counts the roster again and marks the room if the count has reached
	// CheckLargeAt, the threshold.
	CheckLargeAt int
	// UserRooms, when not nil, is the user's per-user document to write: the
	// join adds a roster entry, and this lists its room.
	UserRooms *UserRooms
	// ExpiredSiblings are the user's other sessions whose leases had ended
	// at now: the recount leaves them out, so the join deletes them (see
	// ExpiredSiblings).
	ExpiredSiblings []string
	// ChosenChange says the entry's write is a chosen change (see
	// Allowance): the same join keeping the stored state, name and mode
	// would not write it. Held says the plan is that join (req.Hold).
	ChosenChange bool
	Held         bool
}

// PlanJoin decides a join at now. Returns EForbidden if the room's policy
// does not list the user, ETooManySessions if the user holds
// MaxSessionsPerUser other live sessions in the room, ETooManyRooms if a new
// entry would put the user in more than MaxRoomsPerUser rooms (judged by
// st.UserRooms and st.CheckedRooms), and ERoomFull if a new participant
// would exceed the cap (judged by st.Entries and st.Claims, which the
// store counts whenever the user has no entry yet).
//
// A join whose only visible change is one the client chose (a new state or
// name, a mode that changes the roster's away) is a ChosenChange; with
// req.Hold, it keeps what is stored instead and is Held. A join that adds
// the entry or changes its session count writes the entry anyway: what it
// carries is applied, whatever Hold says.
func (s Settings) PlanJoin(now time.Time, st JoinState, req JoinRequest) (JoinPlan, error) {
	p, err := s.planJoin(now, st, req)
	if err != nil || !p.WriteParticipant || st.AddsEntry() {
		return p, err
	}
	kept := req
	kept.HasState, kept.HasDisplayName = false, false
	for _, sess := range st.Sessions {
		if sess.ID == req.SessionID {
			kept.Away = sess.Away
		}
	}
	k, err := s.planJoin(now, st, kept)
	switch {
	case err != nil || k.WriteParticipant:
		return p, err
	case req.Hold:
		k.Held = true
		return k, nil
	}
	p.ChosenChange = true
	return p, nil
}

func (s Settings) planJoin(now time.Time, st JoinState, req JoinRequest) (JoinPlan, error) {
	if err := Admit(st.Policy, req.ParticipantID); err != nil {
		return JoinPlan{}, err
	}

	// 0. The per-user caps, before the room's lifecycle step: a refused
	// join must not even create or revive the room.
	if err := s.checkSessionCap(now, st, req.SessionID); err != nil {
		return JoinPlan{}, err
	}
	var userRooms *UserRooms
	if st.AddsEntry() {
		var err error
		if userRooms, err = s.admitRoom(now, st, req.RoomID); err != nil {
			return JoinPlan{}, err
		}
	}

	// 1. The room: create it, or bring it back from the empty-room grace.
	// Advancing the generation is what makes a teardown decided before this
	// join lose its compare-and-set.
	switch {
	case st.Room == nil:
		return JoinPlan{RoomStep: CreateRoom, Room: s.NewRoom(now, req.RoomID)}, nil
	case st.Room.State != StateActive:
		return JoinPlan{RoomStep: ReviveRoom, Room: s.Reactivate(now, *st.Room)}, nil
	}
	p := JoinPlan{Room: *st.Room}

	// 2. The roster entry: one per user, whatever the number of tabs.
	if st.AddsEntry() {
		p.AddsEntry = true
		if st.Entries+st.Claims >= s.roomCap(st.Policy) {
			return JoinPlan{}, Errorf(ERoomFull, "the room has reached its limit of %d participants", s.roomCap(st.Policy))
		}
		p.Participant = Participant{RoomID: req.RoomID, ID: req.ParticipantID, DisplayName: req.DisplayName,
			PhotoURL: req.PhotoURL, State: req.State, JoinedAt: now,
			OpenedAt: st.Room.CreatedAt, RevisionOnEntries: st.Room.RevisionOnEntries}
		p.WriteParticipant = true
		p.UserRooms = userRooms
		p.MarkLarge = s.MarksLarge(st.Entries, st.Policy)
		if s.NearLarge(st.Entries, st.Policy) {
			p.CheckLargeAt = s.largeRoomAt(st.Policy)
		}
	} else {
		p.Participant = *st.Participant
		if req.HasDisplayName && req.DisplayName != p.Participant.DisplayName {
			p.Participant.DisplayName = req.DisplayName
			p.WriteParticipant = true
		}
		if req.HasState && !req.State.Equal(p.Participant.State) {
			p.Participant.State = req.State
			p.WriteParticipant = true
		}
		if req.PhotoURL != p.Participant.PhotoURL {
			p.Participant.PhotoURL = req.PhotoURL
			p.WriteParticipant = true
		}
	}

	// 3. The session: always a new generation and a fresh lease, larger
	// than any the stored session document had.
	p.Session = Session{RoomID: req.RoomID, ParticipantID: req.ParticipantID, ID: req.SessionID, CreatedAt: now}
	var prev int64
	wasLive := false
	for _, sess := range st.Sessions {
		if sess.ID == req.SessionID {
			prev, p.Session.CreatedAt = sess.Generation, sess.CreatedAt
			wasLive = sess.Live(now)
		}
	}
	p.Session.Generation = nextGeneration(now, prev)
	p.Session.Away = req.Away
	p.Session.LeaseExpiresAt = leaseEnd(now, s.ForMode(req.Away).Lease)
	p.Session.ExpireAt = p.Session.LeaseExpiresAt.Add(s.SessionRetention)

	// 4. The session count, recounted: the user's other live sessions and
	// this one. A reconnect of a known live session leaves it as it was.
	p.ExpiredSiblings = ExpiredSiblings(now, st.Sessions, req.SessionID)
	if count := liveOthers(now, st.Sessions, req.SessionID) + 1; count != p.Participant.SessionCount {
		p.Participant.SessionCount = count
		p.WriteParticipant = true
	}
	if a := allAway(now, withSession(st.Sessions, p.Session)); a != p.Participant.Away {
		p.Participant.Away = a
		p.WriteParticipant = true
	}
	if p.WriteParticipant {
		p.Participant.ExpireAt = now.Add(s.RecordHorizon)
	} else if !wasLive {
		// The fields come out unchanged: no visible change, no revision.
		// The write is what two joins of this user racing for the last
		// session places meet on (each read the entry), since the sessions
		// themselves are listed outside the transaction.
		p.FenceParticipant = true
	}
	p.Session.RoomExpireAt, p.Session.EntryExpireAt = p.Room.ExpireAt, p.Participant.ExpireAt
	p.Session.EntryJoinedAt = p.Participant.JoinedAt // the entry that counts it (SoleSession)
	return p, nil
}

// liveOthers counts the sessions in sessions, other than sessionID, whose
// lease holds at now.
func liveOthers(now time.Time, sessions []Session, sessionID string) int {
	n := 0
	for _, sess := range sessions {
		if sess.ID != sessionID && sess.Live(now) {
			n++
		}
	}
	return n
}

// withSession returns sessions with sess in place of the one of its id (or
// added).
func withSession(sessions []Session, sess Session) []Session {
	out := make([]Session, 0, len(sessions)+1)
	for _, other := range sessions {
		if other.ID != sess.ID {
			out = append(out, other)
		}
	}
	return append(out, sess)
}
