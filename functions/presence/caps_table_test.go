package presence_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// sessionsOf returns n sessions named s0… of alice in room r, each with its
// lease ending at now+lease (negative: ended).
func sessionsOf(now time.Time, n int, lease time.Duration) []presence.Session {
	out := make([]presence.Session, n)
	for i := range out {
		out[i] = presence.Session{RoomID: "r", ParticipantID: "alice", ID: fmt.Sprintf("s%d", i), Generation: 1, LeaseExpiresAt: now.Add(lease)}
	}
	return out
}

func TestPlanJoin_SessionsCap(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	entry := &presence.Participant{RoomID: "r", ID: "alice", SessionCount: 10}
	ten := sessionsOf(now, 10, time.Second)
	nineAndOneEnded := append(sessionsOf(now, 9, time.Second), presence.Session{ID: "s9", Generation: 1, LeaseExpiresAt: now.Add(-time.Second)})
	twelve := sessionsOf(now, 12, time.Second) // the cap was lowered after they joined
	tests := []struct {
		name     string
		sessions []presence.Session
		session  string
		want     string // error code, "" for admitted
	}{
		{"the 11th session is refused", ten, "new", presence.ETooManySessions},
		{"a reconnect of a live session at the cap is admitted", ten, "s3", ""},
		{"the 10th session is admitted", ten[:9], "new", ""},
		{"an ended lease does not count", nineAndOneEnded, "new", ""},
		{"reviving an ended session counts as a new one at the cap", append(ten, presence.Session{ID: "old", Generation: 1, LeaseExpiresAt: now}), "old", presence.ETooManySessions},
		{"reviving an ended session below the cap is admitted", nineAndOneEnded, "s9", ""},
		{"a reconnect above a lowered cap is admitted", twelve, "s11", ""},
		{"a new session above a lowered cap is refused", twelve, "new", presence.ETooManySessions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: tc.session}}
			p, err := s.PlanJoin(now, presence.JoinState{Room: room, Participant: entry, Sessions: tc.sessions}, req)
			if presence.ErrorCode(err) != tc.want && !(tc.want == "" && err == nil) {
				t.Fatalf("err %v, want code %q", err, tc.want)
			}
			if tc.want != "" && !reflect.DeepEqual(p, presence.JoinPlan{}) {
				t.Fatalf("a refused join planned writes: %+v", p)
			}
		})
	}
	t.Run("the cap is a setting", func(t *testing.T) {
		one := s
		one.MaxSessionsPerUser = 1
		req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "second"}}
		_, err := one.PlanJoin(now, presence.JoinState{Room: room, Participant: entry, Sessions: ten[:1]}, req)
		wantCode(t, err, presence.ETooManySessions)
	})
}

// A join that makes a session live writes the entry even when its fields
// come out the same (a stale count), so that two joins racing for the last
// place serialise on it; that write is not a visible change.
func TestPlanJoin_FencesTheEntry(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	stale := &presence.Participant{RoomID: "r", ID: "alice", SessionCount: 10}
	// The stored count says 10; one of them has ended, not yet swept.
	sessions := append(sessionsOf(now, 9, time.Second), presence.Session{ID: "gone", Generation: 1, LeaseExpiresAt: now})
	right := &presence.Participant{RoomID: "r", ID: "alice", SessionCount: 9}
	tests := []struct {
		name                 string
		entry                *presence.Participant
		session              string
		wantWrite, wantFence bool
	}{
		{"a new session at an unchanged count fences", stale, "new", false, true},
		{"reviving the ended session at an unchanged count fences", stale, "gone", false, true},
		{"a new session that changes the count writes it", right, "new", true, false},
		{"a reconnect of a live session writes nothing", right, "s0", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: tc.session}}
			p, err := s.PlanJoin(now, presence.JoinState{Room: room, Participant: tc.entry, Sessions: sessions}, req)
			if err != nil {
				t.Fatal(err)
			}
			if p.WriteParticipant != tc.wantWrite || p.FenceParticipant != tc.wantFence {
				t.Fatalf("write %v fence %v, want %v %v", p.WriteParticipant, p.FenceParticipant, tc.wantWrite, tc.wantFence)
			}
			if p.FenceParticipant && !reflect.DeepEqual(p.Participant, *stale) {
				t.Fatalf("a fence changes the entry: %+v, stored %+v", p.Participant, *stale)
			}
		})
	}
}

