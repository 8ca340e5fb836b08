package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// SoleSession spares a departure its listing only when the entry counts
// one session and the departing session carries that entry's stamp.
func TestSoleSession(t *testing.T) {
	joined := testclock.Start
	entry := func(count int) *presence.Participant {
		return &presence.Participant{ID: "alice", JoinedAt: joined, SessionCount: count}
	}
	stamped := func(at time.Time) *presence.Session {
		return &presence.Session{ID: "tab", EntryJoinedAt: at}
	}
	for _, tc := range []struct {
		name  string
		entry *presence.Participant
		own   *presence.Session
		want  bool
	}{
		{"the one session the entry counts", entry(1), stamped(joined), true},
		{"two counted: the other must be judged", entry(2), stamped(joined), false},
		{"an orphan of an earlier entry", entry(1), stamped(joined.Add(-time.Minute)), false},
		{"a session written before the stamp", entry(1), stamped(time.Time{}), false},
		{"no session", entry(1), nil, false},
		{"no entry", nil, stamped(joined), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := presence.SoleSession(tc.entry, tc.own); got != tc.want {
				t.Fatalf("SoleSession = %v, want %v", got, tc.want)
			}
		})
	}
}

// Every join stamps its session with the entry that counts it: a new
// entry's JoinedAt, or the JoinedAt the listed entry already had.
func TestSettings_PlanJoin_StampsTheSessionWithItsEntry(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	room := s.NewRoom(now.Add(-time.Hour), "r")
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}}

	p, err := s.PlanJoin(now, presence.JoinState{Room: &room}, req)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Session.EntryJoinedAt.Equal(now) || !p.Participant.JoinedAt.Equal(now) {
		t.Fatalf("a new entry's session is stamped %v, the entry joined at %v; want both %v", p.Session.EntryJoinedAt, p.Participant.JoinedAt, now)
	}

	listed := presence.Participant{RoomID: "r", ID: "alice", JoinedAt: now.Add(-time.Minute), SessionCount: 1, OpenedAt: room.CreatedAt}
	p, err = s.PlanJoin(now, presence.JoinState{Room: &room, Participant: &listed}, req)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Session.EntryJoinedAt.Equal(listed.JoinedAt) {
		t.Fatalf("a listed user's session is stamped %v; want the entry's %v", p.Session.EntryJoinedAt, listed.JoinedAt)
	}
}

// An entry left over from an earlier lifetime of the room (TTL took the
// room's document, not the entry) is added anew by its user's next join:
// stamped with this lifetime, so that the revision and the size count it,
// and judged by the cap like any new entry. The user's live sessions of
// the earlier lifetime still count.
func TestSettings_PlanJoin_AddsAnEntryLeftOverFromAnEarlierLifetime(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	room := s.NewRoom(now.Add(-time.Minute), "r")
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab-2"}}
	earlier := now.Add(-40 * 24 * time.Hour)
	leftOver := presence.Participant{RoomID: "r", ID: "alice", DisplayName: "Alice", JoinedAt: earlier, SessionCount: 1, Changes: 7,
		OpenedAt: earlier, RevisionOnEntries: true}
	other := presence.Session{RoomID: "r", ParticipantID: "alice", ID: "tab-1", Generation: 3, CreatedAt: earlier,
		LeaseExpiresAt: now.Add(time.Minute)}
	st := presence.JoinState{Room: &room, Participant: &leftOver, Sessions: []presence.Session{other}, Entries: 2}
	if !st.AddsEntry() {
		t.Fatal("an entry of an earlier lifetime: AddsEntry false")
	}
	p, err := s.PlanJoin(now, st, req)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !p.AddsEntry || !p.WriteParticipant:
		t.Fatalf("plan %+v: want the entry added and written", p)
	case !p.Participant.OpenedAt.Equal(room.CreatedAt) || !p.Participant.JoinedAt.Equal(now):
		t.Fatalf("entry opened %v, joined %v: want this lifetime's %v, joined now", p.Participant.OpenedAt, p.Participant.JoinedAt, room.CreatedAt)
	case p.Participant.SessionCount != 2:
		t.Fatalf("session count %d, want 2: the live session of the earlier lifetime counts", p.Participant.SessionCount)
	}

	// The cap judges it as a new entry.
	st.Entries = s.MaxParticipants
	if _, err := s.PlanJoin(now, st, req); presence.ErrorCode(err) != presence.ERoomFull {
		t.Fatalf("at the cap: %v, want room_full", err)
	}

	// This lifetime's entry is the user's, as listed.
	current := leftOver
	current.OpenedAt = room.CreatedAt
	st.Participant, st.Entries = &current, 2
	if st.AddsEntry() {
		t.Fatal("an entry of this lifetime: AddsEntry true")
	}
}
