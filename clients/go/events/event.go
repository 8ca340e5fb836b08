package events

import (
	"encoding/json"
	"time"

	"github.com/roomlease/roomlease/clients/go/eventfold"
)

// The event types (ce-type).
const (
	TypeParticipantJoined  = eventfold.TypeJoined
	TypeParticipantUpdated = eventfold.TypeUpdated
	TypeParticipantLeft    = eventfold.TypeLeft
	TypeRoomClosed         = eventfold.TypeClosed
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

// Data is an event's data and Participant a roster entry as an event
// carries it: eventfold's types, so that what Handler decodes folds into a
// roster as it is.
type (
	Data        = eventfold.Data
	Participant = eventfold.Participant
)

// Decode parses the event's data.
func (e Event) Decode() (Data, error) {
	var d Data
	err := json.Unmarshal(e.Data, &d)
	return d, err
}
