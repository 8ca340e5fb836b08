package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/roomlease/roomlease/clients/go/events"
)

// A support call is the room "support-{ticketId}": a customer and the
// agent the ticket is assigned to. Agents join with the state
// {"role":"agent"}.
const roomPrefix = "support-"

// Tickets is the help desk's ticket store.
type Tickets interface {
	// Reassign hands ticketID to another agent if agentID still holds it,
	// and does nothing otherwise, so that a redelivered event (or a
	// second instance handling the same event) reassigns once.
	Reassign(ctx context.Context, ticketID, agentID, reason string) error
}

// Transcripts stores call transcripts.
type Transcripts interface {
	// Finalize closes the transcript of one lifetime of a room; finalizing
	// one twice is a no-op. A room id reused later is another lifetime
	// (another transcript).
	Finalize(ctx context.Context, roomID string, lifetime time.Time) error
}

// Backend reacts to the presence events of support calls.
type Backend struct {
	Tickets     Tickets
	Transcripts Transcripts
}

// Handle is the events.Handler function: an error has the event
// redelivered.
//
//   - participant.left of an agent (reason left, expired or evicted: a
//     crashed laptop is "expired") reassigns the ticket;
//   - room.closed finalizes the transcript.
//
// Everything else, and rooms that are not support calls, is ignored. No
// roster is kept, so no ordering is needed: each reaction is decided by
// one event alone, and is idempotent.
func (b *Backend) Handle(ctx context.Context, ev events.Event) error {
	if ev.Type != events.TypeParticipantLeft && ev.Type != events.TypeRoomClosed {
		return nil
	}
	d, err := ev.Decode()
	if err != nil {
		return fmt.Errorf("event %s: %w", ev.ID, err)
	}
	ticketID, ok := strings.CutPrefix(d.RoomID, roomPrefix)
	if !ok || ticketID == "" {
		return nil
	}
	switch ev.Type {
	case events.TypeParticipantLeft:
		if d.Participant == nil || !isAgent(d.Participant.State) {
			return nil
		}
		return b.Tickets.Reassign(ctx, ticketID, d.ParticipantID, "agent "+d.Reason)
	default: // room.closed
		return b.Transcripts.Finalize(ctx, d.RoomID, d.Lifetime)
	}
}

func isAgent(state map[string]any) bool {
	return state["role"] == "agent"
}
