package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/roomlease/roomlease/functions/firestoredb"

	"github.com/roomlease/roomlease/bench/workload"
)

// The events check (docs/events.md): with the Pub/Sub emulator at hand
// (PUBSUB_EMULATOR_HOST), the processes publish on a topic of the run's
// own, a subscriber takes everything, and the verdict compares it with
// what the revision readings saw (judgeEvents).

// eventsRun is the subscriber's side of one run.
type eventsRun struct {
	topic  string
	client *pubsub.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu  sync.Mutex
	got []receivedEvent
	// maxRevision is, per room lifetime, the highest revision a reading
	// saw: that many visible changes happened in it, at least.
	maxRevision map[lifetimeKey]int64
}

type lifetimeKey struct {
	Room     string
	Lifetime int64 // the room's createdAt, in Unix nanoseconds
}

// receivedEvent is what the verdict needs of one delivery.
type receivedEvent struct {
	ID, Type, Room, Participant, Reason string
	Lifetime                            int64
	Seq                                 int64
	Committed, Received                 time.Time
}

// startEvents creates the run's topic and an ordered subscription on it
// and starts receiving; nil, and no events, without the emulator.
func startEvents(ctx context.Context, project, prefix string) (*eventsRun, error) {
	if os.Getenv("PUBSUB_EMULATOR_HOST") == "" {
		return nil, nil
	}
	client, err := pubsub.NewClient(ctx, project)
	if err != nil {
		return nil, err
	}
	e := &eventsRun{topic: prefix + "events", client: client, done: make(chan struct{}), maxRevision: map[lifetimeKey]int64{}}
	topic := "projects/" + project + "/topics/" + e.topic
	sub := "projects/" + project + "/subscriptions/" + e.topic
	if _, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: topic}); err != nil {
		client.Close()
		return nil, fmt.Errorf("creating the events topic: %w", err)
	}
	if _, err := client.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{Name: sub, Topic: topic, EnableMessageOrdering: true}); err != nil {
		client.Close()
		return nil, fmt.Errorf("creating the events subscription: %w", err)
	}
	recvCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.cancel = cancel
	go func() {
		defer close(e.done)
		_ = client.Subscriber(sub).Receive(recvCtx, func(_ context.Context, m *pubsub.Message) {
			m.Ack()
			e.receive(m.Attributes, m.Data, time.Now())
		})
	}()
	return e, nil
}

func (e *eventsRun) receive(attrs map[string]string, data []byte, at time.Time) {
	var d struct {
		RoomID, Lifetime, ParticipantID, Reason string
		ParticipantSeq                          int64
	}
	_ = json.Unmarshal(data, &d)
	life, _ := time.Parse(time.RFC3339Nano, d.Lifetime)
	committed, _ := time.Parse(time.RFC3339Nano, attrs["ce-time"])
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, receivedEvent{ID: attrs["ce-id"], Type: attrs["ce-type"], Room: d.RoomID, Participant: d.ParticipantID,
		Reason: d.Reason, Lifetime: life.UnixNano(), Seq: d.ParticipantSeq, Committed: committed, Received: at})
}

