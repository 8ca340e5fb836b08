// Package eventfold folds roomlease's presence events into a room's roster
// (docs/events.md, "What a consumer can rely on"). It uses the standard
// library only.
//
// Events come from several publishers (the instance that committed each
// change, the sweeper's relay), so they arrive in any order and some
// arrive twice. A Roster applies them in any order, any number of times,
// and ends with the room's roster: each participant's state is that of
// their event with the highest participantSeq in the room's latest
// lifetime, since every participant event carries the whole entry after
// the change. Sequence numbers are consecutive, so a Roster also knows
// which events it has not seen yet (Gaps): one that stays missing is the
// moment to read the roster from roomlease instead.
package eventfold

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The event types (CloudEvents "type").
const (
	TypeJoined  = "roomlease.participant.joined"
	TypeUpdated = "roomlease.participant.updated"
	TypeLeft    = "roomlease.participant.left"
	TypeClosed  = "roomlease.room.closed"
)

// Event is one presence event, decoded.
type Event struct {
	// The CloudEvents attributes.
	ID      string
	Type    string
	Source  string
	Subject string // rooms/{roomId}
	Time    time.Time
	Data    Data
}

// Data is an event's data. Fields a type does not carry are zero.
type Data struct {
	RoomID string `json:"roomId"`
	// Lifetime is the room's opening time: later lifetimes of one room id
	// have later ones.
	Lifetime       time.Time    `json:"lifetime"`
	ParticipantID  string       `json:"participantId,omitempty"`
	ParticipantSeq int64        `json:"participantSeq,omitempty"`
	Reason         string       `json:"reason,omitempty"` // left: left, expired or evicted
	Participant    *Participant `json:"participant,omitempty"`
	Changed        []string     `json:"changed,omitempty"`
	OccurredAt     time.Time    `json:"occurredAt"`
	// room.closed: the closing record's figures.
	OpenedAt          time.Time `json:"openedAt,omitzero"`
	ClosedAt          time.Time `json:"closedAt,omitzero"`
	EmptySince        time.Time `json:"emptySince,omitzero"`
	CleanupLagSeconds float64   `json:"cleanupLagSeconds,omitempty"`
	Generation        int64     `json:"generation,omitempty"`
}

// Participant is a roster entry as an event carries it.
type Participant struct {
	DisplayName  string         `json:"displayName"`
	PhotoURL     string         `json:"photoURL"`
	State        map[string]any `json:"state"`
	Away         bool           `json:"away"`
	SessionCount int            `json:"sessionCount"`
	JoinedAt     time.Time      `json:"joinedAt"`
}

// ErrNotAnEvent is returned by Decode for a message that is not a
// roomlease event.
var ErrNotAnEvent = errors.New("not a roomlease event")

// Decode reads an event from a Pub/Sub message's attributes and data
// (CloudEvents' Pub/Sub binding, binary mode). Unknown fields are ignored.
func Decode(attributes map[string]string, data []byte) (Event, error) {
	ev := Event{ID: attributes["ce-id"], Type: attributes["ce-type"], Source: attributes["ce-source"],
		Subject: attributes["ce-subject"]}
	if attributes["ce-specversion"] != "1.0" || ev.ID == "" {
		return Event{}, fmt.Errorf("%w: specversion %q, id %q", ErrNotAnEvent, attributes["ce-specversion"], ev.ID)
	}
	switch ev.Type {
	case TypeJoined, TypeUpdated, TypeLeft, TypeClosed:
	default:
		return Event{}, fmt.Errorf("%w: type %q", ErrNotAnEvent, ev.Type)
	}
	if t := attributes["ce-time"]; t != "" {
		var err error
		if ev.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return Event{}, fmt.Errorf("event %s: ce-time: %w", ev.ID, err)
		}
	}
	if err := json.Unmarshal(data, &ev.Data); err != nil {
		return Event{}, fmt.Errorf("event %s: data: %w", ev.ID, err)
	}
	if ev.Data.RoomID == "" || ev.Data.Lifetime.IsZero() || ev.Type != TypeClosed && (ev.Data.ParticipantID == "" || ev.Data.ParticipantSeq < 1) {
		return Event{}, fmt.Errorf("event %s: data lacks roomId, lifetime or participant fields", ev.ID)
	}
	return ev, nil
}
