package sweep_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/pubsubevents"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The events outbox and its relay, on the Firestore and Pub/Sub emulators
// (docs/events.md, "How an event gets out"; docs/races.md, "Events").

// eventsFixture is a fixture whose API store publishes on a topic of the
// test's own project, with a subscription that receives it.
type eventsFixture struct {
	*fixture
	topic string
	pub   *pubsubevents.Publisher
	sub   *emulatortest.Subscription
}

func mustOpenEvents(t *testing.T) *eventsFixture {
	t.Helper()
	f := &eventsFixture{fixture: MustOpen(t), topic: "events"}
	f.sub = emulatortest.EventTopic(t, f.project, f.topic)
	f.pub = f.publisher(t)
	f.store.PublishEvents(f.pub)
	return f
}

// publisher is another instance's publisher on the test's topic.
func (f *eventsFixture) publisher(t *testing.T) *pubsubevents.Publisher {
	t.Helper()
	pub, err := pubsubevents.New(f.ctx, f.project, f.topic, "(default)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	return pub
}

// instance is another function instance: its own Firestore client and
// publisher, the same clock.
func (f *eventsFixture) instance(t *testing.T, pub firestoredb.Publisher) *firestoredb.Store {
	t.Helper()
	client, err := firestore.NewClient(f.ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	s := firestoredb.New(client, f.settings, f.clock.Now)
	s.PublishEvents(pub)
	return s
}

// relay is a sweeper on store that relays the outbox through pub.
func (f *eventsFixture) relay(t *testing.T, store *firestoredb.Store, pub sweep.EventPublisher) *sweep.Sweeper {
	t.Helper()
	sw := f.sweeper(t, store, sweep.Config{DefaultMode: sweep.Enforce})
	sw.RelayEvents(store, pub, firestoredb.OutboxRelayAge)
	return sw
}

// outbox returns the ids of the records in the outbox.
func (f *eventsFixture) outbox(t *testing.T) []string {
	t.Helper()
	refs, err := f.client.Collection(firestoredb.OutboxCollection).DocumentRefs(f.ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	return ids
}

// deadPublisher is an instance that dies after its commit: it never
// publishes.
type deadPublisher struct{ calls atomic.Int32 }

func (d *deadPublisher) Publish(context.Context, presence.OutboxEvent) error {
	d.calls.Add(1)
	return errors.New("the instance was killed before it could publish")
}

// event is a received message's attributes and decoded data.
type event struct {
	attrs map[string]string
	data  map[string]any
}

func decodeEvents(t *testing.T, got []emulatortest.Received) []event {
	t.Helper()
	out := make([]event, len(got))
	for i, r := range got {
		out[i].attrs = r.Attributes
		if err := json.Unmarshal(r.Data, &out[i].data); err != nil {
			t.Fatalf("event %v: data %q is not JSON: %v", r.Attributes, r.Data, err)
		}
	}
	return out
}

// An instance killed between its commit and its publish: the change and
// its outbox record committed, nothing was published. The relay publishes
// it once the record is OutboxRelayAge old, and deletes it; not before,
// when the committing instance may still be publishing.
func TestEvents_TheRelayPublishesWhatAKilledInstanceCommitted(t *testing.T) {
	f := mustOpenEvents(t)
	dead := &deadPublisher{}
	killed := f.instance(t, dead)
	if _, err := killed.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}}); err != nil {
		t.Fatalf("a join must not fail because publishing failed: %v", err)
	}
	if dead.calls.Load() != 1 {
		t.Fatalf("the killed instance tried %d publications, want 1", dead.calls.Load())
	}
	pending := f.outbox(t)
	if len(pending) != 1 {
		t.Fatalf("outbox %v, want the join's one record", pending)
	}

	sw := f.relay(t, f.store, f.pub)
	if r := f.pass(t, sw); r.EventsRelayed != 0 || r.EventsPending != 1 {
		t.Fatalf("a relay before OutboxRelayAge relayed %d (pending %d), want 0 (1)", r.EventsRelayed, r.EventsPending)
	}
	f.clock.Advance(firestoredb.OutboxRelayAge)
	r := f.pass(t, sw)
	if r.EventsRelayed != 1 || r.OldestEventAge != firestoredb.OutboxRelayAge {
		t.Fatalf("relayed %d, oldest age %v; want 1, %v", r.EventsRelayed, r.OldestEventAge, firestoredb.OutboxRelayAge)
	}
	ev := decodeEvents(t, f.sub.WaitForIDs(t, pending[0]))[0]
	if ev.attrs["ce-type"] != presence.EventJoined || ev.attrs["ce-subject"] != "rooms/r" || ev.data["participantId"] != "alice" {
		t.Fatalf("relayed event %v %v", ev.attrs, ev.data)
	}
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox after the relay: %v", left)
	}
}

