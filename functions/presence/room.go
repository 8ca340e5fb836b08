package presence

import "time"

// RoomState is where a room is in its lifecycle:
//
//	active ──last participant gone──▶ suspected_empty ──grace, proof of absence──▶ deleted
//	   ▲                                     │
//	   └────────────── any join ─────────────┘ (room generation advances)
type RoomState string

const (
	StateActive         RoomState = "active"
	StateSuspectedEmpty RoomState = "suspected_empty"
)

// Room is the document clients see at rooms/{roomId}.
type Room struct {
	ID    string
	State RoomState
	// Generation advances each time the room (re)enters active: on creation
	// and on any join during the empty-room grace. A teardown commits only if
	// the generation it read is still current.
	Generation int64
	// Revision rises by one on every change to a roster entry.
	Revision         int64
	ParticipantCount int // roster entries, live or awaiting expiry
	PeakParticipants int
	EmptySince       time.Time // when the roster last became empty; set while suspected_empty
	CleanupAfter     time.Time // EmptySince + grace; set while suspected_empty, else zero
	CreatedAt        time.Time
	UpdatedAt        time.Time
	ExpireAt         time.Time // TTL backstop; see Settings.RecordHorizon
}

// Participant is one user's roster entry at rooms/{roomId}/participants/{uid}:
// the document roster listeners watch. It changes only on visible changes.
type Participant struct {
	RoomID       string
	ID           string // the user's uid
	DisplayName  string
	JoinedAt     time.Time
	SessionCount int // sessions (tabs, app instances) holding or awaiting expiry of a lease
	ExpireAt     time.Time
}

// Policy is an optional, operator-managed admission rule for one room.
type Policy struct {
	// AllowedUsers, when non-empty, lists the only uids that may join.
	AllowedUsers []string
	// MaxParticipants, when positive, caps the room below the global cap.
	MaxParticipants int
}

func (p *Policy) allows(uid string) bool {
	if p == nil || len(p.AllowedUsers) == 0 {
		return true
	}
	for _, u := range p.AllowedUsers {
		if u == uid {
			return true
		}
	}
	return false
}
