package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TailOptions say what Tail reads and where it prints.
type TailOptions struct {
	Project, Topic string
	Out            io.Writer
	// Ready, if set, is called with the subscription's name once it
	// exists: from then on every event published is printed.
	Ready func(subscription string)
}

// Tail prints the events published on the topic until ctx ends, through
// a subscription of its own that it deletes when it returns.
func Tail(ctx context.Context, o TailOptions) error {
	client, err := pubsub.NewClient(ctx, o.Project)
	if err != nil {
		return fmt.Errorf("pubsub client: %w", err)
	}
	defer client.Close()

	suffix := make([]byte, 4)
	rand.Read(suffix)
	name := fmt.Sprintf("projects/%s/subscriptions/%s-tail-%s", o.Project, o.Topic, hex.EncodeToString(suffix))
	_, err = client.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{
		Name:  name,
		Topic: fmt.Sprintf("projects/%s/topics/%s", o.Project, o.Topic),
		// One room's events in the order they were published (the
		// ordering key is the room id).
		EnableMessageOrdering: true,
		// A tail killed without its cleanup leaves a subscription that
		// Pub/Sub removes after a day without a reader.
		ExpirationPolicy:         &pubsubpb.ExpirationPolicy{Ttl: durationpb.New(24 * time.Hour)},
		MessageRetentionDuration: durationpb.New(time.Hour),
	})
	if err != nil {
		return fmt.Errorf("creating subscription %s (does topic %s exist in project %s?): %w", name, o.Topic, o.Project, err)
	}
	defer func() {
		// ctx is over by now; the deletion gets a few seconds of its own.
		dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		client.SubscriptionAdminClient.DeleteSubscription(dctx, &pubsubpb.DeleteSubscriptionRequest{Subscription: name})
	}()
	if o.Ready != nil {
		o.Ready(name)
	}
	var mu sync.Mutex // Receive calls back concurrently
	return client.Subscriber(name).Receive(ctx, func(_ context.Context, m *pubsub.Message) {
		mu.Lock()
		fmt.Fprint(o.Out, FormatEvent(m.Attributes, m.Data))
		mu.Unlock()
		m.Ack()
	})
}

// FormatEvent renders one event: a line with its time, type, subject and
// id (the CloudEvents attributes), and its data indented below.
func FormatEvent(attrs map[string]string, data []byte) string {
	return fmt.Sprintf("%s  %-30s %s  id=%s\n    %s\n", attrs["ce-time"], attrs["ce-type"], attrs["ce-subject"], attrs["ce-id"], data)
}
