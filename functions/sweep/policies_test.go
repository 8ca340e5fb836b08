package sweep_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// setPolicy writes roomPolicies/{room} as docs/api.md tells operators to:
// with updatedAt, here the test clock's now (in production a server
// timestamp; the two agree up to the sweeper's PolicySkew).
func (f *fixture) setPolicy(tb testing.TB, room string, fields map[string]any) {
	tb.Helper()
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc(room).Set(f.ctx, fields); err != nil {
		tb.Fatal(err)
	}
}

func (f *fixture) revision(tb testing.TB, room, caller string) int64 {
	tb.Helper()
	r, err := f.store.Roster(f.ctx, presence.RosterRequest{RoomID: room, CallerID: caller})
	if err != nil {
		tb.Fatal(err)
	}
	return r.Revision
}

// A policy change evicts, within one sweep pass, every participant it no
// longer admits: all of their sessions, their roster entry, one revision
// each; the admitted stay. A second pass does nothing more.
func TestPolicyChange_EvictsWithinOnePass(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	ops := f.store.Ops()
	f.pass(t, s) // the sweeper is running before the change
	idle := f.store.Ops().Sub(ops)
	f.join(t, "club", "alice", "tab")
	f.join(t, "club", "alice", "phone")
	f.join(t, "club", "bob", "tab")
	f.join(t, "club", "carol", "tab")
	rev := f.revision(t, "club", "bob")

	f.clock.Advance(time.Second)
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"bob"}, "updatedAt": f.clock.Now()})
	r := f.pass(t, s)
	if r.ParticipantsEvicted != 2 {
		t.Fatalf("evicted %d participants, want 2 (alice, carol)", r.ParticipantsEvicted)
	}
	for _, path := range []string{
		"rooms/club/participants/alice", "rooms/club/participants/alice/sessions/tab",
		"rooms/club/participants/alice/sessions/phone", "rooms/club/participants/carol",
		"rooms/club/participants/carol/sessions/tab",
	} {
		if f.exists(t, path) {
			t.Errorf("%s survived the eviction", path)
		}
	}
	if !f.exists(t, "rooms/club/participants/bob/sessions/tab") {
		t.Error("bob, still admitted, was removed")
	}
	if got := f.revision(t, "club", "bob"); got != rev+2 {
		t.Errorf("revision %d, want %d: one per evicted user, whatever their tabs", got, rev+2)
	}
	if st := f.roomState(t, "club"); st != "active" {
		t.Errorf("room %s, want active (bob is still in it)", st)
	}
	// The change stays listed while the watermark trails it, but is not
	// enforced again: the next pass costs what an idle one does.
	ops = f.store.Ops()
	if again := f.pass(t, s); again.ParticipantsEvicted != 0 {
		t.Errorf("a second pass evicted %d more", again.ParticipantsEvicted)
	}
	if cost := f.store.Ops().Sub(ops); cost != idle {
		t.Errorf("the pass after the eviction cost %+v, an idle pass %+v", cost, idle)
	}
	// The evicted are refused from now on, not invited to rejoin.
	_, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "club", ParticipantID: "alice", SessionID: "tab"}})
	if presence.ErrorCode(err) != presence.EForbidden {
		t.Errorf("alice's rejoin: %v, want %s", err, presence.EForbidden)
	}
}

// Evicting the last participant empties the room: it enters its grace as
// after a leave, and the summary counts it.
func TestPolicyChange_EvictingEveryoneSuspectsTheRoom(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	f.join(t, "solo", "alice", "tab")
	f.clock.Advance(time.Second)
	f.setPolicy(t, "solo", map[string]any{"allowedUsers": []string{"bob"}, "updatedAt": f.clock.Now()})
	sum := s.Run(f.ctx)
	if sum.ParticipantsEvicted != 1 || sum.RoomsSuspected != 1 {
		t.Fatalf("run evicted %d and suspected %d rooms, want 1 and 1", sum.ParticipantsEvicted, sum.RoomsSuspected)
	}
	if st := f.roomState(t, "solo"); st != "suspected_empty" && st != "deleted" {
		t.Fatalf("room %s after evicting its last participant", st)
	}
	if got := f.logLine(t, "sweep run")["participantsEvicted"]; got != float64(1) {
		t.Fatalf("the summary line's participantsEvicted = %v, want 1", got)
	}
}

// Each eviction re-reads the policy in its transaction: one that was
// changed back after the sweeper listed it evicts nobody.
func TestPolicyChange_ChangedBackMeanwhileEvictsNobody(t *testing.T) {
	f := MustOpen(t)
	f.join(t, "club", "alice", "tab")
	f.clock.Advance(time.Second)
	listed := presence.PolicyChange{RoomID: "club", Policy: presence.Policy{AllowedUsers: []string{"bob"}}, UpdatedAt: f.clock.Now()}
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"alice", "bob"}, "updatedAt": f.clock.Now().Add(time.Millisecond)})
	rep, err := f.store.EnforcePolicy(f.ctx, listed, 10)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evicted != 0 || !f.exists(t, "rooms/club/participants/alice/sessions/tab") {
		t.Fatalf("evicted %d; alice's session exists: %v", rep.Evicted, f.exists(t, "rooms/club/participants/alice/sessions/tab"))
	}
}

