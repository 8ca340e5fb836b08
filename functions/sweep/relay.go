package sweep

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// The events relay (docs/events.md, "How an event gets out"): part of
// every pass when events are on, in every mode (publishing committed
// changes deletes nothing of a room, so the kill switch does not stop it),
// and run beside the pass's steps, so that none of them holds it back.

// EventOutbox is the store's outbox of committed events.
type EventOutbox interface {
	// PendingEvents lists up to limit outbox records, oldest first among
	// those listed; records that do not decode are in Undecodable. An
	// error means nothing was listed.
	PendingEvents(ctx context.Context, limit int) (presence.Listing[presence.OutboxEvent], error)
	// DeleteEvent removes a published record; one already gone is
	// success. An error means it stays, and is published again.
	DeleteEvent(ctx context.Context, id string) error
}

// EventPublisher publishes one event.
type EventPublisher interface {
	// Publish returns once Pub/Sub acknowledged ev; an error means it may
	// or may not have been published.
	Publish(ctx context.Context, ev presence.OutboxEvent) error
}

// RelayEvents adds the relay to every pass, beside its steps (Pass):
// records of outbox at least minAge old (younger ones are still the
// committing instance's to publish) are published through pub and then
// deleted. Call it before the sweeper runs.
func (s *Sweeper) RelayEvents(outbox EventOutbox, pub EventPublisher, minAge time.Duration) {
	s.beside = append(s.beside, relayEvents(outbox, pub, minAge))
}

// relayEvents is the relay, beside the pass's steps. The age of the
// oldest record listed is the pass's OldestEventAge, whether or not it was
// published: the alarm's figure.
// Deleting only after the acknowledgement means a record is published at
// least once; a relay that dies between the two, or two relays at once,
// publish it twice, with one id.
func relayEvents(outbox EventOutbox, pub EventPublisher, minAge time.Duration) step {
	return func(p *pass) error {
		l, err := outbox.PendingEvents(p.ctx, p.cfg.BatchSize)
		if err != nil {
			return &stepError{step: "listing the events outbox", err: err}
		}
		p.skip(l.Undecodable)
		p.r.EventsPending = len(l.Items)
		var due []presence.OutboxEvent
		for _, ev := range l.Items {
			age := p.now.Sub(ev.Time)
			p.r.OldestEventAge = max(p.r.OldestEventAge, age)
			if age >= minAge {
				due = append(due, ev)
			}
		}
		// A full page is a backlog only if the relay has work in it: a
		// page of records still in flight (a busy deployment's, published
		// within milliseconds) must not make the sweeper pass again at
		// once, listing them again.
		p.r.Backlog = p.r.Backlog || l.Len() == p.cfg.BatchSize && len(due) > 0
		// Rooms at once, each room's events in turn, oldest first: Pub/Sub
		// keeps a room's events in the order they are published (the
		// room is their ordering key). A room whose event fails to go out
		// holds back its later ones until a later pass, so that they do
		// not overtake it; other rooms go on.
		return forEach(p, "relaying an event", byRoom(due), p.cfg.Concurrency, func(ip *pass, events []presence.OutboxEvent) error {
			for _, ev := range events {
				if err := pub.Publish(ip.ctx, ev); err != nil {
					return err
				}
				if err := outbox.DeleteEvent(ip.ctx, ev.ID); err != nil {
					return err
				}
				ip.r.EventsRelayed++
			}
			return nil
		})
	}
}

// byRoom splits events by room, keeping their order within each room and
// the rooms in the order of their first event.
func byRoom(events []presence.OutboxEvent) [][]presence.OutboxEvent {
	var rooms [][]presence.OutboxEvent
	at := map[string]int{}
	for _, ev := range events {
		i, ok := at[ev.RoomID]
		if !ok {
			i = len(rooms)
			at[ev.RoomID] = i
			rooms = append(rooms, nil)
		}
		rooms[i] = append(rooms[i], ev)
	}
	return rooms
}
