package pubsubevents_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/pubsubevents"
)

// A message is the CloudEvents Pub/Sub binding's binary mode: the data
// as is, every context attribute a ce-* attribute, the content type in
// content-type, and the room as the ordering key.
func TestMessage_BinaryMode(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 2, 3, 456789000, time.UTC)
	joined := at.Add(-time.Minute)
	ev, _, _ := presence.ParticipantEvent(at, joined, presence.EventCursor{}, nil,
		&presence.Participant{RoomID: "standup", ID: "uid-1", DisplayName: "Ada", JoinedAt: joined, SessionCount: 1}, "")
	data, err := ev.Data()
	if err != nil {
		t.Fatal(err)
	}
	out := presence.OutboxEvent{ID: "0123456789abcdef0123456789abcdef", Type: ev.Type, RoomID: "standup", Time: at, Data: data}
	m := pubsubevents.Message(pubsubevents.Source("p", "roomlease"), out)
	want := map[string]string{
		"ce-specversion": "1.0", "ce-id": out.ID, "ce-type": presence.EventJoined,
		"ce-source": "//roomlease/projects/p/databases/roomlease", "ce-subject": "rooms/standup",
		"ce-time": "2026-12-02T01:02:03.456789Z", "content-type": "application/json",
	}
	if len(m.Attributes) != len(want) {
		t.Errorf("attributes %v, want %v", m.Attributes, want)
	}
	for k, v := range want {
		if m.Attributes[k] != v {
			t.Errorf("%s = %q, want %q", k, m.Attributes[k], v)
		}
	}
	if m.OrderingKey != "standup" || string(m.Data) != string(data) {
		t.Errorf("ordering key %q, data %s", m.OrderingKey, m.Data)
	}
	size := len(m.Data)
	for k, v := range m.Attributes {
		size += len(k) + len(v)
	}
	t.Logf("a joined event: %d bytes of data, %d in all", len(m.Data), size)
}
