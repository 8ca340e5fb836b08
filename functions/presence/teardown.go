package presence

import "time"

// TeardownCandidate identifies one lifetime of a room that a sweeper found
// suspected_empty past its cleanupAfter. CreatedAt tells lifetimes apart: a
// room deleted and created again starts over at generation 1.
type TeardownCandidate struct {
	RoomID       string
	Generation   int64
	CreatedAt    time.Time
	EmptySince   time.Time
	CleanupAfter time.Time
}

// CandidateOf returns the teardown candidate for room as read.
func CandidateOf(room Room) TeardownCandidate {
	return TeardownCandidate{RoomID: room.ID, Generation: room.Generation, CreatedAt: room.CreatedAt,
		EmptySince: room.EmptySince, CleanupAfter: room.CleanupAfter}
}

// Verdict is the outcome of the authoritative occupancy check.
type Verdict int

const (
	// TearDown: proven empty, grace over, same lifetime and generation.
	TearDown Verdict = iota
	// RoomGone: already deleted (by another sweeper, or TTL).
	RoomGone
	// GenerationChanged: a join (or a new lifetime) moved the room on since
	// the candidate was read; the teardown loses its compare-and-set.
	GenerationChanged
	// GraceNotOver: cleanupAfter is still ahead.
	GraceNotOver
	// Occupied: the room is marked suspected_empty yet has roster entries,
	// which a departure whose instance died between its steps leaves
	// behind (a join slipped in before its write); it must be repaired to
	// active, and the entries' own departures start a new grace.
	Occupied
)

// TeardownResult is what the authoritative check found and did.
type TeardownResult struct {
	Verdict Verdict
	Entries int      // roster entries counted for the check
	Room    *Room    // as read inside the transaction; nil if gone
	Closing *Closing // set when the room was torn down
	// Recorded says this check recorded the room as a teardown candidate
	// (rollout.go): with the teardown, or with the first observe-mode mark.
	Recorded bool
}

// JudgeTeardown is the check made by the teardown transaction, on the room
// as read there and the number of its roster entries, live or awaiting
// expiry. Only TearDown permits deletion: failing to prove absence keeps
// the room.
//
// The proof of absence is an empty roster, not the absence of a lease
// live at now. Every session has its user's entry, and an entry goes only
// in a transaction that reads and deletes each of the user's sessions, so
// no entry means no session that anyone could still renew, update or
// expire. Judging leases at the sweeper's now instead lets a renewal that
// another instance judged a millisecond earlier commit under a deleted
// room (docs/races.md, "A teardown under a lease at its edge").
func JudgeTeardown(now time.Time, room *Room, c TeardownCandidate, entries int) Verdict {
	switch {
	case room == nil:
		return RoomGone
	case room.State != StateSuspectedEmpty || room.Generation != c.Generation || !room.CreatedAt.Equal(c.CreatedAt):
		return GenerationChanged
	case entries > 0:
		return Occupied
	case now.Before(room.CleanupAfter):
		return GraceNotOver
	}
	return TearDown
}

// Reactivate repairs a room marked suspected_empty that still has roster
// entries, or revives one for a join: it becomes active again with a new
// generation, so that any teardown decided on the old one loses.
func (s Settings) Reactivate(now time.Time, room Room) Room {
	room.State = StateActive
	room.Generation++
	room.CleanupAfter, room.EmptySince = time.Time{}, time.Time{}
	room.TeardownReported = false
	room.UpdatedAt = now
	room.ExpireAt = now.Add(s.RecordHorizon)
	return room
}

// Suspect marks an active room whose roster is empty (a state a missed
// event can leave behind) as suspected_empty, with the grace counted from
// now: nothing better is known about when it emptied.
func (s Settings) Suspect(now time.Time, room Room) Room {
	room.State = StateSuspectedEmpty
	s.startGrace(now, &room, now)
	return room
}

// Closing is the record kept of a torn-down room lifetime.
type Closing struct {
	RoomID     string
	OpenedAt   time.Time
	EmptySince time.Time
	ClosedAt   time.Time
	Generation int64
	Reason     string
	ExpireAt   time.Time
}

// CleanupLag is the time from the last departure to the teardown: the
// grace plus however late the sweeper came.
func (c Closing) CleanupLag() time.Duration { return c.ClosedAt.Sub(c.EmptySince) }

// CloseRoom returns the closing record of room torn down at now.
func (s Settings) CloseRoom(now time.Time, room Room) Closing {
	return Closing{RoomID: room.ID, OpenedAt: room.CreatedAt, EmptySince: room.EmptySince, ClosedAt: now,
		Generation: room.Generation, Reason: "empty",
		ExpireAt: now.Add(s.ClosingRetention)}
}
