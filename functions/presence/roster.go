package presence

import (
	"sort"
	"time"
)

// Roster is a room as one read saw it: the room document, the roster
// entries that held a live lease at the time of the read, and the revision
// those entries reflect, all read in one snapshot.
//
// The revision is the number of visible roster changes in this lifetime of
// the room: each change adds exactly one, inside its own transaction, to one
// of the room's revision shards, and the revision is their sum. It never
// moves on a heartbeat or a reconnect of a known session.
type Roster struct {
	Room         Room
	Revision     int64
	Participants []Participant
	// RecentlyLeft are the users who went from the roster within
	// Settings.RecentlyLeft and are not back, the latest first.
	RecentlyLeft []Departure
}

// LiveRoster keeps the entries whose user holds at least one live session at
// now, ordered by join time then id. Entries whose last lease has ended stay
// in storage until a leave or the sweeper removes them, but are never shown.
func LiveRoster(now time.Time, room Room, revision int64, entries []Participant, sessions []Session) Roster {
	live := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		if s.Live(now) {
			live[s.ParticipantID] = true
		}
	}
	r := Roster{Room: room, Revision: revision, Participants: make([]Participant, 0, len(entries))}
	for _, e := range entries {
		if live[e.ID] {
			r.Participants = append(r.Participants, e)
		}
	}
	sort.Slice(r.Participants, func(i, j int) bool {
		a, b := r.Participants[i], r.Participants[j]
		if !a.JoinedAt.Equal(b.JoinedAt) {
			return a.JoinedAt.Before(b.JoinedAt)
		}
		return a.ID < b.ID
	})
	return r
}

// notVisibleMessage is the one message of NotVisible, whatever the reason.
const notVisibleMessage = "no such room, or you are not in it"

// NotVisible is the answer to a caller who may not read a room. It is the
// same (ENotFound, one message) whether the room is active, empty or absent,
// as a private repository answers 404 to outsiders: anything else would let
// anyone signed in probe which rooms exist and when someone is in them.
func NotVisible() error { return &Error{Code: ENotFound, Message: notVisibleMessage} }

// CheckReader decides whether a caller may read a room's roster: the room
// (nil if absent), the caller's roster entry (nil if absent) and sessions
// read at now, among which the caller must hold a live one. Only a live
// participant of an existing room may; everyone else gets NotVisible,
// decided before any other roster entry is read, so that an outsider's read
// costs what these records cost, not the roster.
func CheckReader(now time.Time, room *Room, entry *Participant, sessions []Session) error {
	if room == nil || entry == nil {
		return NotVisible()
	}
	for _, s := range sessions {
		if s.ParticipantID == entry.ID && s.Live(now) {
			return nil
		}
	}
	return NotVisible()
}
