package eventfold_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/roomlease/roomlease/clients/go/eventfold"
)

// history simulates what roomlease publishes for one room: random joins,
// updates, leaves and rejoins of a few users over two lifetimes, the first
// one closed. It returns the events and the true roster at the end.
func history(rng *rand.Rand) ([]eventfold.Event, []eventfold.Member) {
	var events []eventfold.Event
	var truth map[string]eventfold.Member
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	n := 0
	emit := func(typ string, life time.Time, uid string, seq int64, p *eventfold.Participant) {
		n++
		events = append(events, eventfold.Event{ID: fmt.Sprint("e", n), Type: typ, Subject: "rooms/r",
			Data: eventfold.Data{RoomID: "r", Lifetime: life, ParticipantID: uid, ParticipantSeq: seq, Participant: p}})
	}
	for lifetime := range 2 {
		life := at.Add(time.Duration(lifetime) * time.Hour)
		truth = map[string]eventfold.Member{}
		seqs := map[string]int64{}
		for range 40 {
			uid := []string{"alice", "bob", "carol", "dave"}[rng.IntN(4)]
			seqs[uid]++
			m, present := truth[uid]
			switch {
			case !present:
				m = eventfold.Member{ParticipantID: uid, Participant: eventfold.Participant{DisplayName: uid, SessionCount: 1}}
				m.Seq = seqs[uid]
				truth[uid] = m
				emit(eventfold.TypeJoined, life, uid, seqs[uid], &m.Participant)
			case rng.IntN(3) == 0:
				delete(truth, uid)
				emit(eventfold.TypeLeft, life, uid, seqs[uid], &m.Participant)
			default:
				m.SessionCount = 1 + rng.IntN(3)
				m.State = map[string]any{"n": float64(rng.IntN(100))}
				m.Seq = seqs[uid]
				truth[uid] = m
				p := m.Participant
				emit(eventfold.TypeUpdated, life, uid, seqs[uid], &p)
			}
		}
		if lifetime == 0 {
			for uid, m := range truth { // everyone leaves, the room closes
				seqs[uid]++
				emit(eventfold.TypeLeft, life, uid, seqs[uid], &m.Participant)
			}
			emit(eventfold.TypeClosed, life, "", 0, nil)
		}
	}
	var want []eventfold.Member
	for _, uid := range []string{"alice", "bob", "carol", "dave"} {
		if m, ok := truth[uid]; ok {
			want = append(want, m)
		}
	}
	return events, want
}

// Any delivery order, with any duplicates, ends with the room's roster of
// its latest lifetime, and with no gap.
func TestRoster_AnyOrderWithDuplicatesEndsWithTheRoster(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 29))
		events, want := history(rng)
		delivered := append([]eventfold.Event(nil), events...)
		for range len(events) / 3 {
			delivered = append(delivered, events[rng.IntN(len(events))])
		}
		rng.Shuffle(len(delivered), func(i, j int) { delivered[i], delivered[j] = delivered[j], delivered[i] })
		var r eventfold.Roster
		for _, ev := range delivered {
			r.Apply(ev)
		}
		if got := r.Members(); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: roster\n got %+v\nwant %+v", seed, got, want)
		}
		if gaps := r.Gaps(); len(gaps) != 0 {
			t.Fatalf("seed %d: gaps %v after every event arrived", seed, gaps)
		}
	}
}

// A missing event is a gap until it arrives; an event of a closed or
// earlier lifetime changes nothing.
func TestRoster_GapsAndLifetimes(t *testing.T) {
	life := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	ev := func(typ, uid string, seq int64, l time.Time) eventfold.Event {
		return eventfold.Event{ID: fmt.Sprint(uid, seq, l), Type: typ, Data: eventfold.Data{RoomID: "r", Lifetime: l, ParticipantID: uid,
			ParticipantSeq: seq, Participant: &eventfold.Participant{DisplayName: uid}}}
	}
	var r eventfold.Roster
	for _, e := range []eventfold.Event{ev(eventfold.TypeJoined, "alice", 1, life), ev(eventfold.TypeUpdated, "alice", 3, life)} {
		if res := r.Apply(e); res != eventfold.Applied {
			t.Fatalf("apply %v: %v", e.ID, res)
		}
	}
	if gaps := r.Gaps(); !reflect.DeepEqual(gaps, []eventfold.Gap{{ParticipantID: "alice", Missing: []int64{2}}}) {
		t.Fatalf("gaps %v, want alice's 2", gaps)
	}
	if res := r.Apply(ev(eventfold.TypeLeft, "alice", 2, life)); res != eventfold.Superseded || len(r.Members()) != 1 || len(r.Gaps()) != 0 {
		t.Fatalf("the late leave: %v, members %v, gaps %v", res, r.Members(), r.Gaps())
	}
	if res := r.Apply(ev(eventfold.TypeUpdated, "alice", 3, life)); res != eventfold.Duplicate {
		t.Fatalf("a duplicate: %v", res)
	}
	closed := eventfold.Event{ID: "c", Type: eventfold.TypeClosed, Data: eventfold.Data{RoomID: "r", Lifetime: life}}
	if res := r.Apply(closed); res != eventfold.Applied || r.Members() != nil {
		t.Fatalf("room.closed: %v, members %v", res, r.Members())
	}
	if res := r.Apply(ev(eventfold.TypeUpdated, "alice", 4, life)); res != eventfold.Stale || r.Members() != nil {
		t.Fatalf("an event of the closed lifetime: %v, members %v", res, r.Members())
	}
	next := life.Add(time.Minute)
	r.Apply(ev(eventfold.TypeJoined, "bob", 1, next))
	if res := r.Apply(ev(eventfold.TypeJoined, "carol", 1, life)); res != eventfold.Stale {
		t.Fatalf("an earlier lifetime's event: %v", res)
	}
	if m := r.Members(); len(m) != 1 || m[0].ParticipantID != "bob" || r.Closed {
		t.Fatalf("the new lifetime's roster %v (closed %v)", m, r.Closed)
	}
}

