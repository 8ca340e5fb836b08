package presence

import "time"

// Emptiness is what an emptiness check found and decided.
type Emptiness int

const (
	// StillOccupied: the roster has entries, or the room is gone; nothing
	// to write.
	StillOccupied Emptiness = iota
	// BecameEmpty: the room was active with an empty roster and enters its
	// grace: the one transition to suspected_empty.
	BecameEmpty
	// LaterDeparture: the room was already suspected_empty, but this
	// departure happened after the one that emptied it (two last
	// participants leaving at once on different instances): the grace
	// counts from the later one.
	LaterDeparture
	// AlreadyEmpty: suspected_empty already, from this departure or a later
	// one; nothing to write.
	AlreadyEmpty
)

// PlanEmptiness decides, after a departure at departedAt removed a roster
// entry, whether the room becomes suspected_empty, given the room and the
// number of roster entries as read after that departure committed.
//
// Each departure that removes an entry checks once, after its own commit, so
// the last of any number of concurrent departures finds the roster empty.
// The store writes the result only if the room is still as read, so the
// transition itself happens once, and the grace counts from the latest
// departure that checked.
func (s Settings) PlanEmptiness(now time.Time, room *Room, entries int, departedAt time.Time) (Room, Emptiness) {
	switch {
	case room == nil || entries > 0:
		return Room{}, StillOccupied
	case room.State == StateActive:
		r := *room
		r.State = StateSuspectedEmpty
		s.startGrace(now, &r, departedAt)
		return r, BecameEmpty
	case departedAt.After(room.EmptySince):
		r := *room
		s.startGrace(now, &r, departedAt)
		return r, LaterDeparture
	}
	return Room{}, AlreadyEmpty
}

// RepairReport is what a sweeper's re-check of possibly empty rooms did.
type RepairReport struct {
	Repaired int       // rooms found active and empty, now in their grace
	Failed   int       // rooms whose check failed, marked for another look
	Through  time.Time // candidates up to here were looked at
}

// startGrace starts room's empty-room grace at emptySince.
func (s Settings) startGrace(now time.Time, room *Room, emptySince time.Time) {
	room.EmptySince = emptySince
	room.CleanupAfter = emptySince.Add(s.EmptyRoomGrace)
	room.TeardownReported = false
	room.UpdatedAt = now
	room.ExpireAt = now.Add(s.RecordHorizon)
}
