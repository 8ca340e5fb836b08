package events

import (
	"encoding/json"
	"time"
)

// The event types (ce-type).
const (
	TypeParticipantJoined  = "roomlease.participant.joined"
	TypeParticipantUpdated = "roomlease.participant.updated"
	TypeParticipantLeft    = "roomlease.participant.left"
	TypeRoomClosed         = "roomlease.room.closed"
)

// Event is one CloudEvent as roomlease publishes it (binary mode: the
// context attributes are Pub/Sub attributes, the data is the message).
type Event struct {
	ID      string    // ce-id: the same on every delivery of one event
	Type    string    // ce-type: one of the Type constants
	Source  string    // ce-source: //roomlease/projects/{project}/databases/{database}
	Subject string    // ce-subject: rooms/{roomId}
	Time    time.Time // ce-time: when the change committed
	// Data is the event's JSON data, as published; Decode reads it.
	Data json.RawMessage
	// MessageID and Attempt are Pub/Sub's: the delivery's message id and,
	// with a dead-letter policy, its delivery attempt (0 without one).
	MessageID string
	Attempt   int
}

// Data is an event's data. Fields that an event type does not carry are
// zero; fields added later are ignored (forward compatibility).
type Data struct {
	RoomID   string    `json:"roomId"`
	Lifetime time.Time `json:"lifetime"`
	// Participant events.
	ParticipantID  string       `json:"participantId"`
	ParticipantSeq int64        `json:"participantSeq"`
	Participant    *Participant `json:"participant"`
	Changed        []string     `json:"changed"` // updated only
	Reason         string       `json:"reason"`  // left only: left, expired or evicted
	OccurredAt     time.Time    `json:"occurredAt"`
	// room.closed.
	OpenedAt          time.Time `json:"openedAt"`
	ClosedAt          time.Time `json:"closedAt"`
	EmptySince        time.Time `json:"emptySince"`
	CleanupLagSeconds float64   `json:"cleanupLagSeconds"`
	Generation        int64     `json:"generation"`
}

// Participant is a roster entry as an event carries it.
type Participant struct {
	DisplayName  string          `json:"displayName"`
	PhotoURL     string          `json:"photoURL"`
	State        json.RawMessage `json:"state"`
	Away         bool            `json:"away"`
	SessionCount int             `json:"sessionCount"`
	JoinedAt     time.Time       `json:"joinedAt"`
}

// Decode parses the event's data.
func (e Event) Decode() (Data, error) {
	var d Data
	err := json.Unmarshal(e.Data, &d)
	return d, err
}