// Publishing fails (the topic does not exist yet), then recovers: the
// request succeeds, the record stays, and the relay publishes it on the
// same publisher once the topic is there (a failed publish pauses the
// room's ordering key in the client until it is resumed).
func TestEvents_PublishingFailsThenRecovers(t *testing.T) {
	f := &eventsFixture{fixture: MustOpen(t), topic: "late"}
	emulatortest.PubSubHost(t)
	f.pub = f.publisher(t)
	f.store.PublishEvents(f.pub)
	if _, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}}); err != nil {
		t.Fatalf("a join must not fail because publishing failed: %v", err)
	}
	pending := f.outbox(t)
	if len(pending) != 1 {
		t.Fatalf("outbox %v, want the join's record kept", pending)
	}
	f.sub = emulatortest.EventTopic(t, f.project, f.topic)
	f.clock.Advance(firestoredb.OutboxRelayAge)
	if r := f.pass(t, f.relay(t, f.store, f.pub)); r.EventsRelayed != 1 {
		t.Fatalf("relayed %d, want 1", r.EventsRelayed)
	}
	f.sub.WaitForIDs(t, pending[0])
	// And the fast path works again for the same room.
	if _, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "bob", SessionID: "tab"}}); err != nil {
		t.Fatal(err)
	}
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox after recovery: %v", left)
	}
	got := decodeEvents(t, f.sub.WaitUntil(t, "bob's join", func(got []emulatortest.Received) bool { return len(got) >= 2 }))
	if got[len(got)-1].data["participantId"] != "bob" {
		t.Fatalf("last event %v", got[len(got)-1].data)
	}
}

// gatedPublisher runs before ahead of each publication.
type gatedPublisher struct {
	next   sweep.EventPublisher
	before func()
}

func (g gatedPublisher) Publish(ctx context.Context, ev presence.OutboxEvent) error {
	g.before()
	return g.next.Publish(ctx, ev)
}

// Two relays at once, on two instances: both list the record; one
// publishes and deletes it while the other is between its listing and its
// publication; then that one publishes it too. The duplicate carries the
// same id and data, and neither relay fails on the record already gone.
func TestEvents_TwoRelaysAtOnce(t *testing.T) {
	f := mustOpenEvents(t)
	if _, err := f.instance(t, &deadPublisher{}).Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(firestoredb.OutboxRelayAge)
	other := f.instance(t, nil)
	second := f.relay(t, other, f.publisher(t))
	var secondReport sweep.PassReport
	first := f.relay(t, f.store, gatedPublisher{next: f.pub, before: func() {
		secondReport = f.pass(t, second) // lists, publishes, deletes
	}})
	firstReport := f.pass(t, first)
	if firstReport.EventsRelayed != 1 || secondReport.EventsRelayed != 1 {
		t.Fatalf("relayed %d and %d, want 1 each (the race did not run)", firstReport.EventsRelayed, secondReport.EventsRelayed)
	}
	got := f.sub.WaitUntil(t, "both publications", func(got []emulatortest.Received) bool { return len(got) == 2 })
	if got[0].Attributes["ce-id"] != got[1].Attributes["ce-id"] || string(got[0].Data) != string(got[1].Data) {
		t.Fatalf("the duplicate differs: %v %s / %v %s", got[0].Attributes, got[0].Data, got[1].Attributes, got[1].Data)
	}
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox after both relays: %v", left)
	}
}