func TestPlanJoin_RoomsCap(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	earlier := now.Add(-time.Hour)
	rooms := func(n int, extra ...string) *presence.UserRooms {
		u := &presence.UserRooms{Rooms: map[string]time.Time{}}
		for i := range n {
			u.Rooms[fmt.Sprintf("room%02d", i)] = earlier
		}
		for _, id := range extra {
			u.Rooms[id] = earlier
		}
		return u
	}
	active := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	allThere := func(u *presence.UserRooms) map[string]bool {
		m := map[string]bool{}
		for _, id := range s.RoomsToCheck(u, "r") {
			m[id] = true
		}
		return m
	}
	oneGone := allThere(rooms(20))
	oneGone["room07"] = false
	tests := []struct {
		name      string
		state     presence.JoinState
		want      string
		wantRooms int // rooms listed in the document written
	}{
		{"a first room", presence.JoinState{Room: active}, "", 1},
		{"the 20th room", presence.JoinState{Room: active, UserRooms: rooms(19)}, "", 20},
		{"the 21st room is refused", presence.JoinState{Room: active, UserRooms: rooms(20), CheckedRooms: allThere(rooms(20))}, presence.ETooManyRooms, 0},
		{"the 21st room of a room yet to be created is refused", presence.JoinState{UserRooms: rooms(20), CheckedRooms: allThere(rooms(20))}, presence.ETooManyRooms, 0},
		{"a room left since does not count", presence.JoinState{Room: active, UserRooms: rooms(20), CheckedRooms: oneGone}, "", 20},
		{"the room joined is not one of the others", presence.JoinState{Room: active, UserRooms: rooms(19, "r")}, "", 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "s"}}
			p, err := s.PlanJoin(now, tc.state, req)
			if presence.ErrorCode(err) != tc.want && !(tc.want == "" && err == nil) {
				t.Fatalf("err %v, want code %q", err, tc.want)
			}
			if tc.want != "" {
				if !reflect.DeepEqual(p, presence.JoinPlan{}) {
					t.Fatalf("a refused join planned writes: %+v", p)
				}
				return
			}
			if tc.state.Room == nil {
				return
			}
			if p.UserRooms == nil || len(p.UserRooms.Rooms) != tc.wantRooms || !p.UserRooms.Rooms["r"].Equal(now) {
				t.Fatalf("user rooms written %+v, want %d rooms with r joined now", p.UserRooms, tc.wantRooms)
			}
			if _, kept := p.UserRooms.Rooms["room07"]; tc.state.CheckedRooms["room07"] == false && tc.state.CheckedRooms != nil && kept {
				t.Fatal("a room found without the user's entry stays listed")
			}
			if !p.UserRooms.ExpireAt.Equal(now.Add(s.RecordHorizon)) {
				t.Fatalf("expireAt %v, want now + record horizon", p.UserRooms.ExpireAt)
			}
		})
	}
	t.Run("a user already listed in the room writes no user document", func(t *testing.T) {
		req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "s2"}}
		entry := &presence.Participant{RoomID: "r", ID: "alice", SessionCount: 1}
		p, err := s.PlanJoin(now, presence.JoinState{Room: active, Participant: entry, UserRooms: rooms(30)}, req)
		if err != nil || p.UserRooms != nil {
			t.Fatalf("plan %+v err %v, want no user document and no refusal", p.UserRooms, err)
		}
	})
}

func TestSettings_RoomsToCheck(t *testing.T) {
	s := presence.DefaultSettings()
	s.MaxRoomsPerUser = 2
	at := testclock.Start
	tests := []struct {
		name string
		u    *presence.UserRooms
		want []string
	}{
		{"no document", nil, nil},
		{"below the cap", &presence.UserRooms{Rooms: map[string]time.Time{"a": at}}, nil},
		{"below the cap, this room aside", &presence.UserRooms{Rooms: map[string]time.Time{"a": at, "r": at}}, nil},
		{"at the cap: all of them, sorted", &presence.UserRooms{Rooms: map[string]time.Time{"b": at, "a": at, "r": at}}, []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.RoomsToCheck(tc.u, "r"); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if presence.ErrorCode(err) != code {
		t.Fatalf("err %v, want code %s", err, code)
	}
}
