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
