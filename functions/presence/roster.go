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

// Includes reports whether uid is among the live participants.
func (r Roster) Includes(uid string) bool {
	for _, p := range r.Participants {
		if p.ID == uid {
			return true
		}
	}
	return false
}
