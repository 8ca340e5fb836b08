package presence

import "time"

// Session is one tab's or app instance's lease, stored at
// rooms/{roomId}/participants/{uid}/sessions/{sessionId}. Heartbeats write
// here and nowhere else; no client listens here.
type Session struct {
	RoomID         string
	ParticipantID  string
	ID             string
	Generation     int64
	LeaseExpiresAt time.Time // absolute; the lease is live strictly before it
	ExpireAt       time.Time // TTL backstop, always after LeaseExpiresAt
	CreatedAt      time.Time
	// RoomExpireAt and EntryExpireAt are this session's copies of its room's
	// and roster entry's expireAt, so that a heartbeat, which reads only the
	// session, can tell when those need refreshing (see Settings.RefreshDue).
	RoomExpireAt  time.Time
	EntryExpireAt time.Time
	// Away says the session's page is hidden or its app backgrounded: its
	// lease and heartbeat interval are the away ones (Settings.ForMode).
	Away bool
	// EntryJoinedAt is the JoinedAt of the roster entry whose session
	// count took this session in: written by every join, which is the
	// only write that creates a session. Zero on a session written before
	// it existed. It is what lets SoleSession tell a session the entry
	// counts from an orphan of an earlier entry of the same user.
	EntryJoinedAt time.Time
}

// Live reports whether the lease holds at now.
func (s Session) Live(now time.Time) bool { return now.Before(s.LeaseExpiresAt) }

// Remaining is how long the lease still holds at now (zero once it ended).
func (s Session) Remaining(now time.Time) time.Duration {
	if d := s.LeaseExpiresAt.Sub(now); d > 0 {
		return d
	}
	return 0
}

// nextGeneration issues a generation larger than prev. Generations come from
// the clock (microseconds since 1970, below 2^53 until the year 2255) so that
// they keep increasing even across a deleted session document: a session that
// left and joined again gets a generation that no delayed request from its
// earlier life can match. prev+1 covers two joins within one microsecond and
// a clock that stepped back.
func nextGeneration(now time.Time, prev int64) int64 {
	g := now.UnixMicro()
	if g <= prev {
		g = prev + 1
	}
	return g
}

// SoleSession reports whether own, the session a join or departure is
// about, is provably the only session document its user has under entry,
// so that the store need not list the others (a query per request: on a
// big room's leaves, the one query left on the path).
//
// Why the proof holds: a session is created only by a join, whose
// transaction reads the entry and writes it whenever the recount of live
// sessions changes, and stamps the session with that entry's JoinedAt.
// From then on the entry's count leaves a stamped session out only in a
// transaction that also deletes it (ExpiredSiblings) or removes it. So
// while own exists, is stamped with this entry's JoinedAt and the count
// is 1, own is the one session the count holds, and any other document of
// the user is one the count has never held: an orphan of an earlier entry
// (its entry removed by TTL or its room torn down), or a session written
// before the stamp existed, both of which have a different stamp.
//
// Such an orphan is not live (an entry goes only when none of its
// sessions is, which is also why a join that adds an entry counts only its
// own session), so whether it is listed changes no count. Left unlisted it
// waits for the sweeper, which expires it by itself: that departure
// carries the orphan's own stamp, not the entry's, so it lists.
//
// A concurrent join that adds a session writes the entry, which both the
// departure and the join have read in their transactions: the two
// serialise, and the later one reads the count the other wrote.
func SoleSession(entry *Participant, own *Session) bool {
	return entry != nil && own != nil && entry.SessionCount == 1 &&
		!own.EntryJoinedAt.IsZero() && own.EntryJoinedAt.Equal(entry.JoinedAt)
}
