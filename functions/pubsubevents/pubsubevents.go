// Package pubsubevents publishes roomlease's events on a Pub/Sub topic as
// CloudEvents 1.0, in the Pub/Sub protocol binding's binary mode: the
// event's JSON is the message's data, and its context attributes are
// message attributes named ce-* (docs/events.md, "The events").
//
// Every message of a room carries the room id as its ordering key. That
// orders what one publisher sends for a room, not what several send: the
// instance that committed a change, another one's commit a moment later,
// and the sweeper's relay all publish, so a consumer orders one
// participant's events by participantSeq, never by arrival.
package pubsubevents

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/pubsub/v2"

	"github.com/roomlease/roomlease/functions/presence"
)

// Publisher publishes events on one topic. It is safe for concurrent use.
type Publisher struct {
	client *pubsub.Client
	topic  *pubsub.Publisher
	source string
}

// Source is the CloudEvents source of a deployment's events: the database
// the rooms live in.
func Source(projectID, databaseID string) string {
	return fmt.Sprintf("//roomlease/projects/%s/databases/%s", projectID, databaseID)
}

// New connects to Pub/Sub (the emulator when PUBSUB_EMULATOR_HOST is set)
// and publishes on topicID in projectID; the rooms are in databaseID.
func New(ctx context.Context, projectID, topicID, databaseID string) (*Publisher, error) {
	client, err := pubsub.NewClient(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("pubsub client for project %q: %w", projectID, err)
	}
	topic := client.Publisher(topicID)
	topic.EnableMessageOrdering = true
	// One event per commit: waiting to fill a batch would only delay it.
	topic.PublishSettings.DelayThreshold = time.Millisecond
	return &Publisher{client: client, topic: topic, source: Source(projectID, databaseID)}, nil
}

// Publish sends ev and waits until Pub/Sub acknowledged it or ctx ends. An
// error means it may or may not have been published (an acknowledgement
// lost on the way): the caller keeps the record and publishes it again,
// with the same id.
func (p *Publisher) Publish(ctx context.Context, ev presence.OutboxEvent) error {
	res := p.topic.Publish(ctx, Message(p.source, ev))
	if _, err := res.Get(ctx); err != nil {
		// A failed publish pauses the room's ordering key in this client
		// until resumed; the next attempt (the relay's) must not fail for
		// that alone.
		p.topic.ResumePublish(ev.RoomID)
		return fmt.Errorf("publishing event %s: %w", ev.ID, err)
	}
	return nil
}

// Message is ev as a Pub/Sub message from source.
func Message(source string, ev presence.OutboxEvent) *pubsub.Message {
	return &pubsub.Message{
		Data:        ev.Data,
		OrderingKey: ev.RoomID,
		Attributes: map[string]string{
			"ce-specversion": "1.0",
			"ce-id":          ev.ID,
			"ce-type":        ev.Type,
			"ce-source":      source,
			"ce-subject":     "rooms/" + ev.RoomID,
			"ce-time":        presence.EventTime(ev.Time),
			// The binding maps the message's Content-Type attribute to
			// the event's datacontenttype.
			"content-type": "application/json",
		},
	}
}

// Close flushes what is being published and releases the connection.
func (p *Publisher) Close() error {
	p.topic.Stop()
	return p.client.Close()
}
