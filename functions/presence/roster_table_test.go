package presence_test

import (
	"slices"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// A roster read lists a user while any of its sessions holds a live lease,
// whatever storage still holds, in a stable order.
func TestLiveRoster(t *testing.T) {
	now := testclock.Start
	room := presence.Room{ID: "r", State: presence.StateActive, Generation: 2}
	joined := func(d time.Duration) time.Time { return now.Add(-time.Hour + d) }
	entry := func(uid string, at time.Time) presence.Participant {
		return presence.Participant{RoomID: "r", ID: uid, JoinedAt: at, SessionCount: 1}
	}
	// A session of uid; LiveRoster needs only its owner and its deadline.
	lease := func(uid string, deadline time.Time) presence.Session {
		return presence.Session{ParticipantID: uid, Generation: 1, LeaseExpiresAt: deadline}
	}
	live, ended := now.Add(10*time.Second), now.Add(-time.Second)

	tests := []struct {
		name     string
		entries  []presence.Participant
		sessions []presence.Session
		want     []string // participant ids, in roster order
	}{
		{"live lease keeps the user listed",
			[]presence.Participant{entry("alice", joined(0))}, []presence.Session{lease("alice", live)}, []string{"alice"}},
		{"user whose last lease ended is hidden while its entry awaits the sweeper",
			[]presence.Participant{entry("alice", joined(0))}, []presence.Session{lease("alice", ended)}, []string{}},
		{"lease ending exactly now is no longer live",
			[]presence.Participant{entry("alice", joined(0))}, []presence.Session{lease("alice", now)}, []string{}},
		{"one live tab keeps a user listed beside a crashed one",
			[]presence.Participant{entry("alice", joined(0))}, []presence.Session{lease("alice", ended), lease("alice", live)}, []string{"alice"}},
		{"entry without any session is hidden",
			[]presence.Participant{entry("alice", joined(0))}, nil, []string{}},
		{"session without a roster entry lists nobody",
			nil, []presence.Session{lease("mallory", live)}, []string{}},
		{"listed by join time, earliest first",
			[]presence.Participant{entry("carol", joined(2*time.Second)), entry("alice", joined(0)), entry("bob", joined(time.Second))},
			[]presence.Session{lease("bob", live), lease("carol", live), lease("alice", live)},
			[]string{"alice", "bob", "carol"}},
		{"same join time is ordered by id",
			[]presence.Participant{entry("bob", joined(0)), entry("alice", joined(0))},
			[]presence.Session{lease("alice", live), lease("bob", live)},
			[]string{"alice", "bob"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := presence.LiveRoster(now, room, 17, tc.entries, tc.sessions)
			got := []string{}
			for _, p := range r.Participants {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("roster %v, want %v", got, tc.want)
			}
			// The roster reports the room and the revision read with it.
			if r.Room != room || r.Revision != 17 {
				t.Fatalf("room %+v at revision %d, want the room as read %+v at revision 17", r.Room, r.Revision, room)
			}
		})
	}
}

// Only a live participant of an existing room may read it; everyone else
// gets one and the same answer, whatever the reason.
func TestCheckReader(t *testing.T) {
	now := testclock.Start
	room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	empty := &presence.Room{ID: "r", State: presence.StateSuspectedEmpty, Generation: 1}
	alice := &presence.Participant{RoomID: "r", ID: "alice"}
	lease := func(uid string, deadline time.Time) presence.Session {
		return presence.Session{ParticipantID: uid, Generation: 1, LeaseExpiresAt: deadline}
	}
	live, ended := now.Add(10*time.Second), now.Add(-time.Second)

	tests := []struct {
		name     string
		room     *presence.Room
		entry    *presence.Participant
		sessions []presence.Session
		allowed  bool
	}{
		{"a live participant may read", room, alice, []presence.Session{lease("alice", live)}, true},
		{"so may one in a room marked empty (a join racing the emptiness check)", empty, alice, []presence.Session{lease("alice", live)}, true},
		{"an outsider of an active room may not", room, nil, nil, false},
		{"an outsider of an empty room may not", empty, nil, nil, false},
		{"an outsider of an absent room may not", nil, nil, nil, false},
		{"an entry whose every lease ended is no participant", room, alice, []presence.Session{lease("alice", ended)}, false},
		{"a lease ending exactly now is over", room, alice, []presence.Session{lease("alice", now)}, false},
		{"someone else's live session does not count", room, alice, []presence.Session{lease("bob", live)}, false},
		{"an entry left behind in an absent room is no participant", nil, alice, []presence.Session{lease("alice", live)}, false},
	}
	want := presence.NotVisible()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := presence.CheckReader(now, tc.room, tc.entry, tc.sessions)
			if tc.allowed {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != want.Error() || presence.ErrorCode(err) != presence.ENotFound {
				t.Fatalf("got %v, want exactly %v", err, want)
			}
		})
	}
}
