package presence_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// outcomeName makes a failing case say "Conflict", not "2".
func outcomeName(o presence.Outcome) string {
	switch o {
	case presence.Done:
		return "Done"
	case presence.AlreadyDone:
		return "AlreadyDone"
	case presence.Conflict:
		return "Conflict"
	case presence.NotDue:
		return "NotDue"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// PlanExpiry acts only on exactly the session the sweeper saw, and only once
// its lease has ended; whatever happened in between (a heartbeat, a rejoin,
// a leave, another sweeper) wins without an error.
func TestPlanExpiry(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	ended := now.Add(-2 * time.Second) // the lease the sweeper saw ended 2 s ago
	// The sweeper's read: generation 7, lease ending at `ended`.
	seen := presence.ExpiryCandidate{Generation: 7, LeaseExpiresAt: ended}
	session := func(gen int64, deadline time.Time) *presence.Session {
		return &presence.Session{Generation: gen, LeaseExpiresAt: deadline}
	}
	room := func(count int) *presence.Room {
		return &presence.Room{ID: "r", State: presence.StateActive, Generation: 2, Revision: 10, ParticipantCount: count}
	}
	entry := func(sessions int) *presence.Participant {
		return &presence.Participant{ID: "alice", SessionCount: sessions}
	}

	tests := []struct {
		name string
		st   presence.DepartureState
		want presence.Outcome
		// What the plan must do when the outcome is Done.
		wantDeleteEntry, wantWriteEntry, wantWriteRoom, wantSuspected bool
	}{
		{name: "ended lease of the last participant empties the room",
			st:   presence.DepartureState{Room: room(1), Participant: entry(1), Session: session(7, ended)},
			want: presence.Done, wantDeleteEntry: true, wantWriteRoom: true, wantSuspected: true},
		{name: "ended lease of one of several participants keeps the room active",
			st:   presence.DepartureState{Room: room(3), Participant: entry(1), Session: session(7, ended)},
			want: presence.Done, wantDeleteEntry: true, wantWriteRoom: true},
		{name: "ended lease of one tab keeps its user listed",
			st:   presence.DepartureState{Room: room(1), Participant: entry(2), Session: session(7, ended)},
			want: presence.Done, wantWriteEntry: true, wantWriteRoom: true},
		{name: "orphaned session is deleted and no listener sees a change",
			st:   presence.DepartureState{Room: room(1), Session: session(7, ended)},
			want: presence.Done},
		{name: "session already gone after a leave or another sweeper",
			st:   presence.DepartureState{Room: room(1), Participant: entry(1)},
			want: presence.AlreadyDone},
		{name: "rejoin since the sweep read keeps its new generation",
			st:   presence.DepartureState{Room: room(1), Participant: entry(1), Session: session(8, now.Add(s.Lease))},
			want: presence.Conflict},
		{name: "heartbeat that committed first keeps its renewed lease",
			st:   presence.DepartureState{Room: room(1), Participant: entry(1), Session: session(7, now.Add(s.Lease))},
			want: presence.Conflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, got := s.PlanExpiry(now, tc.st, seen)
			if got != tc.want {
				t.Fatalf("outcome %s, want %s", outcomeName(got), outcomeName(tc.want))
			}
			if got != presence.Done {
				if plan != (presence.DeparturePlan{}) {
					t.Fatalf("a no-op planned writes: %+v", plan)
				}
				return
			}
			if !plan.Removed || plan.DeleteParticipant != tc.wantDeleteEntry || plan.WriteParticipant != tc.wantWriteEntry ||
				plan.WriteRoom != tc.wantWriteRoom || plan.RoomSuspected != tc.wantSuspected {
				t.Fatalf("plan %+v; want removed, deleteEntry=%v writeEntry=%v writeRoom=%v suspected=%v",
					plan, tc.wantDeleteEntry, tc.wantWriteEntry, tc.wantWriteRoom, tc.wantSuspected)
			}
			if plan.WriteRoom && plan.Room.Revision != tc.st.Room.Revision+1 {
				t.Fatalf("revision %d, want %d: a removal is one visible change", plan.Room.Revision, tc.st.Room.Revision+1)
			}
		})
	}
}

// The sweeper may come late and its clock may run behind the one that set
// the deadline: the lease decides, not the sweep.
func TestPlanExpiry_Timing(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	tests := []struct {
		name     string
		deadline time.Time
		want     presence.Outcome
	}{
		{"lease ending exactly now has ended", now, presence.Done},
		{"lease ended long before a late sweep", now.Add(-time.Hour), presence.Done},
		{"lease a nanosecond from its end is still live", now.Add(time.Nanosecond), presence.NotDue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := presence.DepartureState{
				Room:        &presence.Room{ID: "r", State: presence.StateActive, Generation: 1, ParticipantCount: 1},
				Participant: &presence.Participant{ID: "alice", SessionCount: 1},
				Session:     &presence.Session{Generation: 7, LeaseExpiresAt: tc.deadline},
			}
			plan, got := s.PlanExpiry(now, st, presence.ExpiryCandidate{Generation: 7, LeaseExpiresAt: tc.deadline})
			if got != tc.want {
				t.Fatalf("outcome %s, want %s", outcomeName(got), outcomeName(tc.want))
			}
			if plan.Removed != (tc.want == presence.Done) {
				t.Fatalf("plan %+v for outcome %s", plan, outcomeName(got))
			}
		})
	}
}

// The empty-room grace counts from when the last lease ended, not from when
// the sweeper noticed: a late sweep must not also delay the teardown.
func TestPlanExpiry_GraceCountsFromTheLeaseEnd(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	ended := now.Add(-10 * time.Second)
	st := presence.DepartureState{
		Room:        &presence.Room{ID: "r", State: presence.StateActive, Generation: 1, ParticipantCount: 1},
		Participant: &presence.Participant{ID: "alice", SessionCount: 1},
		Session:     &presence.Session{Generation: 7, LeaseExpiresAt: ended},
	}
	plan, got := s.PlanExpiry(now, st, presence.ExpiryCandidate{Generation: 7, LeaseExpiresAt: ended})
	if got != presence.Done || !plan.RoomSuspected {
		t.Fatalf("outcome %s, plan %+v; want the room suspected empty", outcomeName(got), plan)
	}
	if !plan.Room.EmptySince.Equal(ended) || !plan.Room.CleanupAfter.Equal(ended.Add(s.EmptyRoomGrace)) {
		t.Fatalf("emptySince %v, cleanupAfter %v; want %v and %v", plan.Room.EmptySince, plan.Room.CleanupAfter, ended, ended.Add(s.EmptyRoomGrace))
	}
	if !plan.Room.UpdatedAt.Equal(now) {
		t.Fatalf("updatedAt %v, want the sweep's now %v", plan.Room.UpdatedAt, now)
	}
}
