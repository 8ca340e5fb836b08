package presence

import "time"

// Occupancy is how many are in a room, for outsiders of a room that opts
// in (Policy.PublicOccupancy): the number of roster entries and the
// revision they were read at, as of a server time. It names nobody.
type Occupancy struct {
	RoomID   string
	Count    int
	Revision int64
	AsOf     time.Time
}

// CheckOccupancyReader decides whether anyone signed in may read a room's
// occupancy: only when its policy (nil if none) opts in. Every other room
// answers NotVisible, exactly as a room read answers an outsider, so that
// an occupancy request cannot tell an absent room from an occupied one.
// The decision rests on the policy alone, which lives outside the room and
// outlives it: it says nothing about whether the room exists.
func CheckOccupancyReader(p *Policy) error {
	if p == nil || !p.PublicOccupancy {
		return NotVisible()
	}
	return nil
}
