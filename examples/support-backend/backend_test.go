package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/clients/go/events"
)

type fakeTickets struct{ reassigned []string }

func (f *fakeTickets) Reassign(_ context.Context, ticketID, agentID, reason string) error {
	f.reassigned = append(f.reassigned, ticketID+" "+agentID+" "+reason)
	return nil
}

type fakeTranscripts struct{ finalized []string }

func (f *fakeTranscripts) Finalize(_ context.Context, roomID string, lifetime time.Time) error {
	f.finalized = append(f.finalized, roomID+" "+lifetime.UTC().Format(time.RFC3339Nano))
	return nil
}

// push posts one event as a Pub/Sub push subscription would.
func push(t *testing.T, h http.Handler, id, typ, data string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"message": map[string]any{
		"attributes": map[string]string{"ce-specversion": "1.0", "ce-id": id, "ce-type": typ, "ce-subject": "rooms/x",
			"ce-source": "//roomlease/projects/app/databases/roomlease", "ce-time": "2026-12-02T01:02:03Z"},
		"data": base64.StdEncoding.EncodeToString([]byte(data)), "messageId": id}})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(string(body))))
	return w.Code
}

func TestBackend(t *testing.T) {
	tickets, transcripts := &fakeTickets{}, &fakeTranscripts{}
	b := &Backend{Tickets: tickets, Transcripts: transcripts}
	h := events.Handler(events.HandlerOptions{Handle: b.Handle, Logger: log.New(io.Discard, "", 0)})

	agentLeft := `{"roomId":"support-T42","lifetime":"2026-12-02T01:00:00.123456Z","participantId":"agent-7","participantSeq":2,
		"reason":"expired","participant":{"displayName":"Grace","state":{"role":"agent"},"sessionCount":1}}`
	customerLeft := `{"roomId":"support-T42","participantId":"cust-1","participantSeq":2,"reason":"left",
		"participant":{"displayName":"Bob","state":{}}}`
	closed := `{"roomId":"support-T42","lifetime":"2026-12-02T01:00:00.123456Z","openedAt":"2026-12-02T01:00:00.123456Z",
		"closedAt":"2026-12-02T01:20:00Z","emptySince":"2026-12-02T01:19:30Z","cleanupLagSeconds":0.4,"generation":3}`
	otherRoom := `{"roomId":"standup","participantId":"agent-7","reason":"left","participant":{"state":{"role":"agent"}}}`

	for _, d := range []struct{ id, typ, data string }{
		{"e1", events.TypeParticipantLeft, agentLeft},
		{"e1", events.TypeParticipantLeft, agentLeft}, // redelivered
		{"e2", events.TypeParticipantLeft, customerLeft},
		{"e3", events.TypeParticipantJoined, agentLeft},
		{"e4", events.TypeParticipantLeft, otherRoom},
		{"e5", events.TypeRoomClosed, closed},
		{"e5", events.TypeRoomClosed, closed}, // redelivered
	} {
		if c := push(t, h, d.id, d.typ, d.data); c != http.StatusNoContent {
			t.Fatalf("%s %s: %d, want 204", d.id, d.typ, c)
		}
	}
	if len(tickets.reassigned) != 1 || tickets.reassigned[0] != "T42 agent-7 agent expired" {
		t.Errorf("reassigned %q, want T42 once, from agent-7 (expired)", tickets.reassigned)
	}
	if len(transcripts.finalized) != 1 || transcripts.finalized[0] != "support-T42 2026-12-02T01:00:00.123456Z" {
		t.Errorf("finalized %q, want support-T42's lifetime once", transcripts.finalized)
	}
}
