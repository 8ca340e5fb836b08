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

// Room is the document clients see at rooms/{roomId}. It changes only on
// lifecycle transitions (created, emptied, revived), never on an ordinary
// join or leave, so that a crowd joining one room through many instances
// writes no common document. The roster's revision and size live elsewhere
// (see Roster).
type Room struct {
	ID    string
	State RoomState
	// Generation advances each time the room (re)enters active: on creation
	// and on any join during the empty-room grace. A teardown commits only if
	// the generation it read is still current.
	Generation   int64
	EmptySince   time.Time // when the roster last became empty; set while suspected_empty
	CleanupAfter time.Time // EmptySince + grace; set while suspected_empty, else zero
	// TeardownReported is set by a sweeper in observe or off mode once it
	// has reported this room as due, so that it reports (and reads) each
	// room once per state rather than on every pass. Any lifecycle write
	// clears it.
	TeardownReported bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
	ExpireAt         time.Time // TTL backstop; see Settings.RecordHorizon
	// RevisionExpireAt is a lower bound of every revision shard's expireAt:
	// the value last written to all of them (see Settings.ShardsExpiry).
	RevisionExpireAt time.Time
	// EntriesCounted says that every roster entry of this lifetime was
	// counted on the revision shards as it came and went, so that their
	// sum is the roster's size: set when the room is created, by a version
	// that counts. A room created before keeps being counted the old way
	// (a count() of its entries) until its next lifetime.
	EntriesCounted bool
	// ChangesCarried says that every visible change of this lifetime was
	// also carried on the document that listeners read for it (the entry's
	// or the departure's Changes, see Participant.Changes), so that
	// listeners can sum the revision from what they already receive: set
	// when the room is created, by a version that carries them. Listeners
	// of an older room add up the revision shards instead.
	ChangesCarried bool
	// RevisionOnEntries says that this lifetime's revision and size are
	// kept on its entries and departure records alone (their Changes, and
	// the retired count), not on the revision shards: no join writes a
	// document another user's join writes. Set when the room is created, by
	// a version that keeps them so; an older room keeps its shards until
	// its next lifetime.
	RevisionOnEntries bool
}

// NewRoom is a room created by a join at now: active, generation 1.
func (s Settings) NewRoom(now time.Time, id string) Room {
	// No shard of this lifetime exists yet; each is created later, with an
	// expireAt at least this one.
	return Room{ID: id, State: StateActive, Generation: 1, CreatedAt: now, UpdatedAt: now,
		ExpireAt: now.Add(s.RecordHorizon), RevisionExpireAt: now.Add(s.RecordHorizon), EntriesCounted: true,
		ChangesCarried: true, RevisionOnEntries: true}
}

// Participant is one user's roster entry at rooms/{roomId}/participants/{uid}:
// the document roster listeners watch. It changes only on visible changes.
type Participant struct {
	RoomID      string
	ID          string // the user's uid
	DisplayName string
	PhotoURL    string // from the user's ID token; empty when it has none
	// State is what the user shows (see State); nil reads as {}.
	State State
	// Away is set when every live session of the user is away (see
	// away.go).
	Away     bool
	JoinedAt time.Time
	// SessionCount is how many of the user's sessions (tabs, app instances)
	// held a live lease at the last visible change. It is recounted from the
	// session documents on every join and departure, never carried forward
	// by increments, so sessions that vanished without a departure (TTL
	// while the sweeper was down) cannot keep an entry alive.
	SessionCount int
	ExpireAt     time.Time
	// Changes is how many of the room's visible changes this entry
	// carries: its user's in this lifetime, including those carried over
	// from the user's departure record when they came back. Every write of
	// a visible change to the entry adds one, in the transaction that adds
	// one to the revision shard (firestoredb/revision.go), so that the sum
	// over entries, departure records and the room's retired count is the
	// revision. OpenedAt is the CreatedAt of the room lifetime the entry was
	// added in, which its departure record inherits: a join stamps it
	// (PlanJoin), and an entry stamped with another lifetime is added anew
	// (JoinState.AddsEntry). The store counts Changes.
	Changes  int64
	OpenedAt time.Time
	// RevisionOnEntries is the room's (Room.RevisionOnEntries) when the
	// entry was added, so that a request that reads the entry but not the
	// room knows where the revision is kept. A join sets it with OpenedAt.
	RevisionOnEntries bool
}

// Policy is an optional, operator-managed admission rule for one room.
type Policy struct {
	// AllowedUsers, when non-empty, lists the only uids that may join.
	AllowedUsers []string
	// MaxParticipants, when positive, caps the room below the global cap.
	MaxParticipants int
	// PublicOccupancy lets anyone signed in read how many are in the room
	// (see Occupancy); without it, outsiders learn nothing of the room.
	PublicOccupancy bool
	// LargeRoomThreshold, when positive, replaces
	// Settings.LargeRoomThreshold for this room.
	LargeRoomThreshold int
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
