package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// A join's chosen change (presence.Allowance): a visible change that only
// what the client chose makes. With Hold, the join keeps what is stored
// instead; a join that writes the entry anyway (a new entry, a new session
// counted) applies what it carries, whatever Hold says.
func TestPlanJoin_ChosenChanges(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	tab := presence.Session{RoomID: "r", ParticipantID: "alice", ID: "tab", Generation: 7, LeaseExpiresAt: now.Add(time.Second)}
	awayTab := tab
	awayTab.Away = true
	entry := &presence.Participant{RoomID: "r", ID: "alice", DisplayName: "Alice", State: presence.State{"n": int64(1)}, SessionCount: 1}
	awayEntry := *entry
	awayEntry.Away = true
	req := func(session string, edit func(*presence.JoinRequest)) presence.JoinRequest {
		r := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: session}}
		edit(&r)
		return r
	}
	newState := func(r *presence.JoinRequest) { r.State, r.HasState = presence.State{"n": int64(2)}, true }
	tests := []struct {
		name       string
		entry      *presence.Participant
		sessions   []presence.Session
		req        presence.JoinRequest
		wantChosen bool
	}{
		{"a rejoin with a new state", entry, []presence.Session{tab}, req("tab", newState), true},
		{"a rejoin with a new name", entry, []presence.Session{tab}, req("tab", func(r *presence.JoinRequest) { r.DisplayName, r.HasDisplayName = "Ada", true }), true},
		{"a rejoin that comes back from away", &awayEntry, []presence.Session{awayTab}, req("tab", func(*presence.JoinRequest) {}), true},
		{"a rejoin with the same state", entry, []presence.Session{tab}, req("tab", func(r *presence.JoinRequest) { r.State, r.HasState = entry.State, true }), false},
		{"a new tab with a new state: the count changes anyway", entry, []presence.Session{tab}, req("tab-2", newState), false},
		{"a new entry with a state", nil, nil, req("tab", newState), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := presence.JoinState{Room: room, Participant: tc.entry, Sessions: tc.sessions}
			p, err := s.PlanJoin(now, st, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if p.ChosenChange != tc.wantChosen || p.Held {
				t.Fatalf("chosen %v, held %v; want chosen %v", p.ChosenChange, p.Held, tc.wantChosen)
			}
			held := tc.req
			held.Hold = true
			h, err := s.PlanJoin(now, st, held)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantChosen && (!h.Held || h.WriteParticipant || h.ChosenChange):
				t.Fatalf("held: held %v, writes the entry %v; want held, no write", h.Held, h.WriteParticipant)
			case tc.wantChosen && (!h.Participant.State.Equal(tc.entry.State) || h.Participant.DisplayName != tc.entry.DisplayName || h.Session.Away != tc.sessions[0].Away):
				t.Fatalf("held, the plan changes what is stored: %+v, session away %v", h.Participant, h.Session.Away)
			case !tc.wantChosen && (h.Held || h.WriteParticipant != p.WriteParticipant || !h.Participant.State.Equal(p.Participant.State)):
				t.Fatalf("Hold changed a join that makes no chosen change: %+v, want %+v", h, p)
			}
			if !h.Session.LeaseExpiresAt.After(now) || h.Session.Generation <= tab.Generation && tc.req.SessionID == "tab" {
				t.Fatalf("a held join must still issue a generation and a lease: %+v", h.Session)
			}
		})
	}
}

// An away toggle is a chosen change exactly when it changes the roster's
// away.
func TestPlanAway_ChosenChange(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	own := presence.Session{ID: "s1", Generation: 1, LeaseExpiresAt: now.Add(time.Second)}
	present := presence.Session{ID: "s2", Generation: 1, LeaseExpiresAt: now.Add(time.Second)}
	away := present
	away.Away = true
	for _, tc := range []struct {
		name    string
		sibling presence.Session
		want    bool
	}{{"the last present tab going away", away, true}, {"a tab going away beside a present one", present, false}} {
		t.Run(tc.name, func(t *testing.T) {
			st := presence.DepartureState{Participant: &presence.Participant{SessionCount: 2}, Session: &own, Sessions: []presence.Session{own, tc.sibling}}
			p, err := s.PlanAway(now, st, presence.SessionRef{SessionKey: presence.SessionKey{SessionID: "s1"}, Generation: 1}, true)
			if err != nil || p.ChosenChange != tc.want {
				t.Fatalf("chosen %v (%v), want %v", p.ChosenChange, err, tc.want)
			}
		})
	}
}

// Once asks at most once and repeats the answer; nil admits everything.
func TestAllowance_Once(t *testing.T) {
	asked := 0
	a := presence.Allowance(func() bool { asked++; return asked == 1 }).Once()
	if !a.Take() || !a.Take() || asked != 1 {
		t.Fatalf("asked %d times", asked)
	}
	if !presence.Allowance(nil).Once().Take() {
		t.Fatal("a nil allowance refused")
	}
}
