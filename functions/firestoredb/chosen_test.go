package firestoredb_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// counting is an Allowance that admits the first n changes and counts how
// often it is asked.
type counting struct{ n, asked int }

func (c *counting) allowance() presence.Allowance {
	return func() bool { c.asked++; return c.asked <= c.n }
}

// An away heartbeat and the user's allowance of chosen changes
// (presence.Allowance), with the lease-token fast path:
//   - a heartbeat in the mode in force asks nothing and stays fenced: one
//     write, no read;
//   - a toggle that would change the roster while the allowance refuses
//     renews in the mode in force, writes only its session, and says so;
//   - a toggle that changes nothing anyone sees (another tab stays
//     present) asks nothing;
//   - once admitted, the toggle is applied.
func TestAway_ATogglesRosterChangeWaitsForTheAllowance(t *testing.T) {
	f := MustOpenStore(t)
	j := f.mustJoin(t, "ch", "alice", "tab")
	r := ref("ch", "alice", "tab", j.Session.Generation)
	budget := &counting{n: 0}
	beat := func(away bool, token string) (presence.Grant, []string) {
		t.Helper()
		before := emulatortest.Snapshot(t, f.client)
		g, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: withToken(r, token), Away: away, Allowance: budget.allowance()})
		if err != nil {
			t.Fatal(err)
		}
		return g, emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
	}
	session := "rooms/ch/participants/alice/sessions/tab"

	f.setClock(j.Grant.RenewAt)
	g, _ := beat(false, j.Grant.Token) // reads the policy, once per instance
	f.setClock(g.RenewAt)
	before := f.store.Ops()
	g, _ = beat(false, g.Token)
	if cost := f.store.Ops().Sub(before); cost != (firestoredb.OpCounts{Writes: 1}) || budget.asked != 0 {
		t.Fatalf("a heartbeat in the mode in force cost %+v and asked the allowance %d times; want one write, no read, no ask", cost, budget.asked)
	}

	f.setClock(g.RenewAt) // due, so that "as usual" means renewed
	g, changed := beat(true, g.Token)
	if g.Away || budget.asked != 1 || len(changed) != 1 || changed[0] != session {
		t.Fatalf("a refused toggle: away %v, asked %d, changed %v; want present, asked once, only the session renewed", g.Away, budget.asked, changed)
	}
	if !g.LeaseExpiresAt.Equal(f.clock.Now().Add(presence.DefaultSettings().Lease)) {
		t.Fatalf("a refused toggle renewed to %v; want the ordinary lease from now", g.LeaseExpiresAt)
	}

	second := f.mustJoin(t, "ch", "alice", "tab-2")
	j = f.mustJoin(t, "ch", "alice", "tab") // a fresh token
	r = ref("ch", "alice", "tab", j.Session.Generation)
	asked := budget.asked
	if g, _ = beat(true, j.Grant.Token); !g.Away || budget.asked != asked {
		t.Fatalf("a toggle beside a present tab: away %v, asked %d more times; want away, no ask", g.Away, budget.asked-asked)
	}

	budget.n = budget.asked + 1 // one more admitted
	r = ref("ch", "alice", "tab-2", second.Session.Generation)
	g, changed = beat(true, second.Grant.Token)
	if !g.Away || !contains(changed, "rooms/ch/participants/alice") {
		t.Fatalf("an admitted toggle: away %v, changed %v; want away and the entry written", g.Away, changed)
	}
}

// A re-join whose only visible change is a new state, while the allowance
// refuses, still joins (a new generation, a fresh lease) and writes only
// its session: the entry keeps its state, and the revision stays. Asked
// once, whatever the attempts; a join with nothing chosen asks nothing.
func TestJoin_AChosenChangeWaitsForTheAllowance(t *testing.T) {
	f := MustOpenStore(t)
	key := presence.SessionKey{RoomID: "chj", ParticipantID: "alice", SessionID: "tab"}
	first, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: key, State: presence.State{"n": int64(1)}, HasState: true})
	if err != nil {
		t.Fatal(err)
	}
	budget := &counting{n: 0}
	before := emulatortest.Snapshot(t, f.client)
	res, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: key, State: presence.State{"n": int64(2)}, HasState: true, Allowance: budget.allowance()})
	if err != nil {
		t.Fatal(err)
	}
	changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
	if !res.Held || budget.asked != 1 || res.Session.Generation <= first.Session.Generation || res.Revision != first.Revision ||
		len(changed) != 1 || changed[0] != "rooms/chj/participants/alice/sessions/tab" {
		t.Fatalf("held %v, asked %d, generation %d after %d, revision %d after %d, changed %v; want a held join that writes only its session",
			res.Held, budget.asked, res.Session.Generation, first.Session.Generation, res.Revision, first.Revision, changed)
	}
	_, roster := f.liveIDs(t, "chj", "alice")
	if got := stateOf(roster, "alice"); !got.Equal(presence.State{"n": int64(1)}) {
		t.Fatalf("the held join's state shows: %v", got)
	}
	if _, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: key, State: presence.State{"n": int64(1)}, HasState: true, Allowance: budget.allowance()}); err != nil || budget.asked != 1 {
		t.Fatalf("a re-join with the stored state asked the allowance (%d times, %v)", budget.asked-1, err)
	}
}
