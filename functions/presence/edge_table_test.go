package presence_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// A decision that leaves a sibling session out of the user's count deletes
// that session with it (see presence.ExpiredSiblings): leaves, expiries and
// joins alike, and only the siblings whose lease has ended at the
// decision's now. The departing or joining session itself is never among
// them.
func TestPlans_DeleteTheSiblingsTheyLeaveOutOfTheCount(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	session := func(id string, leaseLeft time.Duration) presence.Session {
		return presence.Session{RoomID: "r", ParticipantID: "alice", ID: id, Generation: 7, LeaseExpiresAt: now.Add(leaseLeft)}
	}
	entry := &presence.Participant{RoomID: "r", ID: "alice", SessionCount: 3}
	tests := []struct {
		name        string
		sessions    []presence.Session
		wantDeleted []string
		wantCount   int // 0: the entry goes
	}{
		{"a sibling a millisecond before its edge is live: kept and counted",
			[]presence.Session{session("s1", s.Lease), session("s2", time.Millisecond)}, nil, 1},
		{"a sibling exactly at its edge has ended: deleted",
			[]presence.Session{session("s1", s.Lease), session("s2", 0)}, []string{"s2"}, 0},
		{"only the ended of two siblings goes",
			[]presence.Session{session("s1", s.Lease), session("s2", -time.Millisecond), session("s3", time.Second)}, []string{"s2"}, 1},
		{"the departing session's own ended lease is not a sibling",
			[]presence.Session{session("s1", -time.Second)}, nil, 0},
	}
	for _, tc := range tests {
		t.Run("Leave/"+tc.name, func(t *testing.T) {
			st := presence.DepartureState{Participant: entry, Session: &tc.sessions[0], Sessions: tc.sessions}
			plan := s.PlanLeave(now, st, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "s1"}, Generation: 7})
			if !reflect.DeepEqual(plan.ExpiredSiblings, tc.wantDeleted) {
				t.Fatalf("deletes %v, want %v", plan.ExpiredSiblings, tc.wantDeleted)
			}
			if got := plan.DeleteParticipant; got != (tc.wantCount == 0) {
				t.Fatalf("deletes the entry: %v, want %v", got, tc.wantCount == 0)
			}
			if tc.wantCount > 0 && plan.WriteParticipant && plan.Participant.SessionCount != tc.wantCount {
				t.Fatalf("count %d, want %d", plan.Participant.SessionCount, tc.wantCount)
			}
		})
		t.Run("Join/"+tc.name, func(t *testing.T) {
			st := presence.JoinState{Room: &presence.Room{ID: "r", State: presence.StateActive, Generation: 1},
				Participant: entry, Sessions: tc.sessions}
			plan, err := s.PlanJoin(now, st, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "s1"}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plan.ExpiredSiblings, tc.wantDeleted) {
				t.Fatalf("deletes %v, want %v", plan.ExpiredSiblings, tc.wantDeleted)
			}
			if want := tc.wantCount + 1; plan.Participant.SessionCount != want {
				t.Fatalf("count %d, want %d (the live siblings and the joining tab)", plan.Participant.SessionCount, want)
			}
		})
	}
}