// A crash: the sweeper expires alice's lease, and its commit publishes
// participant.left with reason expired at once.
func TestEvents_AnExpiryIsALeftEventWithReasonExpired(t *testing.T) {
	f := mustOpenEvents(t)
	f.join(t, "r", "alice", "tab")
	f.clock.Advance(f.settings.Lease)
	if r := f.pass(t, f.relay(t, f.store, f.pub)); r.SessionsExpired != 1 {
		t.Fatalf("expired %d sessions, want 1", r.SessionsExpired)
	}
	got := decodeEvents(t, f.sub.WaitUntil(t, "the join and the expiry", func(got []emulatortest.Received) bool { return len(got) == 2 }))
	left := got[1]
	if left.attrs["ce-type"] != presence.EventLeft || left.data["reason"] != presence.ReasonExpired ||
		left.data["participantSeq"] != 2.0 || left.data["participantId"] != "alice" {
		t.Fatalf("expiry's event %v %v", left.attrs, left.data)
	}
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox: %v", left)
	}
}

// The teardown's room.closed outlives the purge: the sweeper that tore the
// room down died before publishing, the same pass purged everything under
// rooms/r, and the relay still finds the event (the outbox is not under
// the room) and publishes it with the closing record's figures.
func TestEvents_RoomClosedIsRelayedAfterThePurge(t *testing.T) {
	f := mustOpenEvents(t)
	f.leave(t, f.join(t, "r", "alice", "tab"))
	f.clock.Advance(f.settings.EmptyRoomGrace)
	dying := f.instance(t, &deadPublisher{})
	if r := f.pass(t, f.sweeper(t, dying, sweep.Config{DefaultMode: sweep.Enforce})); r.RoomsDeleted != 1 || r.RoomsPurged != 1 {
		t.Fatalf("deleted %d purged %d, want the teardown and its purge", r.RoomsDeleted, r.RoomsPurged)
	}
	if f.exists(t, "rooms/r/eventCursors/alice") {
		t.Fatal("the purge left alice's event cursor")
	}
	closing := f.closingOf(t, "r")
	f.clock.Advance(firestoredb.OutboxRelayAge)
	if r := f.pass(t, f.relay(t, f.store, f.pub)); r.EventsRelayed != 1 {
		t.Fatalf("relayed %d, want room.closed", r.EventsRelayed)
	}
	got := decodeEvents(t, f.sub.WaitUntil(t, "room.closed", func(got []emulatortest.Received) bool { return len(got) == 3 }))
	closed := got[2]
	d := closed.data
	if closed.attrs["ce-type"] != presence.EventClosed || d["roomId"] != "r" || d["participantId"] != nil {
		t.Fatalf("room.closed %v %v", closed.attrs, d)
	}
	for field, want := range map[string]any{
		"openedAt":          presence.EventTime(closing["openedAt"].(time.Time)),
		"closedAt":          presence.EventTime(closing["closedAt"].(time.Time)),
		"emptySince":        presence.EventTime(closing["emptySince"].(time.Time)),
		"lifetime":          presence.EventTime(closing["openedAt"].(time.Time)),
		"cleanupLagSeconds": closing["cleanupLagSeconds"],
		"generation":        float64(closing["generation"].(int64)),
	} {
		if d[field] != want {
			t.Errorf("room.closed %s = %v, want the closing record's %v", field, d[field], want)
		}
	}
}

// blockedPublisher holds every publication until released (or 30 s).
type blockedPublisher struct {
	next    sweep.EventPublisher
	release chan struct{}
	calls   atomic.Int32
	done    atomic.Bool
}

func (b *blockedPublisher) Publish(ctx context.Context, ev presence.OutboxEvent) error {
	b.calls.Add(1)
	select {
	case <-b.release:
	case <-time.After(30 * time.Second):
	}
	defer b.done.Store(true)
	return b.next.Publish(ctx, ev)
}

// The sweeper's store publishes beside its work: a pass that expires a
// session does not wait for the acknowledgement (a mass expiry would
// otherwise wait for one per session), and the event still goes out and
// its record is deleted.
func TestEvents_TheSweeperPublishesBesideItsWork(t *testing.T) {
	f := mustOpenEvents(t)
	f.join(t, "r", "alice", "tab")
	blocked := &blockedPublisher{next: f.pub, release: make(chan struct{})}
	sweeperStore := f.instance(t, blocked)
	sweeperStore.PublishInBackground()
	f.clock.Advance(f.settings.Lease)
	if r := f.pass(t, f.sweeper(t, sweeperStore, sweep.Config{DefaultMode: sweep.Enforce})); r.SessionsExpired != 1 {
		t.Fatalf("expired %d, want 1", r.SessionsExpired)
	}
	if blocked.done.Load() {
		t.Fatal("the pass waited for the publication")
	}
	if blocked.calls.Load() != 1 {
		t.Fatalf("%d publications started, want the expiry's", blocked.calls.Load())
	}
	close(blocked.release)
	sweeperStore.WaitPublished()
	got := decodeEvents(t, f.sub.WaitUntil(t, "the expiry", func(got []emulatortest.Received) bool { return len(got) == 2 }))
	if got[1].data["reason"] != presence.ReasonExpired {
		t.Fatalf("event %v", got[1].data)
	}
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox: %v", left)
	}
}

