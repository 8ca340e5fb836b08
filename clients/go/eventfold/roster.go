package eventfold

import (
	"slices"
	"time"
)

// Roster is one room's roster as folded from its events. The zero value
// is an empty roster of no lifetime yet. It is not safe for concurrent
// use.
type Roster struct {
	// Lifetime is the latest lifetime of the room any event applied was
	// of; Closed says a room.closed of it was applied.
	Lifetime time.Time
	Closed   bool
	people   map[string]*participantState
}

type participantState struct {
	latest int64 // the highest participantSeq applied
	event  Event // that event
	seen   map[int64]bool
}

// Result says what Apply did with an event.
type Result int

const (
	// Applied: the event is now part of the roster (the latest of its
	// participant, or the room's closing).
	Applied Result = iota
	// Superseded: a later event of the same participant was applied
	// already; the event only fills its place in the sequence.
	Superseded
	// Duplicate: this participant's event of that number was applied.
	Duplicate
	// Stale: the event is of an earlier lifetime of the room, or of a
	// lifetime already closed.
	Stale
)

// Apply folds ev into the roster. Any order and any repetition of a
// lifetime's events leave the same roster.
func (r *Roster) Apply(ev Event) Result {
	switch life := ev.Data.Lifetime; {
	case life.Before(r.Lifetime):
		return Stale
	case life.After(r.Lifetime):
		r.Lifetime, r.Closed, r.people = life, false, nil
	}
	if ev.Type == TypeClosed {
		if r.Closed {
			return Duplicate
		}
		// The last event of a lifetime: whatever of it arrives later
		// changes nothing (a closed room has no one in it).
		r.Closed = true
		return Applied
	}
	if r.Closed {
		return Stale
	}
	if r.people == nil {
		r.people = map[string]*participantState{}
	}
	p := r.people[ev.Data.ParticipantID]
	if p == nil {
		p = &participantState{seen: map[int64]bool{}}
		r.people[ev.Data.ParticipantID] = p
	}
	seq := ev.Data.ParticipantSeq
	if p.seen[seq] {
		return Duplicate
	}
	p.seen[seq] = true
	if seq < p.latest {
		return Superseded
	}
	p.latest, p.event = seq, ev
	return Applied
}

// Member is a participant on the folded roster.
type Member struct {
	ParticipantID string
	Participant
	// Seq is the participantSeq of the event the entry comes from.
	Seq int64
}

// Members returns who is in the room, by participant id.
func (r *Roster) Members() []Member {
	if r.Closed {
		return nil
	}
	var out []Member
	for id, p := range r.people {
		if p.event.Type == TypeLeft || p.event.Data.Participant == nil {
			continue
		}
		out = append(out, Member{ParticipantID: id, Participant: *p.event.Data.Participant, Seq: p.latest})
	}
	slices.SortFunc(out, func(a, b Member) int {
		switch {
		case a.ParticipantID < b.ParticipantID:
			return -1
		case a.ParticipantID > b.ParticipantID:
			return 1
		}
		return 0
	})
	return out
}

// Gap is a participant's events not seen yet: the sequence numbers below
// the latest applied that no event applied carried.
type Gap struct {
	ParticipantID string
	Missing       []int64
}

// Gaps returns the gaps of the current lifetime. Events arrive out of
// order, so a gap may close by itself; one that stays open (longer than
// the subscription's redelivery takes, say a minute) means an event will
// not come, and the roster should be read from roomlease.
func (r *Roster) Gaps() []Gap {
	var out []Gap
	for id, p := range r.people {
		var missing []int64
		for seq := int64(1); seq < p.latest; seq++ {
			if !p.seen[seq] {
				missing = append(missing, seq)
			}
		}
		if len(missing) > 0 {
			out = append(out, Gap{ParticipantID: id, Missing: missing})
		}
	}
	slices.SortFunc(out, func(a, b Gap) int {
		if a.ParticipantID < b.ParticipantID {
			return -1
		}
		return 1
	})
	return out
}

// Seed folds in a snapshot of the room read from roomlease (a service's
// roster read): its lifetime, who is in it, and seqs, the latest
// participantSeq of everyone who had an event in the lifetime, present
// or gone. Events the snapshot reflects (a number at or below the
// participant's there) change nothing when they arrive; later ones apply
// as usual. A snapshot of an earlier lifetime is Stale; one of a later
// lifetime starts it. A member missing from seqs counts as number 0.
func (r *Roster) Seed(lifetime time.Time, members []Member, seqs map[string]int64) Result {
	switch {
	case lifetime.Before(r.Lifetime) || lifetime.Equal(r.Lifetime) && r.Closed:
		return Stale
	case lifetime.After(r.Lifetime):
		r.Lifetime, r.Closed, r.people = lifetime, false, nil
	}
	if r.people == nil {
		r.people = map[string]*participantState{}
	}
	present := map[string]Member{}
	for _, m := range members {
		present[m.ParticipantID] = m
	}
	for id, seq := range seqs {
		p := r.people[id]
		if p == nil {
			p = &participantState{seen: map[int64]bool{}}
			r.people[id] = p
		}
		if seq <= p.latest {
			continue // the events already went further
		}
		for n := int64(1); n <= seq; n++ {
			p.seen[n] = true
		}
		ev := Event{Type: TypeLeft, Data: Data{Lifetime: lifetime, ParticipantID: id, ParticipantSeq: seq}}
		if m, ok := present[id]; ok {
			part := m.Participant
			ev.Type, ev.Data.Participant = TypeUpdated, &part
		}
		p.latest, p.event = seq, ev
	}
	return Applied
}
