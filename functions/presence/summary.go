package presence

import "time"

// A large room's summary: what its listeners follow instead of every
// roster entry. Every visible change costs each listener of the roster a
// read, so a room of N whose members change c times a second costs N × c
// reads a second; the summary costs each listener at most one read a
// second, whatever the churn. It is refreshed by one writer on a cadence
// (the summarizer), never by the joins and leaves themselves, so it is no
// hot document: no join or leave writes it, or waits for it.

// SummaryEvery is the summary's cadence: it is refreshed at most this
// often, so each listener reads it at most once per period.
const SummaryEvery = time.Second

// SummarySample and SummaryChanges bound what one summary carries: a
// sample of the roster, and the joins and departures since the previous
// summary (the latest first; Truncated when there were more).
const (
	SummarySample  = 20
	SummaryChanges = 50
)

// Summary is rooms/{roomId}/summary/current.
type Summary struct {
	RoomID string
	// Count is the number of roster entries at Revision: both come from
	// one snapshot of the revision shards, so the count is exact at the
	// revision it states.
	Count    int
	Revision int64
	AsOf     time.Time
	// PreviousAsOf is the AsOf of the summary this one replaced (zero for
	// the first): Joined and Left are the changes after it.
	PreviousAsOf time.Time
	Sample       []SummaryEntry
	Joined       []SummaryEntry
	Left         []Departure
	// Truncated says that more joins or departures happened since
	// PreviousAsOf than Joined and Left carry.
	Truncated bool
	ExpireAt  time.Time
	// Large says that the room's listeners follow this summary instead of
	// the roster (its mode, "large"). A room that has a summary only
	// because it opts in to public occupancy is not large below its
	// threshold: its clients keep the roster (mode "roster").
	Large bool
}

// SummaryEntry is one participant as a summary shows them.
type SummaryEntry struct {
	ParticipantID string
	DisplayName   string
	PhotoURL      string
	Away          bool
	JoinedAt      time.Time
}

// largeRoomAt is the roster size from which the room with policy p
// (nil if none) is summarized.
func (s Settings) largeRoomAt(p *Policy) int {
	if p != nil && p.LargeRoomThreshold > 0 {
		return p.LargeRoomThreshold
	}
	return s.LargeRoomThreshold
}

// MarksLarge reports whether a join that adds an entry to a roster of
// entries (as it read them) is one of the joins that mark the room for
// the summarizer: those that take it across the threshold, within
// ExactCapMargin of it (the size a join reads may skip a value when joins
// race). Only these write the mark, and only once each, so no document is
// written by every join.
func (s Settings) MarksLarge(entries int, p *Policy) bool {
	t := s.largeRoomAt(p)
	return entries+1 >= t && entries+1 < t+ExactCapMargin
}

// NearLarge reports whether a join that adds an entry to a roster of
// entries (as it read them) stays below the large-room threshold by fewer
// than ExactCapMargin places: such a join counts the roster again after
// its commit, and marks the room if it has reached the threshold
// (JoinPlan.CheckLargeAt). Why: joins that race read the size before one
// another's commits, so in a crowd arriving at once every one of them may
// read a size below the threshold and none would mark the room; the last
// of them to commit counts, after its commit, every entry committed before
// it. Only joins this close count again, so no count is added to every join.
func (s Settings) NearLarge(entries int, p *Policy) bool {
	t := s.largeRoomAt(p)
	return entries+1 < t && entries+1 >= t-ExactCapMargin
}

// SummaryDue reports whether a summary last refreshed at prev (zero:
// never) may be refreshed at now.
func SummaryDue(now, prev time.Time) bool {
	return prev.IsZero() || !now.Before(prev.Add(SummaryEvery))
}

// LargeMode reports whether a summarized room of count entries is in
// large mode, given whether its previous summary was: a room that is
// summarized for its size always is (KeepsSummary); one that opts in to
// public occupancy is from its threshold until it falls to half of it,
// as it would be without the opt-in, so that its listeners do not leave
// the roster for a room of a few.
func (s Settings) LargeMode(count int, p *Policy, wasLarge bool) bool {
	if p == nil || !p.PublicOccupancy {
		return true
	}
	t := s.largeRoomAt(p)
	return count >= t || (wasLarge && count*2 >= t)
}

// KeepsSummary reports whether a room of count entries stays summarized:
// until its roster falls to half its threshold, so that a room hovering at
// the threshold does not flip its listeners between modes; a room that
// opts in to public occupancy is summarized whatever its size.
func (s Settings) KeepsSummary(count int, p *Policy) bool {
	if p != nil && p.PublicOccupancy {
		return true
	}
	return count*2 >= s.largeRoomAt(p)
}
