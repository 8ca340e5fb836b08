package firestoredb_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// Recently left: a user whose roster entry goes is shown, with why, for
// RecentlyLeft after it, to the room's participants; not once back on the
// roster, and not after the window.
func TestRecentlyLeft_ShowsWhoWentAndWhy(t *testing.T) {
	f := MustOpenStore(t)
	f.mustJoin(t, "rl", "host", "tab")
	leaver := f.mustJoin(t, "rl", "alice", "tab")
	crasher := f.mustJoin(t, "rl", "bob", "tab")
	f.mustJoin(t, "rl", "carol", "tab")

	if _, err := f.store.Leave(f.ctx, ref("rl", "alice", "tab", leaver.Session.Generation)); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(presence.DefaultSettings().Lease)
	if _, err := f.store.ExpireSession(f.ctx, presence.ExpiryCandidate{RoomID: "rl", ParticipantID: "bob", SessionID: "tab",
		Generation: crasher.Session.Generation, LeaseExpiresAt: crasher.Session.LeaseExpiresAt}); err != nil {
		t.Fatal(err)
	}
	f.mustJoin(t, "rl", "host", "tab") // the host renews: still on the roster
	f.mustJoin(t, "rl", "carol", "tab")
	if _, err := f.client.Collection(firestoredb.PoliciesCollection).Doc("rl").Set(f.ctx, map[string]any{
		"allowedUsers": []string{"host", "alice", "bob"}, "updatedAt": f.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.EnforcePolicy(f.ctx, presence.PolicyChange{RoomID: "rl", UpdatedAt: f.clock.Now(),
		Policy: presence.Policy{AllowedUsers: []string{"host", "alice", "bob"}}}, 10); err != nil {
		t.Fatal(err)
	}

	_, r := f.liveIDs(t, "rl", "host")
	got := map[string]string{}
	for _, d := range r.RecentlyLeft {
		got[d.ParticipantID] = d.Reason
	}
	want := map[string]string{"alice": presence.ReasonLeft, "bob": presence.ReasonExpired, "carol": presence.ReasonEvicted}
	if len(got) != len(want) || got["alice"] != want["alice"] || got["bob"] != want["bob"] || got["carol"] != want["carol"] {
		t.Fatalf("recently left %v, want %v", got, want)
	}
	for _, d := range r.RecentlyLeft {
		if d.ParticipantID == "bob" && !d.LeftAt.Equal(crasher.Session.LeaseExpiresAt) {
			t.Fatalf("bob left at %v, want his lease's end %v", d.LeftAt, crasher.Session.LeaseExpiresAt)
		}
	}

	t.Run("NotOnceBack", func(t *testing.T) {
		f.mustJoin(t, "rl", "alice", "tab")
		_, r := f.liveIDs(t, "rl", "host")
		for _, d := range r.RecentlyLeft {
			if d.ParticipantID == "alice" {
				t.Fatalf("alice is back on the roster but still shown as gone: %+v", r.RecentlyLeft)
			}
		}
	})
	t.Run("NotAfterTheWindow", func(t *testing.T) {
		f.clock.Advance(presence.DefaultSettings().RecentlyLeft + time.Second)
		f.mustJoin(t, "rl", "host", "tab")
		f.mustJoin(t, "rl", "alice", "tab")
		if _, r := f.liveIDs(t, "rl", "host"); len(r.RecentlyLeft) != 0 {
			t.Fatalf("departures shown after the window: %+v", r.RecentlyLeft)
		}
	})
}
