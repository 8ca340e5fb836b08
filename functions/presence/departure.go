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
// that removed the entry, and shown for Settings.RecentlyLeft after LeftAt.
//
// It also carries the entry's Changes, and one more for the departure
// itself (see Participant.Changes): until the user comes back, whose join
// takes them over into the new entry, or until the sweeper folds them into
// the room's retired count, some time after the record stops showing
// (DepartureFoldAfter). So it is written for every departure, even with
// RecentlyLeft 0, and its ExpireAt is only the TTL backstop, RecordHorizon
// away: TTL must not take changes the sweeper has not folded yet.
type Departure struct {
	RoomID        string
	ParticipantID string
	DisplayName   string
	PhotoURL      string
	LeftAt        time.Time
	Reason        string
	ExpireAt      time.Time
	Changes       int64
	OpenedAt      time.Time // the lifetime of the entry it replaced
}

// DepartureFoldAfter is how long after a departure record stops showing the
// sweeper may fold it: clients judge "stops showing" on an estimated server
// clock, so they are given this much more. DepartureFoldEvery is the step
// in which the fold's cutoff moves: every sweeper, on every instance,
// folds a room's records up to the same minute, so a room gets at most one
// fold (one read for each of its listeners) a minute, however often
// sweeps run and however fast users leave.
const (
	DepartureFoldAfter = time.Minute
	DepartureFoldEvery = time.Minute
)

// DepartureOf is the record of plan's departure, which removed entry p.
func (s Settings) DepartureOf(p DeparturePlan) Departure {
	return Departure{RoomID: p.Participant.RoomID, ParticipantID: p.Participant.ID, DisplayName: p.Participant.DisplayName,
		PhotoURL: p.Participant.PhotoURL, LeftAt: p.DepartedAt, Reason: p.Reason, ExpireAt: p.DepartedAt.Add(s.RecordHorizon),
		Changes: p.Participant.Changes + 1, OpenedAt: p.Participant.OpenedAt}
}

// DeparturesFoldedBefore is the LeftAt before which a sweep at now folds
// departure records: shown by nobody any more, and left before the latest
// whole DepartureFoldEvery.
func (s Settings) DeparturesFoldedBefore(now time.Time) time.Time {
	return now.Add(-s.RecentlyLeft - DepartureFoldAfter).Truncate(DepartureFoldEvery)
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

// StaleDepartures are departure records of one room that a sweeper saw
// past DeparturesFoldedBefore: what one fold takes in one transaction.
type StaleDepartures struct {
	RoomID         string
	ParticipantIDs []string
}

// Folds reports whether a departure record as read now, d, is still one
// to fold at now: a user who came back took the record over (it is gone),
// and one who left again since wrote a newer one, shown again.
func (s Settings) Folds(now time.Time, d *Departure) bool {
	return d != nil && d.LeftAt.Before(s.DeparturesFoldedBefore(now))
}
