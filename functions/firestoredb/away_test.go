package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Away: a user is shown away when every live session of theirs is away. A
// tab going away while another stays present changes nothing anyone sees
// (it writes its session only); the last one going away, or one coming
// back, is one visible change. An away session holds the away lease, so a
// backgrounded tab stays listed through a minute of throttled timers.
func TestAway_TheRosterShowsAwayWhenEverySessionIs(t *testing.T) {
	f := MustOpenStore(t)
	s := presence.DefaultSettings()
	f.mustJoin(t, "aw", "host", "tab")
	s1 := f.mustJoin(t, "aw", "alice", "s1")
	s2 := f.mustJoin(t, "aw", "alice", "s2")
	away := func(j presence.JoinResult, a bool) (time.Time, []string) {
		t.Helper()
		before := emulatortest.Snapshot(t, f.client)
		g, err := f.store.HeartbeatAway(f.ctx, presence.AwayRequest{SessionRef: ref("aw", "alice", j.Session.ID, j.Session.Generation), Away: a})
		if err != nil || g.Away != a {
			t.Fatalf("heartbeat away=%v: %v, %v", a, g.Away, err)
		}
		return g.LeaseExpiresAt, emulatortest.Changed(before, emulatortest.Snapshot(t, f.client))
	}
	shownAway := func() bool {
		t.Helper()
		_, r := f.liveIDs(t, "aw", "alice")
		for _, p := range r.Participants {
			if p.ID == "alice" {
				return p.Away
			}
		}
		t.Fatal("alice is not listed")
		return false
	}

	end, changed := away(s1, true)
	if want := f.clock.Now().Add(s.AwayLease); !end.Equal(want) {
		t.Fatalf("an away session's lease ends at %v, want %v (the away lease)", end, want)
	}
	if len(changed) != 1 || changed[0] != "rooms/aw/participants/alice/sessions/s1" || shownAway() {
		t.Fatalf("one tab of two away changed %v (shown away: %v); want only its session", changed, shownAway())
	}
	// The entry carries the change on its count: no revision shard moves
	// (entryrevision.go).
	if _, changed = away(s2, true); len(changed) != 2 || !shownAway() {
		t.Fatalf("both tabs away changed %v (shown away: %v); want the session and the entry", changed, shownAway())
	}
	if _, changed = away(s2, true); len(changed) > 1 || contains(changed, "rooms/aw/participants/alice") {
		t.Fatalf("an unchanged away flag changed %v; want at most the session (a renewal)", changed)
	}
	f.clock.Advance(s.Lease + time.Second) // past an ordinary lease: the away ones hold
	if !shownAway() {
		t.Fatal("alice dropped off (or came back) while both her tabs were away within the away lease")
	}
	if _, changed = away(s1, false); !contains(changed, "rooms/aw/participants/alice") || shownAway() {
		t.Fatalf("a tab coming back changed %v (shown away: %v); want alice present again", changed, shownAway())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
