package presence

import (
	"encoding/json"
	"time"
)

// Events: what an app's backend is told of a room (docs/events.md). Every
// visible change of a roster entry, and every teardown, is one event,
// decided here from what the change's transaction read and wrote; the store
// keeps it in an outbox in that same transaction, so an event exists
// exactly when its change committed. How it travels (Pub/Sub, CloudEvents)
// is the adapters' business.

// The event types, CloudEvents' "type" attribute.
const (
	EventJoined  = "roomlease.participant.joined"
	EventUpdated = "roomlease.participant.updated"
	EventLeft    = "roomlease.participant.left"
	EventClosed  = "roomlease.room.closed"
)

// EventCursor is where one participant's events stand in a room: the
// lifetime (the room's CreatedAt) and the sequence number of the
// participant's latest event in it. It outlives the roster entry, so that
// a rejoin in the same lifetime goes on counting.
type EventCursor struct {
	Lifetime time.Time
	Seq      int64
}

// Event is one committed visible change of a room.
type Event struct {
	Type     string
	RoomID   string
	Lifetime time.Time // the room's CreatedAt: which lifetime of the room id
	// At is the committing transaction's now: when the change was decided.
	At time.Time
	// For participant events: whose entry changed, its sequence number
	// (1 on the participant's first event of the lifetime, +1 on each
	// later one), the entry after the change (as it was, for a departure),
	// what changed (updates) and why it went (departures).
	ParticipantID  string
	ParticipantSeq int64
	Participant    *Participant
	Changed        []string
	Reason         string
	// For room.closed: the closing record.
	Closing *Closing
}

// ParticipantEvent is the event of uid's roster entry going from before to
// after (nil: absent) at now, in the room lifetime lifetime, with reason
// for a departure; cur is the participant's cursor as stored (zero when
// none). It returns the event and the cursor to store with it, or false
// when nothing a roster shows changed (then nothing is to be written).
func ParticipantEvent(now, lifetime time.Time, cur EventCursor, before, after *Participant, reason string) (Event, EventCursor, bool) {
	var ev Event
	switch {
	case before == nil && after == nil:
		return Event{}, cur, false
	case before == nil:
		ev = Event{Type: EventJoined, Participant: after}
	case after == nil:
		ev = Event{Type: EventLeft, Participant: before, Reason: reason}
	default:
		changed := Changed(*before, *after)
		if len(changed) == 0 {
			return Event{}, cur, false
		}
		ev = Event{Type: EventUpdated, Participant: after, Changed: changed}
	}
	next := EventCursor{Lifetime: lifetime, Seq: 1}
	if cur.Lifetime.Equal(lifetime) {
		next.Seq = cur.Seq + 1
	}
	ev.RoomID, ev.ParticipantID = ev.Participant.RoomID, ev.Participant.ID
	ev.Lifetime, ev.At, ev.ParticipantSeq = lifetime, now, next.Seq
	return ev, next, true
}

// Changed lists the fields a roster shows that differ between two versions
// of one entry, in a fixed order.
func Changed(before, after Participant) []string {
	var out []string
	if !before.State.Equal(after.State) {
		out = append(out, "state")
	}
	if before.Away != after.Away {
		out = append(out, "away")
	}
	if before.DisplayName != after.DisplayName {
		out = append(out, "displayName")
	}
	if before.PhotoURL != after.PhotoURL {
		out = append(out, "photoURL")
	}
	if before.SessionCount != after.SessionCount {
		out = append(out, "sessionCount")
	}
	return out
}

// ClosedEvent is the event of c's teardown.
func ClosedEvent(c Closing) Event {
	return Event{Type: EventClosed, RoomID: c.RoomID, Lifetime: c.OpenedAt, At: c.ClosedAt, Closing: &c}
}

// eventData is an event's data as consumers read it (docs/events.md, "The
// events"). Its field names are the contract.
type eventData struct {
	RoomID            string           `json:"roomId"`
	Lifetime          string           `json:"lifetime"`
	ParticipantID     string           `json:"participantId,omitempty"`
	ParticipantSeq    int64            `json:"participantSeq,omitempty"`
	Reason            string           `json:"reason,omitempty"`
	Participant       *eventRosterItem `json:"participant,omitempty"`
	Changed           []string         `json:"changed,omitempty"`
	OccurredAt        string           `json:"occurredAt"`
	OpenedAt          string           `json:"openedAt,omitempty"`
	ClosedAt          string           `json:"closedAt,omitempty"`
	EmptySince        string           `json:"emptySince,omitempty"`
	CleanupLagSeconds *float64         `json:"cleanupLagSeconds,omitempty"`
	Generation        int64            `json:"generation,omitempty"`
}

type eventRosterItem struct {
	DisplayName  string `json:"displayName"`
	PhotoURL     string `json:"photoURL"`
	State        State  `json:"state"`
	Away         bool   `json:"away"`
	SessionCount int    `json:"sessionCount"`
	JoinedAt     string `json:"joinedAt"`
}

// EventTime is how events write a time: RFC 3339 in UTC with nanoseconds.
func EventTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Data is the event's data, JSON. It is computed once, in the transaction
// that commits the change, and stored: every publication of the event
// carries the same bytes.
func (e Event) Data() ([]byte, error) {
	d := eventData{RoomID: e.RoomID, Lifetime: EventTime(e.Lifetime), ParticipantID: e.ParticipantID,
		ParticipantSeq: e.ParticipantSeq, Reason: e.Reason, Changed: e.Changed, OccurredAt: EventTime(e.At)}
	if p := e.Participant; p != nil {
		state := p.State
		if state == nil {
			state = State{}
		}
		d.Participant = &eventRosterItem{DisplayName: p.DisplayName, PhotoURL: p.PhotoURL, State: state, Away: p.Away,
			SessionCount: p.SessionCount, JoinedAt: EventTime(p.JoinedAt)}
	}
	if c := e.Closing; c != nil {
		lag := c.CleanupLag().Seconds()
		d.OpenedAt, d.ClosedAt, d.EmptySince = EventTime(c.OpenedAt), EventTime(c.ClosedAt), EventTime(c.EmptySince)
		d.CleanupLagSeconds, d.Generation = &lag, c.Generation
	}
	return json.Marshal(d)
}

// OutboxEvent is an event as the outbox keeps it until Pub/Sub has
// acknowledged it: what a publisher needs, fixed at commit.
type OutboxEvent struct {
	// ID is the event's id (CloudEvents "id"): random, chosen in the
	// transaction attempt that committed, the same on every publication.
	ID     string
	Type   string
	RoomID string
	Time   time.Time // the committing transaction's now
	Data   []byte    // Event.Data
}

// OutboxReport is what one relay of the outbox did.
type OutboxReport struct {
	Published int
	// Pending is how many records the relay found waiting (published or
	// not), and OldestAge the age of the oldest of them at the relay's
	// now: the alarm of docs/events.md, "Operating the events".
	Pending   int
	OldestAge time.Duration
	Failed    int
}
