package firestoredb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/pubsubevents"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Events from the store's transactions, on the Firestore and Pub/Sub
// emulators (docs/events.md, "The events").

// withEvents makes both of f's stores publish on a topic of f's project
// and returns a subscription to it.
func withEvents(t *testing.T, f *fixture) *emulatortest.Subscription {
	t.Helper()
	sub := emulatortest.EventTopic(t, f.project, "events")
	for _, s := range []*firestoredb.Store{f.store, f.other} {
		pub, err := pubsubevents.New(f.ctx, f.project, "events", "(default)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pub.Close() })
		s.PublishEvents(pub)
	}
	return sub
}

// eventLine is what a test compares of an event.
type eventLine struct {
	Type, Participant string
	Seq               int64
	Reason            string
	Changed           string
}

func (l eventLine) String() string {
	return fmt.Sprintf("%s %s#%d %s%s", l.Type, l.Participant, l.Seq, l.Reason, l.Changed)
}

func eventLines(t *testing.T, got []emulatortest.Received) []eventLine {
	t.Helper()
	out := make([]eventLine, len(got))
	for i, r := range got {
		var d struct {
			ParticipantID  string   `json:"participantId"`
			ParticipantSeq int64    `json:"participantSeq"`
			Reason         string   `json:"reason"`
			Changed        []string `json:"changed"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatalf("event data %q: %v", r.Data, err)
		}
		out[i] = eventLine{Type: r.Attributes["ce-type"], Participant: d.ParticipantID, Seq: d.ParticipantSeq, Reason: d.Reason}
		if len(d.Changed) > 0 {
			out[i].Changed = fmt.Sprint(d.Changed)
		}
	}
	return out
}

func (f *fixture) outboxIDs(t *testing.T) []string {
	t.Helper()
	refs, err := f.client.Collection(firestoredb.OutboxCollection).DocumentRefs(f.ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range refs {
		ids = append(ids, r.ID)
	}
	return ids
}

// Every visible change is one event, with the participant's sequence
// number going on across a leave and a rejoin; heartbeats, typing,
// unchanged states and refused requests are none. (Away toggles go through
// the HTTP API in internal/eventsintegration.) The eviction comes last: events of one room from one publisher
// arrive in order, so once it is there, anything published before it is.
func TestEvents_EveryVisibleChangeIsOneEvent(t *testing.T) {
	f := MustOpenStore(t)
	sub := withEvents(t, f)
	tab1 := f.mustJoin(t, "r", "alice", "tab1")
	f.mustJoin(t, "r", "bob", "tab")
	r1 := withToken(ref("r", "alice", "tab1", tab1.Session.Generation), tab1.Grant.Token)
	f.clock.Advance(11 * time.Second) // a renewal is due
	if _, err := f.store.Renew(f.ctx, r1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SetTyping(f.ctx, r1, true); err != nil {
		t.Fatal(err)
	}
	busy := presence.StateRequest{SessionRef: r1, State: presence.State{"mood": "busy"}}
	for range 2 { // the second writes nothing
		if _, err := f.store.SetState(f.ctx, busy); err != nil {
			t.Fatal(err)
		}
	}
	tab2 := f.mustJoin(t, "r", "alice", "tab2")
	f.setPolicy(t, "closed", "bob")
	wantCode(t, errOf(f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "closed", ParticipantID: "alice", SessionID: "tab"}})), presence.EForbidden)
	r2 := ref("r", "alice", "tab2", tab2.Session.Generation)
	for _, r := range []presence.SessionRef{r2, r1} {
		if res, err := f.store.Leave(f.ctx, r); err != nil || !res.Removed {
			t.Fatalf("leave %v: %v %v", r, res, err)
		}
	}
	f.mustJoin(t, "r", "alice", "tab1")
	f.setPolicy(t, "r", "alice")
	if rep, err := f.store.EnforcePolicy(f.ctx, presence.PolicyChange{RoomID: "r", Policy: presence.Policy{AllowedUsers: []string{"alice"}}}, 10); err != nil || rep.Evicted != 1 {
		t.Fatalf("eviction: %+v %v", rep, err)
	}

	got := eventLines(t, sub.WaitUntil(t, "bob's eviction", func(got []emulatortest.Received) bool {
		return slices.ContainsFunc(eventLines(t, got), func(l eventLine) bool { return l.Reason == presence.ReasonEvicted })
	}))
	want := []eventLine{
		{Type: presence.EventJoined, Participant: "alice", Seq: 1},
		{Type: presence.EventJoined, Participant: "bob", Seq: 1},
		{Type: presence.EventUpdated, Participant: "alice", Seq: 2, Changed: "[state]"},
		{Type: presence.EventUpdated, Participant: "alice", Seq: 3, Changed: "[sessionCount]"},
		{Type: presence.EventUpdated, Participant: "alice", Seq: 4, Changed: "[sessionCount]"},
		{Type: presence.EventLeft, Participant: "alice", Seq: 5, Reason: presence.ReasonLeft},
		{Type: presence.EventJoined, Participant: "alice", Seq: 6},
		{Type: presence.EventLeft, Participant: "bob", Seq: 2, Reason: presence.ReasonEvicted},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	if ids := f.outboxIDs(t); len(ids) != 0 {
		t.Fatalf("outbox after every publication was acknowledged: %v", ids)
	}
}

// With no publisher (no topic configured), nothing of events is written:
// no outbox record, no cursor.
func TestEvents_OffWritesNothing(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "r", "alice", "tab")
	if _, err := f.store.Leave(f.ctx, ref("r", "alice", "tab", j.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	cursors, err := f.client.CollectionGroup(firestoredb.EventCursorsCollection).Documents(f.ctx).GetAll()
	if err != nil || len(cursors) != 0 || len(f.outboxIDs(t)) != 0 {
		t.Fatalf("events off wrote %d cursors and outbox %v (%v)", len(cursors), f.outboxIDs(t), err)
	}
}

// What events add to a visible change (BENCHMARKS.md, "Events"): the
// cursor's read and write, the outbox record's write, and its deletion
// once published.
func TestEvents_CostOfAVisibleChange(t *testing.T) {
	off := MustOpenStore(t)
	on := MustOpenStore(t)
	withEvents(t, on)
	cost := func(f *fixture) firestoredb.OpCounts {
		f.mustJoin(t, "x", "host", "s") // the room exists: one transaction
		before := f.store.Ops()
		f.mustJoin(t, "x", "alice", "s")
		return f.store.Ops().Sub(before)
	}
	if got, want := cost(on).Sub(cost(off)), (firestoredb.OpCounts{Reads: 1, Writes: 3}); got != want {
		t.Fatalf("events add %+v to a join, want %+v", got, want)
	}
}

// With events on, a join (creating its room or not), a state update, an
// away toggle and a leave read the user's event cursor with their first
// reads: the read events add to them (TestEvents_CostOfAVisibleChange)
// costs no round trip of its own.
func TestEvents_ReadTheCursorInTheFirstRoundTrip(t *testing.T) {
	off := MustOpenStore(t)
	on := MustOpenStore(t)
	withEvents(t, on)
	ops := []string{"a join creating its room", "a new user's join", "a state update", "an away toggle", "a leave"}
	lookups := func(f *fixture) []int64 {
		var got []int64
		measure := func(op func() error) {
			before := f.store.DocumentLookups()
			if err := op(); err != nil {
				t.Fatal(err)
			}
			got = append(got, f.store.DocumentLookups()-before)
		}
		join := func(uid string) func() error {
			return func() error {
				_, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: uid, SessionID: "tab"}})
				return err
			}
		}
		measure(join("host"))
		var j presence.JoinResult
		measure(func() (err error) {
			j, err = f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}})
			return err
		})
		r := ref("r", "alice", "tab", j.Session.Generation)
		measure(func() error {
			_, err := f.store.SetState(f.ctx, presence.StateRequest{SessionRef: r, State: presence.State{"mood": "busy"}})
			return err
		})
		measure(func() error {
			_, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: r, Away: true})
			return err
		})
		measure(func() error {
			_, err := f.store.Leave(f.ctx, r)
			return err
		})
		return got
	}
	without, with := lookups(off), lookups(on)
	for i, op := range ops {
		if with[i] != without[i] {
			t.Errorf("%s: %d round trips reading documents with events on, %d with them off; want the same", op, with[i], without[i])
		}
	}
}

// A transaction attempt that is rolled back leaves no event. Alice opens
// two more tabs at once through two instances; each join's first attempt
// waits after its reads until the other has read, so both stage an update
// of her entry (and an outbox record); one commit aborts the other
// attempt, which runs again and stages a new record on fresh reads. Only
// the committed attempts' events exist: one per session count, with
// consecutive sequence numbers.
func TestEvents_ARolledBackAttemptLeavesNoEvent(t *testing.T) {
	f := MustOpenStore(t)
	sub := withEvents(t, f)
	f.mustJoin(t, "r", "alice", "tab1")
	arrive := rendezvous(2)
	var reads [2]atomic.Int32
	stores := [2]*firestoredb.Store{f.store, f.other}
	for i, s := range stores {
		s.SetAfterJoinReads(func() {
			if reads[i].Add(1) == 1 {
				arrive()
			}
		})
	}
	var wg sync.WaitGroup
	var errs [2]error
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(f.ctx, time.Minute)
			defer cancel()
			_, errs[i] = s.Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: fmt.Sprint("tab", i+2)}})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("joins: %v", errs)
	}
	if reads[0].Load()+reads[1].Load() < 3 {
		t.Fatalf("attempts %d and %d: no attempt was rolled back, so the race was not run", reads[0].Load(), reads[1].Load())
	}
	got := eventLines(t, sub.WaitUntil(t, "three events", func(got []emulatortest.Received) bool { return len(got) >= 3 }))
	sort.Slice(got, func(i, j int) bool { return got[i].Seq < got[j].Seq })
	want := []eventLine{
		{Type: presence.EventJoined, Participant: "alice", Seq: 1},
		{Type: presence.EventUpdated, Participant: "alice", Seq: 2, Changed: "[sessionCount]"},
		{Type: presence.EventUpdated, Participant: "alice", Seq: 3, Changed: "[sessionCount]"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	if ids := f.outboxIDs(t); len(ids) != 0 {
		t.Fatalf("outbox: %v", ids)
	}
}

// A user on the roster for longer than the record horizon without a
// visible change keeps their event cursor: the heartbeat that refreshes
// the entry's expireAt refreshes the cursor's with it, so TTL never takes
// the sequence number of someone still there.
func TestEvents_TheCursorLivesAsLongAsTheEntry(t *testing.T) {
	f := MustOpenStore(t)
	settings := presence.DefaultSettings()
	settings.RecordHorizon = 48 * time.Hour
	settings.Heartbeat, settings.Lease, settings.RenewWhenLeft = 30*time.Minute, time.Hour, 0.5
	store := firestoredb.New(f.client, settings, f.clock.Now)
	store.PublishEvents(keepInOutbox{})
	res, err := store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "long", ParticipantID: "alice", SessionID: "tab"}})
	if err != nil {
		t.Fatal(err)
	}
	expireAt := func(path string) time.Time {
		t.Helper()
		snap, err := f.client.Doc(path).Get(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Data()["expireAt"].(time.Time)
	}
	joined := expireAt("rooms/long/eventCursors/alice")
	for range 49 { // 24.5 h of heartbeats: the entry comes within a day of its horizon
		f.clock.Advance(30 * time.Minute)
		if _, err := store.Heartbeat(f.ctx, ref("long", "alice", "tab", res.Session.Generation)); err != nil {
			t.Fatal(err)
		}
	}
	entry, cursor := expireAt("rooms/long/participants/alice"), expireAt("rooms/long/eventCursors/alice")
	if !entry.After(joined) || !cursor.Equal(entry) {
		t.Fatalf("entry expires at %v, cursor at %v (at the join %v); want both refreshed", entry, cursor, joined)
	}
}

// A snapshot's sequence numbers: every participant who had an event in
// the room's lifetime, present or gone, with their latest.
func TestEvents_SequenceNumbersForASnapshot(t *testing.T) {
	f := MustOpenStore(t)
	f.store.PublishEvents(keepInOutbox{})
	a := f.mustJoin(t, "r", "alice", "tab")
	f.mustJoin(t, "r", "bob", "tab")
	if _, err := f.store.Leave(f.ctx, ref("r", "alice", "tab", a.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	seqs, err := f.store.EventSeqsForTest(f.ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"alice": 2, "bob": 1}; !reflect.DeepEqual(seqs, want) {
		t.Fatalf("seqs %v, want %v", seqs, want)
	}
}

// An away toggle that also deletes a sibling session whose lease has ended
// (presence.PlanAway's ExpiredSiblings) reads the user's event cursor
// before that deletion: a transaction reads nothing after it writes, and
// the toggle failed whenever events were on and a sibling had ended (the
// model test found it, seed 1796178115249379714).
func TestEvents_AnAwayToggleThatDeletesAnEndedSibling(t *testing.T) {
	f := MustOpenStore(t)
	sub := withEvents(t, f)
	f.mustJoin(t, "r", "alice", "tab1")
	f.clock.Advance(10 * time.Second)
	tab2 := f.mustJoin(t, "r", "alice", "tab2")
	f.clock.Advance(6 * time.Second) // tab1's lease has ended, tab2's has not

	g, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: ref("r", "alice", "tab2", tab2.Session.Generation), Away: true})
	if err != nil {
		t.Fatalf("away toggle beside an ended sibling: %v", err)
	}
	if !g.Away {
		t.Fatalf("the toggle answered away %v, want true", g.Away)
	}
	third := func(l eventLine) bool { return l.Participant == "alice" && l.Seq == 3 }
	got := eventLines(t, sub.WaitUntil(t, "alice's third event", func(got []emulatortest.Received) bool {
		return slices.ContainsFunc(eventLines(t, got), third)
	}))
	i := slices.IndexFunc(got, third)
	if l := got[i]; l.Type != presence.EventUpdated || !strings.Contains(l.Changed, "away") {
		t.Fatalf("events %v, want alice's third to be the away update", got)
	}
}
