package firestoredb_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// The model's events check (docs/events.md, "What a consumer can rely
// on"): the model's instances write the outbox and never get an
// acknowledgement, so every event ever committed stays there, and the
// check compares them with what the store counted.

// keepInOutbox is a publisher that never succeeds: the outbox keeps all.
type keepInOutbox struct{}

func (keepInOutbox) Publish(context.Context, presence.OutboxEvent) error {
	return errors.New("the model keeps every event in the outbox")
}

// checkEvents checks, against the outbox:
//   - a room's participant events of its current lifetime are exactly as
//     many as its revision, which rises by one per visible change: none
//     lost (a change without an event), none invented (an event without a
//     change, or of a rolled-back attempt);
//   - each participant's sequence numbers in a lifetime are 1, 2, … n,
//     without a gap or a repeat;
//   - every closing record has one room.closed event, and no more;
//   - after the drain, no event cursor is left under the rooms.
func (m *model) checkEvents(w world) {
	docs, err := m.client.Collection(firestoredb.OutboxCollection).Documents(m.ctx).GetAll()
	m.must(err)
	perLifetime := map[string]int64{} // room|lifetime → participant events
	seqs := map[string][]int64{}      // room|lifetime|uid → their seqs
	closed := map[string]int{}        // room|openedAt → room.closed events
	for _, snap := range docs {
		rec := snap.Data()
		raw, _ := rec["data"].(string)
		var d struct {
			RoomID, Lifetime, ParticipantID, OpenedAt string
			ParticipantSeq                            int64
		}
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			m.violate("outbox record %s: data %q: %v", snap.Ref.ID, raw, err)
			continue
		}
		if rec["type"] == presence.EventClosed {
			closed[d.RoomID+"|"+d.OpenedAt]++
			continue
		}
		perLifetime[d.RoomID+"|"+d.Lifetime]++
		key := d.RoomID + "|" + d.Lifetime + "|" + d.ParticipantID
		seqs[key] = append(seqs[key], d.ParticipantSeq)
	}
	for room, fields := range w.rooms {
		createdAt, _ := fields["createdAt"].(time.Time)
		if n, rev := perLifetime[room+"|"+presence.EventTime(createdAt)], w.revision[room]; n != rev {
			m.violate("room %s: %d events in its lifetime, but its revision is %d (one per visible change)", room, n, rev)
		}
	}
	for key, got := range seqs {
		slices.Sort(got)
		for i, seq := range got {
			if seq != int64(i+1) {
				m.violate("events of %s carry participantSeq %v, want 1…%d", key, got, len(got))
				break
			}
		}
	}
	closings, err := m.client.Collection(firestoredb.ClosingsCollection).Documents(m.ctx).GetAll()
	m.must(err)
	for _, snap := range closings {
		c := snap.Data()
		room, _ := c["roomId"].(string)
		openedAt, _ := c["openedAt"].(time.Time)
		key := room + "|" + presence.EventTime(openedAt)
		if closed[key] != 1 {
			m.violate("closing %s has %d room.closed events, want 1", snap.Ref.ID, closed[key])
		}
		delete(closed, key)
	}
	for key, n := range closed {
		m.violate("%d room.closed events of %s, which has no closing record", n, key)
	}
	if m.draining && len(w.rooms) == 0 {
		cursors, err := m.client.CollectionGroup(firestoredb.EventCursorsCollection).Documents(m.ctx).GetAll()
		m.must(err)
		for _, snap := range cursors {
			m.violate("%s left after the drain", snap.Ref.Path)
		}
	}
}
