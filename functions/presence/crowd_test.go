package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// A session count that drifted (sessions removed by TTL while the sweeper was
// down) is recounted from the session documents at the next change, so the
// entry cannot outlive its last real session.
func TestSessionCount_RecountedFromSessions(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	live := presence.Session{ID: "tab", Generation: 7, LeaseExpiresAt: now.Add(time.Second)}
	ended := presence.Session{ID: "old", Generation: 3, LeaseExpiresAt: now.Add(-time.Second)}
	drifted := &presence.Participant{ID: "alice", SessionCount: 3}
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}, Generation: 7}

	t.Run("the last real session's leave removes the entry", func(t *testing.T) {
		p := s.PlanLeave(now, presence.DepartureState{Participant: drifted, Session: &live, Sessions: []presence.Session{live, ended}}, ref)
		if !p.Removed || !p.DeleteParticipant {
			t.Fatalf("plan %+v, want the entry deleted", p)
		}
	})
	t.Run("a join recounts and writes the corrected count", func(t *testing.T) {
		room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
		req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "phone"}}
		p, err := s.PlanJoin(now, presence.JoinState{Room: room, Participant: drifted, Sessions: []presence.Session{live, ended}}, req)
		if err != nil {
			t.Fatal(err)
		}
		if !p.WriteParticipant || p.Participant.SessionCount != 2 {
			t.Fatalf("plan %+v, want session count 2 (tab and phone) written", p)
		}
	})
	t.Run("a departure that leaves the count as it was writes no entry", func(t *testing.T) {
		entry := &presence.Participant{ID: "alice", SessionCount: 1}
		gone := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "old"}, Generation: 3}
		p := s.PlanLeave(now, presence.DepartureState{Participant: entry, Session: &ended, Sessions: []presence.Session{live, ended}}, gone)
		if !p.Removed || p.VisibleChange() {
			t.Fatalf("plan %+v, want the ended session removed and no visible change", p)
		}
	})
}

func TestPlanJoin_RoomSteps(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	req := presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "bob", SessionID: "tab"}}
	t.Run("a missing room is created first, active at generation 1", func(t *testing.T) {
		p, err := s.PlanJoin(now, presence.JoinState{}, req)
		if err != nil || p.RoomStep != presence.CreateRoom || p.Room.State != presence.StateActive || p.Room.Generation != 1 {
			t.Fatalf("plan %+v err %v", p, err)
		}
	})
	t.Run("a room in its grace is revived first with a new generation", func(t *testing.T) {
		room := &presence.Room{ID: "r", State: presence.StateSuspectedEmpty, Generation: 4, EmptySince: now, CleanupAfter: now.Add(s.EmptyRoomGrace)}
		p, err := s.PlanJoin(now, presence.JoinState{Room: room}, req)
		if err != nil || p.RoomStep != presence.ReviveRoom || p.Room.Generation != 5 || p.Room.State != presence.StateActive ||
			!p.Room.CleanupAfter.IsZero() {
			t.Fatalf("plan %+v err %v", p, err)
		}
	})
	t.Run("an active room needs no step", func(t *testing.T) {
		room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 4}
		p, err := s.PlanJoin(now, presence.JoinState{Room: room}, req)
		if err != nil || p.RoomStep != presence.NoRoomStep || !p.WriteParticipant || !p.AddsEntry {
			t.Fatalf("plan %+v err %v", p, err)
		}
	})
}

func TestPlanEmptiness(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	t1, t2 := now.Add(-2*time.Second), now.Add(-time.Second)
	active := &presence.Room{ID: "r", State: presence.StateActive, Generation: 2}
	suspectedAtT1 := &presence.Room{ID: "r", State: presence.StateSuspectedEmpty, Generation: 2, EmptySince: t1, CleanupAfter: t1.Add(s.EmptyRoomGrace)}
	tests := []struct {
		name       string
		room       *presence.Room
		entries    int
		departedAt time.Time
		want       presence.Emptiness
		emptySince time.Time
	}{
		{"the last departure empties an active room", active, 0, t1, presence.BecameEmpty, t1},
		{"someone is still there", active, 1, t1, presence.StillOccupied, time.Time{}},
		{"the room is gone", nil, 0, t1, presence.StillOccupied, time.Time{}},
		{"a later concurrent departure moves the grace", suspectedAtT1, 0, t2, presence.LaterDeparture, t2},
		{"an earlier concurrent departure changes nothing", &presence.Room{ID: "r", State: presence.StateSuspectedEmpty, Generation: 2, EmptySince: t2}, 0, t1, presence.AlreadyEmpty, time.Time{}},
		{"the same departure checked twice changes nothing", suspectedAtT1, 0, t1, presence.AlreadyEmpty, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			room, got := s.PlanEmptiness(now, tc.room, tc.entries, tc.departedAt)
			if got != tc.want {
				t.Fatalf("decision %v, want %v", got, tc.want)
			}
			if tc.emptySince.IsZero() {
				return
			}
			if room.State != presence.StateSuspectedEmpty || !room.EmptySince.Equal(tc.emptySince) ||
				!room.CleanupAfter.Equal(tc.emptySince.Add(s.EmptyRoomGrace)) || room.Generation != 2 {
				t.Fatalf("room %+v, want suspected_empty since %v with the grace from then, same generation", room, tc.emptySince)
			}
		})
	}
}