// A full page of records still their instances' to publish is no
// backlog: the sweeper does not pass again at once to list them again.
// A full page with records due is one.
func TestEvents_AFullPageOfRecordsInFlightIsNoBacklog(t *testing.T) {
	f := mustOpenEvents(t)
	dead := f.instance(t, &deadPublisher{})
	for _, uid := range []string{"alice", "bob"} {
		if _, err := dead.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: uid, SessionID: "tab"}}); err != nil {
			t.Fatal(err)
		}
	}
	sw := f.sweeper(t, f.store, sweep.Config{DefaultMode: sweep.Enforce, BatchSize: 2})
	sw.RelayEvents(f.store, f.pub, firestoredb.OutboxRelayAge)
	if r := f.pass(t, sw); r.Backlog || r.EventsPending != 2 {
		t.Fatalf("young records: backlog %v, pending %d; want no backlog, 2", r.Backlog, r.EventsPending)
	}
	f.clock.Advance(firestoredb.OutboxRelayAge)
	if r := f.pass(t, sw); !r.Backlog || r.EventsRelayed != 2 {
		t.Fatalf("due records: backlog %v, relayed %d; want a backlog, 2", r.Backlog, r.EventsRelayed)
	}
}

// waitingPublisher holds the publication of hold's event until another
// room's event has been published, or gives up after 10 s.
type waitingPublisher struct {
	next  sweep.EventPublisher
	hold  string        // the room whose publication waits
	other chan struct{} // closed once another room's event went out
	once  atomic.Bool
}

func (w *waitingPublisher) Publish(ctx context.Context, ev presence.OutboxEvent) error {
	if ev.RoomID != w.hold {
		err := w.next.Publish(ctx, ev)
		if w.once.CompareAndSwap(false, true) {
			close(w.other)
		}
		return err
	}
	select {
	case <-w.other:
	case <-time.After(10 * time.Second):
		return errors.New("no other room's event was published while this one waited")
	}
	return w.next.Publish(ctx, ev)
}

// A relay with a backlog (after a Pub/Sub outage, say) publishes rooms at
// once: r1's event, the oldest, is held until r2's has gone out. One room
// at a time, r2's would wait behind it, and so would every deadline of the
// sweeper's next pass.
func TestEvents_TheRelayPublishesRoomsAtOnce(t *testing.T) {
	f := mustOpenEvents(t)
	dead := f.instance(t, &deadPublisher{})
	for _, room := range []string{"r1", "r2"} {
		if _, err := dead.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: "alice", SessionID: "tab"}}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Millisecond) // r1's record is the older
	}
	f.clock.Advance(firestoredb.OutboxRelayAge)
	pub := &waitingPublisher{next: f.pub, hold: "r1", other: make(chan struct{})}
	r := f.pass(t, f.relay(t, f.store, pub))
	if r.EventsRelayed != 2 || r.ItemErr != nil {
		t.Fatalf("relayed %d (skipped failure %v), want both rooms' events", r.EventsRelayed, r.ItemErr)
	}
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox after the relay: %v", left)
	}
}

// failingOnce fails the first publication of fail's event.
type failingOnce struct {
	next   sweep.EventPublisher
	fail   string // participant id
	failed atomic.Bool
	calls  atomic.Int32
}

func (f *failingOnce) Publish(ctx context.Context, ev presence.OutboxEvent) error {
	f.calls.Add(1)
	var d struct{ ParticipantID string }
	_ = json.Unmarshal(ev.Data, &d)
	if d.ParticipantID == f.fail && f.failed.CompareAndSwap(false, true) {
		return errors.New("injected: Pub/Sub refused the publication")
	}
	return f.next.Publish(ctx, ev)
}

