package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
)

// lineWriter collects what Tail prints and signals each write.
type lineWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

// On the Pub/Sub emulator: tail prints an event published after it is
// ready, and deletes its subscription when stopped.
func TestTail_PrintsEventsAndCleansUp(t *testing.T) {
	if os.Getenv("PUBSUB_EMULATOR_HOST") == "" {
		t.Skip("PUBSUB_EMULATOR_HOST is not set: scripts/test starts the Pub/Sub emulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	project, topic := "demo-tail", "events-"+strings.ToLower(strings.ReplaceAll(t.Name(), "_", "-"))
	client, err := pubsub.NewClient(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	topicName := "projects/" + project + "/topics/" + topic
	if _, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: topicName}); err != nil {
		t.Fatal(err)
	}
	defer client.TopicAdminClient.DeleteTopic(context.Background(), &pubsubpb.DeleteTopicRequest{Topic: topicName})

	out := &lineWriter{wrote: make(chan struct{}, 1)}
	ready := make(chan string, 1)
	tailCtx, stopTail := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Tail(tailCtx, TailOptions{Project: project, Topic: topic, Out: out, Ready: func(s string) { ready <- s }})
	}()
	var sub string
	select {
	case sub = <-ready:
	case err := <-done:
		t.Fatalf("tail ended before it was ready: %v", err)
	}

	pub := client.Publisher(topic)
	pub.EnableMessageOrdering = true
	res := pub.Publish(ctx, &pubsub.Message{Data: []byte(`{"roomId":"standup","participantId":"uid-1"}`), OrderingKey: "standup",
		Attributes: map[string]string{"ce-specversion": "1.0", "ce-id": "0123456789abcdef0123456789abcdef",
			"ce-type": "roomlease.participant.joined", "ce-subject": "rooms/standup", "ce-time": "2026-12-02T01:02:03.456789Z",
			"content-type": "application/json"}})
	if _, err := res.Get(ctx); err != nil {
		t.Fatal(err)
	}
	pub.Stop()
	select {
	case <-out.wrote:
	case <-ctx.Done():
		t.Fatal("the event was never printed")
	}
	out.mu.Lock()
	got := out.b.String()
	out.mu.Unlock()
	for _, want := range []string{"roomlease.participant.joined", "rooms/standup", "id=0123456789abcdef0123456789abcdef", `"participantId":"uid-1"`} {
		if !strings.Contains(got, want) {
			t.Errorf("printed %q, which lacks %q", got, want)
		}
	}

	stopTail()
	<-done
	if _, err := client.SubscriptionAdminClient.GetSubscription(ctx, &pubsubpb.GetSubscriptionRequest{Subscription: sub}); err == nil {
		t.Errorf("subscription %s is still there after tail stopped", sub)
	}
}
