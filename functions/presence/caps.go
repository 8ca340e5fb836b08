package presence

import (
	"sort"
	"time"
)

// The per-user caps. Both are abuse limits: they bound what one account
// (anonymous sign-in makes accounts free) can make the system hold, and so
// what a roster read and the sweeper cost. Both are decided before a join
// writes anything, its room lifecycle step included, so that a refused join
// leaves no trace.

// UserRooms is the per-user document (roomleaseUsers/{uid}): the rooms in
// which a join of this user added a roster entry, and when. It is written
// only by such joins; departures, expiry and teardown never touch it, so an
// entry may outlive its room's roster entry. Such stale entries are dropped
// lazily, when the list reaches the cap (RoomsToCheck).
type UserRooms struct {
	Rooms    map[string]time.Time // roomId → when the entry was added
	ExpireAt time.Time            // TTL backstop: RecordHorizon after the last write
}

// RoomsToCheck names the rooms, other than roomID, whose roster entry the
// store must look up before a join that adds an entry to roomID can be
// decided: all of them when they already reach MaxRoomsPerUser, none
// otherwise (below the cap, stale entries do no harm). u is nil when the
// user has no document. The result is sorted, so that reads are repeatable.
func (s Settings) RoomsToCheck(u *UserRooms, roomID string) []string {
	if u == nil {
		return nil
	}
	others := make([]string, 0, len(u.Rooms))
	for id := range u.Rooms {
		if id != roomID {
			others = append(others, id)
		}
	}
	if len(others) < s.MaxRoomsPerUser {
		return nil
	}
	sort.Strings(others)
	return others
}

// checkSessionCap refuses a join that would give the user more than
// MaxSessionsPerUser live sessions in the room. A reconnect of a session
// whose lease still holds adds no live session and is never refused (not
// even after the cap was lowered below what the user holds). A session whose
// lease has ended counts as a new one: otherwise a client could let leases
// lapse and revive them past the cap before the sweeper removes them, and
// the cap would not bound what a roster read costs.
func (s Settings) checkSessionCap(now time.Time, st JoinState, sessionID string) error {
	for _, sess := range st.Sessions {
		if sess.ID == sessionID && sess.Live(now) {
			return nil
		}
	}
	if liveOthers(now, st.Sessions, sessionID) >= s.MaxSessionsPerUser {
		return Errorf(ETooManySessions, "you already hold %d live sessions in this room, the most allowed; leave one first", s.MaxSessionsPerUser)
	}
	return nil
}

// admitRoom decides the rooms cap for a join that adds a roster entry to
// roomID, and returns the per-user document to write with it: the rooms
// listed before, less those the store found without an entry
// (st.CheckedRooms), plus roomID. Returns ETooManyRooms when the user's other
// rooms still reach MaxRoomsPerUser.
func (s Settings) admitRoom(now time.Time, st JoinState, roomID string) (*UserRooms, error) {
	kept := map[string]time.Time{}
	if st.UserRooms != nil {
		for id, at := range st.UserRooms.Rooms {
			if present, checked := st.CheckedRooms[id]; id == roomID || (checked && !present) {
				continue
			}
			kept[id] = at
		}
	}
	if len(kept) >= s.MaxRoomsPerUser {
		return nil, Errorf(ETooManyRooms, "you are already in %d rooms, the most allowed at once; leave one first", s.MaxRoomsPerUser)
	}
	kept[roomID] = now
	return &UserRooms{Rooms: kept, ExpireAt: now.Add(s.RecordHorizon)}, nil
}