// observe notes a revision reading (pollRevisions).
func (e *eventsRun) observe(room string, s revisionSeen) {
	if e == nil || !s.Exists {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	k := lifetimeKey{room, s.Lifetime.UnixNano()}
	e.maxRevision[k] = max(e.maxRevision[k], s.Revision)
}

// finish waits until the outbox is empty (the relay has published what
// killed processes left) or a minute has passed, lets the last deliveries
// arrive, stops receiving and judges.
func (e *eventsRun) finish(ctx context.Context, db *firestore.Client) *EventsVerdict {
	if e == nil {
		return nil
	}
	pending := -1
	for deadline := time.Now().Add(time.Minute); ctx.Err() == nil; workload.SleepCtx(ctx, time.Second) {
		refs, err := db.Collection(firestoredb.OutboxCollection).DocumentRefs(ctx).GetAll()
		if err == nil {
			pending = len(refs)
		}
		if pending == 0 || time.Now().After(deadline) {
			break
		}
	}
	workload.SleepCtx(ctx, 5*time.Second)
	e.cancel()
	<-e.done
	e.client.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	v := judgeEvents(e.got, e.maxRevision)
	v.Topic, v.OutboxLeft = e.topic, pending
	return &v
}

// EventsVerdict is what the run found of the events.
type EventsVerdict struct {
	Topic string `json:"topic"`
	// Lost: visible changes without an event; Invented: events without a
	// change (two ids for one participant's sequence number, a second
	// room.closed of one lifetime). Both must be 0.
	Lost     int `json:"lost"`
	Invented int `json:"invented"`
	// Duplicates are deliveries of an id already delivered: counted, not
	// errors.
	Duplicates int      `json:"duplicates"`
	Delivered  int      `json:"delivered"`
	Distinct   int      `json:"distinct"`
	Lifetimes  int      `json:"lifetimes"`
	Details    []string `json:"details,omitempty"`
	OutboxLeft int      `json:"outboxLeft"` // records in the outbox at the end (-1: unread)
	// Lag is from the commit (ce-time) to the first delivery, by type.
	Lag map[string]workload.Summary `json:"lagMs"`
}

// judgeEvents counts, from the deliveries and the revision readings:
//   - lost, per room lifetime: the larger of (a) the participants'
//     missing sequence numbers below their highest, plus one for each
//     participant whose last event is not a departure (after the drain,
//     everyone has departed), and (b) the highest revision read less the
//     participant events that arrived; plus one for a lifetime without
//     its room.closed (after the drain, every room is torn down). Each is
//     a lower bound of what went missing;
//   - invented: a sequence number of one participant carried by two ids,
//     a second room.closed of one lifetime;
//   - duplicates: repeated ids.
func judgeEvents(got []receivedEvent, maxRevision map[lifetimeKey]int64) EventsVerdict {
	v := EventsVerdict{Lag: map[string]workload.Summary{}}
	type participantKey struct {
		life lifetimeKey
		uid  string
	}
	seen := map[string]bool{}
	seqs := map[participantKey]map[int64]receivedEvent{}
	closed := map[lifetimeKey]int{}
	lags := map[string]*workload.Dist{}
	lifetimes := map[lifetimeKey]bool{}
	for k := range maxRevision {
		lifetimes[k] = true
	}
	for _, ev := range got {
		v.Delivered++
		if seen[ev.ID] {
			v.Duplicates++
			continue
		}
		seen[ev.ID] = true
		v.Distinct++
		if lags[ev.Type] == nil {
			lags[ev.Type] = &workload.Dist{}
		}
		lags[ev.Type].Add(ev.Received.Sub(ev.Committed))
		life := lifetimeKey{ev.Room, ev.Lifetime}
		lifetimes[life] = true
		if ev.Type == "roomlease.room.closed" {
			if closed[life]++; closed[life] > 1 {
				v.Invented++
				v.Details = append(v.Details, fmt.Sprintf("invented: a second room.closed of %s (%s)", ev.Room, ev.ID))
			}
			continue
		}
		k := participantKey{life, ev.Participant}
		if seqs[k] == nil {
			seqs[k] = map[int64]receivedEvent{}
		}
		if other, dup := seqs[k][ev.Seq]; dup {
			v.Invented++
			v.Details = append(v.Details, fmt.Sprintf("invented: %s#%d in %s carried by %s and %s", ev.Participant, ev.Seq, ev.Room, other.ID, ev.ID))
			continue
		}
		seqs[k][ev.Seq] = ev
	}
	missing := map[lifetimeKey]int{}
	events := map[lifetimeKey]int{}
	for k, s := range seqs {
		var top int64
		for seq := range s {
			top = max(top, seq)
		}
		events[k.life] += len(s)
		for seq := int64(1); seq <= top; seq++ {
			if _, ok := s[seq]; !ok {
				missing[k.life]++
				v.Details = append(v.Details, fmt.Sprintf("lost: %s#%d in %s", k.uid, seq, k.life.Room))
			}
		}
		if s[top].Type != "roomlease.participant.left" {
			missing[k.life]++
			v.Details = append(v.Details, fmt.Sprintf("lost: the departure of %s from %s after #%d", k.uid, k.life.Room, top))
		}
	}
	for life := range lifetimes {
		v.Lifetimes++
		lost := max(missing[life], int(maxRevision[life])-events[life])
		if closed[life] == 0 {
			lost++
			v.Details = append(v.Details, fmt.Sprintf("lost: room.closed of %s (lifetime %s)", life.Room, time.Unix(0, life.Lifetime).UTC().Format(time.RFC3339Nano)))
		}
		v.Lost += lost
	}
	for typ, d := range lags {
		v.Lag[typ] = d.Summary()
	}
	if len(v.Details) > 100 {
		v.Details = v.Details[:100]
	}
	return v
}
