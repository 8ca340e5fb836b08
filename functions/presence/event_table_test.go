package presence_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

func TestParticipantEvent(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 2, 3, 0, time.UTC)
	life := now.Add(-time.Hour)
	ada := presence.Participant{RoomID: "r", ID: "u", DisplayName: "Ada", SessionCount: 1, JoinedAt: life}
	busy := ada
	busy.State, busy.SessionCount = presence.State{"mood": "busy"}, 2
	for _, tc := range []struct {
		name          string
		cur           presence.EventCursor
		before, after *presence.Participant
		reason        string
		typ           string
		seq           int64
		changed       []string
	}{
		{"a first join", presence.EventCursor{}, nil, &ada, "", presence.EventJoined, 1, nil},
		{"an update goes on counting", presence.EventCursor{Lifetime: life, Seq: 4}, &ada, &busy, "", presence.EventUpdated, 5, []string{"state", "sessionCount"}},
		{"a departure, with its reason", presence.EventCursor{Lifetime: life, Seq: 5}, &busy, nil, presence.ReasonExpired, presence.EventLeft, 6, nil},
		{"a rejoin in the same lifetime goes on counting", presence.EventCursor{Lifetime: life, Seq: 6}, nil, &ada, "", presence.EventJoined, 7, nil},
		{"a cursor of an earlier lifetime starts again", presence.EventCursor{Lifetime: life.Add(-time.Hour), Seq: 9}, nil, &ada, "", presence.EventJoined, 1, nil},
		{"nothing a roster shows changed: no event", presence.EventCursor{Lifetime: life, Seq: 2}, &ada, &ada, "", "", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, next, ok := presence.ParticipantEvent(now, life, tc.cur, tc.before, tc.after, tc.reason)
			if tc.typ == "" {
				if ok || next != tc.cur {
					t.Fatalf("an event %+v (cursor %+v) for no change", ev, next)
				}
				return
			}
			if !ok || ev.Type != tc.typ || ev.ParticipantSeq != tc.seq || next.Seq != tc.seq || !next.Lifetime.Equal(life) ||
				!slices.Equal(ev.Changed, tc.changed) || ev.Reason != tc.reason || ev.ParticipantID != "u" || ev.RoomID != "r" {
				t.Fatalf("event %+v, cursor %+v", ev, next)
			}
		})
	}
}

// The data's field names and time format are the contract of
// docs/events.md, "The events".
func TestEvent_Data(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 2, 3, 456789000, time.UTC)
	ada := presence.Participant{RoomID: "standup", ID: "uid-1", DisplayName: "Ada", SessionCount: 1, JoinedAt: now}
	ev, _, _ := presence.ParticipantEvent(now, now.Add(-time.Minute), presence.EventCursor{}, &ada, nil, presence.ReasonLeft)
	b, err := ev.Data()
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	p, _ := d["participant"].(map[string]any)
	if d["roomId"] != "standup" || d["participantId"] != "uid-1" || d["participantSeq"] != 1.0 || d["reason"] != "left" ||
		d["occurredAt"] != "2026-12-02T01:02:03.456789Z" || d["lifetime"] != "2026-12-02T01:01:03.456789Z" ||
		p["displayName"] != "Ada" || p["state"] == nil || d["changed"] != nil || d["openedAt"] != nil {
		t.Fatalf("data %s", b)
	}
	closing := presence.Closing{RoomID: "standup", OpenedAt: now.Add(-time.Hour), EmptySince: now.Add(-30 * time.Second), ClosedAt: now, Generation: 7}
	if b, err = presence.ClosedEvent(closing).Data(); err != nil {
		t.Fatal(err)
	}
	d = nil
	_ = json.Unmarshal(b, &d)
	if d["cleanupLagSeconds"] != 30.0 || d["generation"] != 7.0 || d["participantId"] != nil || d["closedAt"] != d["occurredAt"] ||
		d["lifetime"] != d["openedAt"] {
		t.Fatalf("room.closed data %s", b)
	}
}