// Decode reads the Pub/Sub binding's attributes and the JSON data as
// roomlease writes them, ignoring fields it does not know.
func TestDecode(t *testing.T) {
	attrs := map[string]string{"ce-specversion": "1.0", "ce-id": "0123abcd", "ce-type": eventfold.TypeLeft,
		"ce-source": "//roomlease/projects/p/databases/roomlease", "ce-subject": "rooms/standup",
		"ce-time": "2026-12-02T01:02:03.456789Z", "content-type": "application/json"}
	data := []byte(`{"roomId":"standup","lifetime":"2026-12-02T01:00:00.123456Z","participantId":"uid-1","participantSeq":3,
		"reason":"expired","participant":{"displayName":"Ada","photoURL":"","state":{},"away":false,"sessionCount":1,
		"joinedAt":"2026-12-02T01:00:01Z"},"occurredAt":"2026-12-02T01:02:03.456789Z","somethingNew":true}`)
	ev, err := eventfold.Decode(attrs, data)
	if err != nil {
		t.Fatal(err)
	}
	if ev.ID != "0123abcd" || ev.Data.ParticipantSeq != 3 || ev.Data.Reason != "expired" || ev.Data.Participant.DisplayName != "Ada" ||
		ev.Time.Nanosecond() != 456789000 || ev.Data.Lifetime.Nanosecond() != 123456000 {
		t.Fatalf("decoded %+v", ev)
	}
	for name, bad := range map[string]map[string]string{
		"NoSpecVersion": {"ce-id": "x", "ce-type": eventfold.TypeLeft},
		"AnotherType":   {"ce-specversion": "1.0", "ce-id": "x", "ce-type": "com.example.other"},
	} {
		if _, err := eventfold.Decode(bad, data); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	var missing map[string]any
	_ = json.Unmarshal(data, &missing)
	delete(missing, "participantSeq")
	b, _ := json.Marshal(missing)
	if _, err := eventfold.Decode(attrs, b); err == nil {
		t.Error("a participant event without participantSeq decoded")
	}
}

// A snapshot read at any point of the history, folded in with every
// event in any order (those before it too), ends with the roster.
func TestRoster_SeedFromASnapshot(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		events, want := history(rng)
		// The snapshot: the true state after the first k events of the
		// last lifetime.
		last := events[len(events)-1].Data.Lifetime
		var r0 eventfold.Roster
		k := rng.IntN(len(events))
		seqs := map[string]int64{}
		for _, ev := range events[:k] {
			r0.Apply(ev)
			if ev.Data.Lifetime.Equal(last) && ev.Type != eventfold.TypeClosed {
				seqs[ev.Data.ParticipantID] = ev.Data.ParticipantSeq
			}
		}
		var r eventfold.Roster
		delivered := append([]eventfold.Event(nil), events...)
		rng.Shuffle(len(delivered), func(i, j int) { delivered[i], delivered[j] = delivered[j], delivered[i] })
		at := rng.IntN(len(delivered) + 1)
		for i, ev := range delivered {
			if i == at && r0.Lifetime.Equal(last) {
				r.Seed(last, r0.Members(), seqs)
			}
			r.Apply(ev)
		}
		if at == len(delivered) && r0.Lifetime.Equal(last) {
			r.Seed(last, r0.Members(), seqs)
		}
		if got := r.Members(); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (snapshot after %d events, folded in at %d): roster\n got %+v\nwant %+v", seed, k, at, got, want)
		}
	}
}
