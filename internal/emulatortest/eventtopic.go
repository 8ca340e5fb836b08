package emulatortest

import (
	"context"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// PubSubHost returns the Pub/Sub emulator's host:port, failing tb when
// unset.
func PubSubHost(tb testing.TB) string {
	tb.Helper()
	return requireEnv(tb, "PUBSUB_EMULATOR_HOST")
}

// Received is one message a Subscription received, as delivered.
type Received struct {
	Attributes  map[string]string
	Data        []byte
	OrderingKey string
	At          time.Time // when this process received it
}

// Subscription collects what an ordered pull subscription on a test's
// topic receives, acknowledging everything.
type Subscription struct {
	mu      sync.Mutex
	got     []Received
	arrived chan struct{} // closed and replaced on every arrival
}

// EventTopic creates, on the Pub/Sub emulator, the topic topicID in
// project (if missing) with an ordered subscription on it, and receives
// from it until tb ends.
func EventTopic(tb testing.TB, project, topicID string) *Subscription {
	tb.Helper()
	PubSubHost(tb)
	ctx, cancel := context.WithCancel(context.Background())
	client, err := pubsub.NewClient(ctx, project)
	if err != nil {
		tb.Fatalf("pubsub client: %v", err)
	}
	CreateTopic(tb, project, topicID)
	subName := "projects/" + project + "/subscriptions/" + topicID + "-test"
	if _, err := client.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{
		Name: subName, Topic: "projects/" + project + "/topics/" + topicID, EnableMessageOrdering: true,
	}); err != nil {
		tb.Fatalf("creating subscription %s: %v", subName, err)
	}
	s := &Subscription{arrived: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = client.Subscriber(subName).Receive(ctx, func(_ context.Context, m *pubsub.Message) {
			m.Ack()
			s.mu.Lock()
			defer s.mu.Unlock()
			s.got = append(s.got, Received{Attributes: m.Attributes, Data: m.Data, OrderingKey: m.OrderingKey, At: time.Now()})
			close(s.arrived)
			s.arrived = make(chan struct{})
		})
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
		client.Close()
	})
	return s
}

// CreateTopic creates topicID in project on the emulator; one that exists
// already is fine.
func CreateTopic(tb testing.TB, project, topicID string) {
	tb.Helper()
	ctx := context.Background()
	client, err := pubsub.NewClient(ctx, project)
	if err != nil {
		tb.Fatalf("pubsub client: %v", err)
	}
	defer client.Close()
	_, err = client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: "projects/" + project + "/topics/" + topicID})
	if err != nil && status.Code(err) != codes.AlreadyExists {
		tb.Fatalf("creating topic %s: %v", topicID, err)
	}
}

// Received returns what arrived so far.
func (s *Subscription) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.got...)
}

// WaitUntil waits until done holds for what arrived (checked on every
// arrival), failing tb after a minute: a wait for delivery, not a measure
// of how long it took.
func (s *Subscription) WaitUntil(tb testing.TB, what string, done func([]Received) bool) []Received {
	tb.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		got, arrived := append([]Received(nil), s.got...), s.arrived
		s.mu.Unlock()
		if done(got) {
			return got
		}
		select {
		case <-arrived:
		case <-deadline:
			tb.Fatalf("waited a minute for %s; received %d messages: %v", what, len(got), got)
		}
	}
}

// WaitForIDs waits until events with each of ids (ce-id) have arrived.
func (s *Subscription) WaitForIDs(tb testing.TB, ids ...string) []Received {
	tb.Helper()
	return s.WaitUntil(tb, "events "+joinIDs(ids), func(got []Received) bool {
		seen := map[string]bool{}
		for _, r := range got {
			seen[r.Attributes["ce-id"]] = true
		}
		for _, id := range ids {
			if !seen[id] {
				return false
			}
		}
		return true
	})
}

func joinIDs(ids []string) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += ", "
		}
		out += id
	}
	return out
}