// A policy written without updatedAt is invisible to the sweeper (nothing
// lists it), as documented: it is still enforced at joins and heartbeats.
func TestPolicyChange_WithoutUpdatedAtIsNotSwept(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	f.join(t, "club", "alice", "tab")
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"bob"}})
	if r := f.pass(t, s); r.ParticipantsEvicted != 0 {
		t.Fatalf("evicted %d without updatedAt", r.ParticipantsEvicted)
	}
	if !f.exists(t, "rooms/club/participants/alice") {
		t.Fatal("alice was removed although no change was listed")
	}
}

// A policy changed while no sweeper of this instance ran (before it
// started) is found through the lookback.
func TestPolicyChange_NewSweeperLooksBack(t *testing.T) {
	f := MustOpen(t)
	f.join(t, "club", "alice", "tab")
	// Changed a minute before this sweeper's first pass (alice's lease
	// still live: she stayed on through an instance's heartbeat cache).
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"bob"}, "updatedAt": f.clock.Now().Add(-time.Minute)})
	s := f.sweeper(t, f.store, sweep.Config{})
	if r := f.pass(t, s); r.ParticipantsEvicted != 1 {
		t.Fatalf("a new sweeper evicted %d, want 1 (the change was a minute ago)", r.ParticipantsEvicted)
	}
}

// A policy whose updatedAt is earlier than a pass that did not see it (the
// write was assigned its time before the pass listed, and committed after)
// is found by the next pass: the watermark trails the clock by PolicySkew.
func TestPolicyChange_CommittedLateIsFoundByTheNextPass(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	f.join(t, "club", "alice", "tab")
	f.pass(t, s)
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"bob"}, "updatedAt": f.clock.Now().Add(-5 * time.Second)})
	f.clock.Advance(time.Second)
	if r := f.pass(t, s); r.ParticipantsEvicted != 1 {
		t.Fatalf("evicted %d, want 1: a change 5 s before the last pass is within the skew", r.ParticipantsEvicted)
	}
}

// The eviction against another instance: the API runs on a store of its
// own, on its own Firestore client, whose policy cache still admits alice
// when the policy changes. Whichever order their transactions commit in, an
// evicted session never comes back: a heartbeat renewed on the stale
// instance just before the pass is deleted by it (the eviction re-reads the
// user's sessions in its transaction), and a heartbeat after the pass finds
// its session gone and writes nothing. Her join is refused at once: a join
// reads the policy in its transaction, not through the cache.
func TestPolicyChange_EvictionAgainstAnInstanceWithAStaleCache(t *testing.T) {
	f := MustOpen(t)
	api := firestoredb.New(emulatortest.FirestoreVia(t, emulatortest.FirestoreHost(t), f.project), f.settings, f.clock.Now)
	s := f.sweeper(t, f.store, sweep.Config{})
	tab := f.join(t, "club", "alice", "tab")
	phone := f.join(t, "club", "alice", "phone")
	f.join(t, "club", "bob", "tab")
	// The API instance reads the room's policy (none: everyone is admitted)
	// and keeps it for PolicyCache.
	if _, err := api.Heartbeat(f.ctx, sessionRef(tab)); err != nil {
		t.Fatal(err)
	}

	// Less than PolicyCache later (a minute, longer than the lease), and
	// with less than RenewWhenLeft of the lease left, so that a heartbeat
	// writes.
	f.clock.Advance(min(f.settings.PolicyCache, f.settings.Lease) - time.Second)
	f.setPolicy(t, "club", map[string]any{"allowedUsers": []string{"bob"}, "updatedAt": f.clock.Now()})
	renewed, err := api.Heartbeat(f.ctx, sessionRef(phone))
	if err != nil || !renewed.After(phone.LeaseExpiresAt) {
		t.Fatalf("heartbeat on the stale instance: lease %v (was %v), %v; want it renewed", renewed, phone.LeaseExpiresAt, err)
	}

	if r := f.pass(t, s); r.ParticipantsEvicted != 1 {
		t.Fatalf("evicted %d participants, want 1 (alice)", r.ParticipantsEvicted)
	}
	if _, err := api.Heartbeat(f.ctx, sessionRef(tab)); presence.ErrorCode(err) != presence.EStaleGeneration {
		t.Errorf("heartbeat after the eviction: %v, want %s", err, presence.EStaleGeneration)
	}
	for _, path := range []string{
		"rooms/club/participants/alice", "rooms/club/participants/alice/sessions/tab",
		"rooms/club/participants/alice/sessions/phone",
	} {
		if f.exists(t, path) {
			t.Errorf("%s survived the eviction, or came back", path)
		}
	}
	_, err = api.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "club", ParticipantID: "alice", SessionID: "tab"}})
	if presence.ErrorCode(err) != presence.EForbidden {
		t.Errorf("alice's join on the stale instance: %v, want %s", err, presence.EForbidden)
	}
}
