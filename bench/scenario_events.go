package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
	"github.com/roomlease/roomlease/functions/presence"
)

// eventsResult is what events.json holds: how long presence events take
// from their change to a pull subscriber on the Pub/Sub emulator
// (docs/events.md, "What a consumer can rely on").
type eventsResult struct {
	Rooms            int     `json:"rooms"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
	GraceSeconds     float64 `json:"graceSeconds"`
	// From the change's time (ce-time: the committing attempt's clock
	// reading, before its commit) to the delivery.
	Commit map[string]workload.Summary `json:"commitToDeliveryMs"`
	// Graceful: the leave sent → its left event delivered (target ≤ 1 s).
	Graceful workload.Summary `json:"gracefulLeaveMs"`
	// Crash: the crashed client's last answer (its join) → left/expired
	// delivered (target ≤ lease + 1 s).
	Crash workload.Summary `json:"crashMs"`
	// Teardown: the room's emptySince (the last departure) → room.closed
	// delivered (target ≤ grace + 1 s).
	Teardown workload.Summary `json:"teardownMs"`
	// The sweeper's share of those: the lease's end → the expiry's
	// commit, the grace's end → the teardown's commit.
	ExpiryLate   workload.Summary `json:"leaseEndToExpiryCommitMs"`
	TeardownLate workload.Summary `json:"graceEndToTeardownCommitMs"`
	// Unexpected counts events beyond the five each room must publish
	// (two joins, two departures, the closing): a heartbeat's or typing's
	// would be one. Failed counts rooms whose run did not complete.
	Unexpected int      `json:"unexpectedEvents"`
	Failed     int      `json:"failedRooms"`
	Errors     []string `json:"errors,omitempty"`
}

// eventHub hands delivered events to the rooms that wait for them.
type eventHub struct {
	mu      sync.Mutex
	got     map[string]deliveredEvent // room|type|participant → first delivery
	count   map[string]int            // room → deliveries
	arrived chan struct{}
}

type deliveredEvent struct {
	Committed, Delivered time.Time
	EmptySince           time.Time
}

func (h *eventHub) receive(m *pubsub.Message) {
	var d struct {
		RoomID, ParticipantID, EmptySince string
	}
	_ = json.Unmarshal(m.Data, &d)
	committed, _ := time.Parse(time.RFC3339Nano, m.Attributes["ce-time"])
	emptySince, _ := time.Parse(time.RFC3339Nano, d.EmptySince)
	key := d.RoomID + "|" + m.Attributes["ce-type"] + "|" + d.ParticipantID
	h.mu.Lock()
	defer h.mu.Unlock()
	h.count[d.RoomID]++
	if _, dup := h.got[key]; !dup {
		h.got[key] = deliveredEvent{Committed: committed, Delivered: time.Now(), EmptySince: emptySince}
	}
	close(h.arrived)
	h.arrived = make(chan struct{})
}

// wait returns the first delivery of room's event of type typ about uid.
func (h *eventHub) wait(ctx context.Context, room, typ, uid string) (deliveredEvent, error) {
	key := room + "|" + typ + "|" + uid
	for {
		h.mu.Lock()
		ev, ok := h.got[key]
		arrived := h.arrived
		h.mu.Unlock()
		if ok {
			return ev, nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return ev, fmt.Errorf("room %s: no %s of %q: %w", room, typ, uid, ctx.Err())
		}
	}
}

// runEvents is `scripts/bench events`: rooms in parallel, each with two
// users: one joins and leaves, the other joins and crashes; the sweeper
// expires the crash and tears the room down. A subscriber on the topic
// times each event (events.json, events.md).
func runEvents(ctx context.Context, o harness.Options) error {
	if os.Getenv("PUBSUB_EMULATOR_HOST") == "" {
		return fmt.Errorf("PUBSUB_EMULATOR_HOST is not set: scripts/bench starts the Pub/Sub emulator for events")
	}
	// The grace outlasts the spread of the rooms' starts, so that every expiry
	// comes before the first teardown and each is timed on its own.
	rooms, hb, lease, grace := 20, time.Second, 3*time.Second, 5*time.Second
	if o.Quick {
		rooms = 5
	}
	res := eventsResult{Rooms: rooms, HeartbeatSeconds: hb.Seconds(), LeaseSeconds: lease.Seconds(), GraceSeconds: grace.Seconds(),
		Commit: map[string]workload.Summary{}}
	ps, err := pubsub.NewClient(ctx, o.Project)
	if err != nil {
		return err
	}
	defer ps.Close()
	topic := fmt.Sprintf("bench-events-%d", time.Now().UnixNano())
	topicName, subName := "projects/"+o.Project+"/topics/"+topic, "projects/"+o.Project+"/subscriptions/"+topic
	if _, err := ps.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: topicName}); err != nil {
		return err
	}
	if _, err := ps.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{Name: subName, Topic: topicName, EnableMessageOrdering: true}); err != nil {
		return err
	}
	hub := &eventHub{got: map[string]deliveredEvent{}, count: map[string]int{}, arrived: make(chan struct{})}
	recvCtx, stopRecv := context.WithCancel(ctx)
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		_ = ps.Subscriber(subName).Receive(recvCtx, func(_ context.Context, m *pubsub.Message) { m.Ack(); hub.receive(m) })
	}()
	defer func() { stopRecv(); <-recvDone }()

	accounts, err := workload.SignUpAll(ctx, o.AuthHost, 2*rooms, 8, 10*time.Second)
	if err != nil {
		return err
	}
	env := o.ServerEnv(hb, lease, grace)
	env["ROOMLEASE_EVENTS_TOPIC"] = topic
	// A sweeper learns of a new lease when it next wakes, at the latest
	// after its longest pause: shorter than the lease, as the defaults
	// (5 s, 15 s) are, or it would find a crash up to pause − lease late.
	env["ROOMLEASE_SWEEP_MAX_PAUSE"] = (lease / 3).String()
	srv, err := workload.StartServer(ctx, o.ServerBin, env, os.TempDir()+"/roomlease-bench-server-events.log")
	if err != nil {
		return err
	}
	defer srv.Stop()
	api := workload.NewAPI(srv.URL)
	prefix := fmt.Sprintf("events-%d-", time.Now().Unix())
	dists := map[string]*workload.Dist{}
	for _, t := range []string{presence.EventJoined, presence.EventLeft, presence.EventClosed} {
		dists[t] = &workload.Dist{}
	}
	var graceful, crash, teardown, expiryLate, teardownLate workload.Dist
	var mu sync.Mutex
	var wg sync.WaitGroup
	o.Log(fmt.Sprintf("events: %d rooms, heartbeat %v, lease %v, grace %v, topic %s", rooms, hb, lease, grace, topic))
	for i := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			workload.SleepCtx(ctx, time.Duration(i)*100*time.Millisecond)
			roomCtx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			err := eventsRoom(roomCtx, api, hub, prefix+fmt.Sprint(i), accounts[2*i], accounts[2*i+1], grace, dists,
				[]*workload.Dist{&graceful, &crash, &teardown, &expiryLate, &teardownLate})
			if err != nil {
				mu.Lock()
				res.Failed++
				res.Errors = append(res.Errors, err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	workload.SleepCtx(ctx, 2*time.Second) // for anything unexpected to arrive
	hub.mu.Lock()
	for room, n := range hub.count {
		if strings.HasPrefix(room, prefix) && n > 5 {
			res.Unexpected += n - 5
		}
	}
	hub.mu.Unlock()
	for t, d := range dists {
		res.Commit[t] = d.Summary()
	}
	res.Graceful, res.Crash, res.Teardown = graceful.Summary(), crash.Summary(), teardown.Summary()
	res.ExpiryLate, res.TeardownLate = expiryLate.Summary(), teardownLate.Summary()
	return o.Write("events", eventsMarkdown(res), res)
}

// eventsRoom is one room's run: a joins and leaves, b joins and crashes.
// d are the graceful, crash, teardown, expiry-lateness and
// teardown-lateness distributions.
func eventsRoom(ctx context.Context, api *workload.API, hub *eventHub, room string, a, b workload.Account, grace time.Duration,
	commit map[string]*workload.Dist, d []*workload.Dist) error {
	graceful, crash, teardown := d[0], d[1], d[2]
	ra, ja := api.Join(ctx, a.Token, room, "tab", "a")
	if ra.Err != nil || ra.Status != 200 {
		return fmt.Errorf("room %s: join: %d %v", room, ra.Status, ra.Err)
	}
	rb, jb := api.Join(ctx, b.Token, room, "phone", "b")
	if rb.Err != nil || rb.Status != 200 {
		return fmt.Errorf("room %s: join: %d %v", room, rb.Status, rb.Err)
	}
	lastAnswer := rb.Done // b crashes now: no heartbeat, no leave
	api.Heartbeat(ctx, a.Token, room, "tab", ja.Generation)
	rl := api.Leave(ctx, a.Token, room, "tab", ja.Generation)
	if rl.Err != nil || rl.Status != 200 {
		return fmt.Errorf("room %s: leave: %d %v", room, rl.Status, rl.Err)
	}
	for _, w := range []struct{ typ, uid string }{{presence.EventJoined, a.UID}, {presence.EventJoined, b.UID}} {
		ev, err := hub.wait(ctx, room, w.typ, w.uid)
		if err != nil {
			return err
		}
		commit[w.typ].Add(ev.Delivered.Sub(ev.Committed))
	}
	left, err := hub.wait(ctx, room, presence.EventLeft, a.UID)
	if err != nil {
		return err
	}
	commit[presence.EventLeft].Add(left.Delivered.Sub(left.Committed))
	graceful.Add(left.Delivered.Sub(rl.Sent))
	expired, err := hub.wait(ctx, room, presence.EventLeft, b.UID)
	if err != nil {
		return err
	}
	commit[presence.EventLeft].Add(expired.Delivered.Sub(expired.Committed))
	crash.Add(expired.Delivered.Sub(lastAnswer))
	d[3].Add(expired.Committed.Sub(jb.LeaseExpiresAt))
	closed, err := hub.wait(ctx, room, presence.EventClosed, "")
	if err != nil {
		return err
	}
	commit[presence.EventClosed].Add(closed.Delivered.Sub(closed.Committed))
	teardown.Add(closed.Delivered.Sub(closed.EmptySince))
	d[4].Add(closed.Committed.Sub(closed.EmptySince.Add(grace)))
	return nil
}

func eventsMarkdown(r eventsResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### events: %d rooms, heartbeat %.0f s, lease %.0f s, grace %.0f s, one roomlease-dev, a pull subscriber on the Pub/Sub emulator\n\n",
		r.Rooms, r.HeartbeatSeconds, r.LeaseSeconds, r.GraceSeconds)
	b.WriteString("| from → to (target) | n | p50 | p95 | p99 | max |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| graceful leave sent → `left` delivered (≤ 1 s) | %s |\n", render.LatencyRow(r.Graceful))
	fmt.Fprintf(&b, "| crashed client's last answer → `left`/`expired` delivered (≤ lease + 1 s = %.0f s) | %s |\n", r.LeaseSeconds+1, render.LatencyRow(r.Crash))
	fmt.Fprintf(&b, "| last departure (`emptySince`) → `room.closed` delivered (≤ grace + 1 s = %.0f s) | %s |\n", r.GraceSeconds+1, render.LatencyRow(r.Teardown))
	fmt.Fprintf(&b, "| … the sweeper's share: the lease's end → the expiry's commit | %s |\n", render.LatencyRow(r.ExpiryLate))
	fmt.Fprintf(&b, "| … the sweeper's share: the grace's end → the teardown's commit | %s |\n", render.LatencyRow(r.TeardownLate))
	for _, t := range slices.Sorted(maps.Keys(r.Commit)) {
		fmt.Fprintf(&b, "| the change's time (`ce-time`) → `%s` delivered | %s |\n", strings.TrimPrefix(t, "roomlease."), render.LatencyRow(r.Commit[t]))
	}
	fmt.Fprintf(&b, "\nUnexpected events (a heartbeat's would be one): **%d**. Rooms that did not complete: %d.\n", r.Unexpected, r.Failed)
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "- %s\n", e)
	}
	return b.String()
}