// A room's event that fails to go out holds back the room's later events
// until the next pass, so that they do not overtake it: alice's join fails
// once, and bob's, after it in the same room, is not published in that
// pass. The next pass publishes both, alice's first.
func TestEvents_ARoomsLaterEventsWaitForOneThatFailed(t *testing.T) {
	f := mustOpenEvents(t)
	dead := f.instance(t, &deadPublisher{})
	for _, uid := range []string{"alice", "bob"} {
		if _, err := dead.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: uid, SessionID: "tab"}}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Millisecond)
	}
	pending := f.outbox(t)
	f.clock.Advance(firestoredb.OutboxRelayAge)
	pub := &failingOnce{next: f.pub, fail: "alice"}
	sw := f.relay(t, f.store, pub)
	if r := f.pass(t, sw); r.EventsRelayed != 0 || r.ItemErr == nil || pub.calls.Load() != 1 {
		t.Fatalf("first pass: relayed %d, %d publications, skipped failure %v; want alice's tried once and bob's held back",
			r.EventsRelayed, pub.calls.Load(), r.ItemErr)
	}
	if left := f.outbox(t); len(left) != 2 {
		t.Fatalf("outbox after the failed pass: %v, want both records", left)
	}
	if r := f.pass(t, sw); r.EventsRelayed != 2 {
		t.Fatalf("second pass relayed %d, want 2", r.EventsRelayed)
	}
	got := decodeEvents(t, f.sub.WaitForIDs(t, pending...))
	if len(got) != 2 || got[0].data["participantId"] != "alice" || got[1].data["participantId"] != "bob" {
		t.Fatalf("delivered %v, want alice's join then bob's", got)
	}
}

// stuckExpiry is a store whose listing of expired sessions does not answer
// until released (or the pass's deadline): a step stuck as the chaos runs
// saw it, behind the locks of a dead instance's transaction.
type stuckExpiry struct {
	*firestoredb.Store
	release chan struct{}
}

func (s stuckExpiry) ExpiredSessions(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.ExpiryCandidate], error) {
	select {
	case <-s.release:
		return presence.Listing[presence.ExpiryCandidate]{}, errors.New("the store is busy")
	case <-ctx.Done():
		return presence.Listing[presence.ExpiryCandidate]{}, ctx.Err()
	}
}

// relayedPublisher closes published after its first publication.
type relayedPublisher struct {
	next      sweep.EventPublisher
	published chan struct{}
	once      sync.Once
}

func (r *relayedPublisher) Publish(ctx context.Context, ev presence.OutboxEvent) error {
	err := r.next.Publish(ctx, ev)
	r.once.Do(func() { close(r.published) })
	return err
}

// A step of the pass that does not answer does not hold the relay back:
// the expiry's listing is stuck until the relay has published a killed
// instance's record, and only then fails. Run after the steps, the relay
// would never start before the pass's deadline, pass after pass.
func TestEvents_AStuckStepDoesNotHoldTheRelayBack(t *testing.T) {
	f := mustOpenEvents(t)
	if _, err := f.instance(t, &deadPublisher{}).Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}}); err != nil {
		t.Fatal(err)
	}
	pending := f.outbox(t)
	f.clock.Advance(firestoredb.OutboxRelayAge)
	pub := &relayedPublisher{next: f.pub, published: make(chan struct{})}
	stuck := stuckExpiry{Store: f.store, release: pub.published}
	sw := f.sweeper(t, stuck, sweep.Config{DefaultMode: sweep.Enforce, PassTimeout: 5 * time.Second})
	sw.RelayEvents(f.store, pub, firestoredb.OutboxRelayAge)
	r := sw.Pass(f.ctx)
	if r.EventsRelayed != 1 {
		t.Fatalf("relayed %d beside a stuck step (pass error %v), want the killed instance's join", r.EventsRelayed, r.Err)
	}
	if r.Err == nil || r.FailedSteps != 1 {
		t.Fatalf("the stuck step's failure: %v, %d failed steps; want it reported, once", r.Err, r.FailedSteps)
	}
	f.sub.WaitForIDs(t, pending...)
	if left := f.outbox(t); len(left) != 0 {
		t.Fatalf("outbox after the relay: %v", left)
	}
}
