package presence

import (
	"sort"
	"time"
)

// Why a user's roster entry went.
const (
	ReasonLeft    = "left"    // their last session left
	ReasonExpired = "expired" // their last lease ended without a leave
	ReasonEvicted = "evicted" // the room's policy no longer admits them
)

// Departure is a user who recently went from a room's roster, at
// rooms/{roomId}/recentlyLeft/{uid}: what a UI needs to grey them out for a
// while instead of making them vanish. It is written with the departure
// that removed the entry, and shown for Settings.RecentlyLeft after LeftAt;
// its ExpireAt is then, and TTL removes it some time later.
type Departure struct {
	RoomID        string
	ParticipantID string
	DisplayName   string
	PhotoURL      string
	LeftAt        time.Time
	Reason        string
	ExpireAt      time.Time
}

// DepartureOf is the record of plan's departure, which removed entry p.
func (s Settings) DepartureOf(p DeparturePlan) Departure {
	return Departure{RoomID: p.Participant.RoomID, ParticipantID: p.Participant.ID, DisplayName: p.Participant.DisplayName,
		PhotoURL: p.Participant.PhotoURL, LeftAt: p.DepartedAt, Reason: p.Reason, ExpireAt: p.DepartedAt.Add(s.RecentlyLeft)}
}

// RecentlyLeftSince is the earliest LeftAt a read at now shows.
func (s Settings) RecentlyLeftSince(now time.Time) time.Time { return now.Add(-s.RecentlyLeft) }

// RecentDepartures keeps the departures a read at now shows: within
// RecentlyLeft, and not of a user who is on the roster again, the latest
// first.
func (s Settings) RecentDepartures(now time.Time, deps []Departure, roster []Participant) []Departure {
	back := make(map[string]bool, len(roster))
	for _, p := range roster {
		back[p.ID] = true
	}
	since := s.RecentlyLeftSince(now)
	out := make([]Departure, 0, len(deps))
	for _, d := range deps {
		if d.LeftAt.After(since) && !back[d.ParticipantID] {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LeftAt.After(out[j].LeftAt) })
	return out
}
