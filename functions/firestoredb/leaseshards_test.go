package firestoredb_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// Lease shards (firestoredb/leaseshards.go): every lease is written with
// its shard, and the sweeper's queries by shard find what the single-field
// index finds, except sessions never written with a shard.

func (f *fixture) sessionDoc(room, uid, session string) *firestore.DocumentRef {
	return f.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.ParticipantsCollection).Doc(uid).
		Collection(firestoredb.SessionsCollection).Doc(session)
}

// leaseShardField returns the session's leaseShard, or -1 without one.
func (f *fixture) leaseShardField(t *testing.T, room, uid, session string) int64 {
	t.Helper()
	return f.intField(t, f.sessionDoc(room, uid, session), firestoredb.FieldLeaseShard)
}

// dropLeaseShard makes the session look written before lease shards.
func (f *fixture) dropLeaseShard(t *testing.T, room, uid, session string) {
	t.Helper()
	if _, err := f.sessionDoc(room, uid, session).Update(f.ctx, []firestore.Update{{Path: firestoredb.FieldLeaseShard, Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
}

// A join writes the lease's shard, and so does every renewal, read path
// or fenced: a session written before shards gains one when it renews.
func TestLeases_EveryLeaseIsWrittenWithItsShard(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "sharded", "alice", "tab")
	want := firestoredb.LeaseShardOf("sharded", "alice", "tab")
	if got := f.leaseShardField(t, "sharded", "alice", "tab"); got != want {
		t.Fatalf("after the join, leaseShard %d, want %d", got, want)
	}
	r := ref("sharded", "alice", "tab", j.Session.Generation)
	g := j.Grant
	for _, withTok := range []bool{false, true} {
		f.dropLeaseShard(t, "sharded", "alice", "tab")
		f.setClock(g.RenewAt)
		token := ""
		if withTok {
			token = g.Token
		}
		before := g.LeaseExpiresAt
		g = renew(t, f, f.store, r, token)
		if !g.LeaseExpiresAt.After(before) {
			t.Fatalf("token %v: the heartbeat did not renew (%v, then %v)", withTok, before, g.LeaseExpiresAt)
		}
		if got := f.leaseShardField(t, "sharded", "alice", "tab"); got != want {
			t.Fatalf("token %v: after the renewal, leaseShard %d, want %d", withTok, got, want)
		}
	}
}

// Sessions of many rooms, with deadlines apart, listed by the single-field
// index and by shard: the same sessions in the same order, at any limit,
// and the same next deadline. A session without a shard is found only by
// the single-field index: why the switch waits (docs/upgrades.md).
func TestLeases_ByShardTheSweeperFindsWhatTheSingleIndexFinds(t *testing.T) {
	f := MustOpenStore(t)
	shards := map[int64]bool{}
	for i := range 24 {
		room, uid := fmt.Sprintf("r%d", i%6), fmt.Sprintf("u%02d", i)
		f.mustJoin(t, room, uid, "tab")
		shards[firestoredb.LeaseShardOf(room, uid, "tab")] = true
		f.clock.Advance(100 * time.Millisecond)
	}
	if len(shards) < 4 {
		t.Fatalf("24 sessions in %d shards: too few to show a merge", len(shards))
	}
	single := firestoredb.New(f.client, presence.DefaultSettings(), f.clock.Now) // whatever the test run's lease index
	sharded := f.other
	sharded.ListLeasesByShard()
	f.clock.Advance(presence.DefaultSettings().Lease + time.Minute)
	now := f.clock.Now()

	list := func(s *firestoredb.Store, limit int) []string {
		t.Helper()
		l, err := s.ExpiredSessions(f.ctx, now, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range l.Items {
			out = append(out, fmt.Sprintf("%s/%s@%d", c.RoomID, c.ParticipantID, c.LeaseExpiresAt.UnixMilli()))
		}
		return out
	}
	for _, limit := range []int{5, 100} {
		a, b := list(single, limit), list(sharded, limit)
		if want := min(limit, 24); len(a) != want {
			t.Fatalf("limit %d: the single index listed %d sessions, want %d", limit, len(a), want)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("limit %d:\nsingle  %v\nsharded %v", limit, a, b)
		}
	}
	na, errA := single.NextDeadline(f.ctx, false)
	nb, errB := sharded.NextDeadline(f.ctx, false)
	if errA != nil || errB != nil || na.IsZero() || !na.Equal(nb) {
		t.Fatalf("next deadline: single %v (%v), sharded %v (%v)", na, errA, nb, errB)
	}

	f.dropLeaseShard(t, "r0", "u00", "tab") // the oldest
	if a := list(single, 1); len(a) != 1 || a[0][:6] != "r0/u00" {
		t.Fatalf("the single index lists %v first, want r0/u00", a)
	}
	if b := list(sharded, 100); len(b) != 23 {
		t.Fatalf("by shard, %d sessions listed, want 23: a session without a shard is in no shard's range", len(b))
	}
}

// A room's roster, read by a member and by a service, is the same whether
// its live sessions come from the index (roomId, leaseExpiresAt) or from
// the one by lease shard, all shards in one query. A member whose session
// has no shard is not seen by the second: why the switch waits.
func TestLeases_ARoomsRosterByShardIsItsRoster(t *testing.T) {
	f := MustOpenStore(t)
	for _, uid := range []string{"alice", "bob", "carol", "dave"} {
		f.mustJoin(t, "by-shard", uid, "tab")
	}
	f.mustJoin(t, "by-shard", "bob", "phone")
	single := firestoredb.New(f.client, presence.DefaultSettings(), f.clock.Now)
	sharded := f.instance(t, f.clock.Now)
	sharded.ListLeasesByShard()
	read := func(s *firestoredb.Store) (member, service string) {
		t.Helper()
		r, err := s.Roster(f.ctx, presence.RosterRequest{RoomID: "by-shard", CallerID: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := s.ServiceRoster(f.ctx, "by-shard")
		if err != nil {
			t.Fatal(err)
		}
		ids := func(ps []presence.Participant) string {
			var out []string
			for _, p := range ps {
				out = append(out, p.ID)
			}
			return fmt.Sprint(out)
		}
		return ids(r.Participants), ids(snap.Participants)
	}
	for name, s := range map[string]*firestoredb.Store{"single": single, "sharded": sharded} {
		if m, sv := read(s); m != "[alice bob carol dave]" || sv != m {
			t.Fatalf("%s: a member reads %s, a service %s; want [alice bob carol dave]", name, m, sv)
		}
	}

	f.dropLeaseShard(t, "by-shard", "carol", "tab")
	if m, _ := read(single); m != "[alice bob carol dave]" {
		t.Fatalf("the one-room index lists %s after carol's shard went; want carol still", m)
	}
	if m, _ := read(sharded); m != "[alice bob dave]" {
		t.Fatalf("by shard, %s after carol's shard went; want carol unseen", m)
	}
}

// Typing signals follow the same setting: every signal is written with
// its shard, and the sweeper's listing by shard finds the signals the
// single-field index finds, in the same order, with the same next
// deadline.
func TestLeases_TypingSignalsByShardAreTheSameSignals(t *testing.T) {
	f := MustOpenStore(t)
	shards := map[int64]bool{}
	for i := range 12 {
		room, uid := fmt.Sprintf("t%d", i%3), fmt.Sprintf("u%02d", i)
		j := f.mustJoin(t, room, uid, "tab")
		if _, err := f.store.SetTyping(f.ctx, ref(room, uid, "tab", j.Session.Generation), true); err != nil {
			t.Fatal(err)
		}
		snap, err := f.client.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.TypingCollection).Doc(uid).Get(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := firestoredb.TypingShardOf(room, uid)
		if got, _ := snap.Data()[firestoredb.FieldExpiryShard].(int64); got != want {
			t.Fatalf("%s's signal has expiryShard %v, want %d", uid, snap.Data()[firestoredb.FieldExpiryShard], want)
		}
		shards[want] = true
		f.clock.Advance(100 * time.Millisecond)
	}
	if len(shards) < 3 {
		t.Fatalf("12 signals in %d shards: too few to show a merge", len(shards))
	}
	single := firestoredb.New(f.client, presence.DefaultSettings(), f.clock.Now)
	sharded := f.other
	sharded.ListLeasesByShard()
	f.clock.Advance(presence.DefaultSettings().TypingExpiry + time.Second)
	list := func(s *firestoredb.Store, limit int) string {
		t.Helper()
		l, err := s.ExpiredTyping(f.ctx, f.clock.Now(), limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range l.Items {
			out = append(out, fmt.Sprintf("%s/%s@%d", c.RoomID, c.ParticipantID, c.ExpiresAt.UnixMilli()))
		}
		return fmt.Sprint(out)
	}
	for _, limit := range []int{4, 50} {
		if a, b := list(single, limit), list(sharded, limit); a != b || a == "[]" {
			t.Fatalf("limit %d:\nsingle  %s\nsharded %s", limit, a, b)
		}
	}
	// The first signal's expiry is the next deadline (every lease lasts
	// longer), found by shard as by the single index.
	na, errA := single.NextDeadline(f.ctx, false)
	nb, errB := sharded.NextDeadline(f.ctx, false)
	first, _ := single.ExpiredTyping(f.ctx, f.clock.Now(), 1)
	if errA != nil || errB != nil || len(first.Items) != 1 || !na.Equal(first.Items[0].ExpiresAt) || !nb.Equal(na) {
		t.Fatalf("next deadline: single %v (%v), sharded %v (%v), first signal %+v", na, errA, nb, errB, first.Items)
	}
	// A signal without a shard (written before shards) is seen only by the
	// single-field index.
	if _, err := f.client.Collection(firestoredb.RoomsCollection).Doc("t0").Collection(firestoredb.TypingCollection).Doc("u00").
		Update(f.ctx, []firestore.Update{{Path: firestoredb.FieldExpiryShard, Value: firestore.Delete}}); err != nil {
		t.Fatal(err)
	}
	if a, b := list(single, 50), list(sharded, 50); strings.Count(a, "@") != 12 || strings.Count(b, "@") != 11 || strings.Contains(b, "t0/u00@") {
		t.Fatalf("with u00's shard gone:\nsingle  %s\nsharded %s\nwant all 12, then all but t0/u00", a, b)
	}
}
