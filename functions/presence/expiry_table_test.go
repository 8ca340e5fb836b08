package presence_test

import (
	"fmt"
	"reflect"
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
	entry := func(sessions int) *presence.Participant {
		return &presence.Participant{ID: "alice", SessionCount: sessions}
	}
	otherTab := presence.Session{ID: "phone", Generation: 3, LeaseExpiresAt: now.Add(s.Lease)}
	// state is the departure state with the sessions the store lists: the
	// one seen (if still there) and any others.
	state := func(e *presence.Participant, sess *presence.Session, others ...presence.Session) presence.DepartureState {
		st := presence.DepartureState{Participant: e, Session: sess, Sessions: others}
		if sess != nil {
			st.Sessions = append(st.Sessions, *sess)
		}
		return st
	}

	tests := []struct {
		name string
		st   presence.DepartureState
		want presence.Outcome
		// What the plan must do when the outcome is Done.
		wantDeleteEntry, wantWriteEntry bool
	}{
		{name: "ended lease of a user's only tab removes the entry",
			st: state(entry(1), session(7, ended)), want: presence.Done, wantDeleteEntry: true},
		{name: "ended lease of one tab keeps its user listed with one tab",
			st: state(entry(2), session(7, ended), otherTab), want: presence.Done, wantWriteEntry: true},
		{name: "a count that drifted high is recounted: no live tab left removes the entry",
			st: state(entry(5), session(7, ended)), want: presence.Done, wantDeleteEntry: true},
		{name: "orphaned session is deleted and no listener sees a change",
			st: state(nil, session(7, ended)), want: presence.Done},
		{name: "session already gone after a leave or another sweeper",
			st: state(entry(1), nil), want: presence.AlreadyDone},
		{name: "rejoin since the sweep read keeps its new generation",
			st: state(entry(1), session(8, now.Add(s.Lease))), want: presence.Conflict},
		{name: "heartbeat that committed first keeps its renewed lease",
			st: state(entry(1), session(7, now.Add(s.Lease))), want: presence.Conflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, got := s.PlanExpiry(now, tc.st, seen)
			if got != tc.want {
				t.Fatalf("outcome %s, want %s", outcomeName(got), outcomeName(tc.want))
			}
			if got != presence.Done {
				if !reflect.DeepEqual(plan, presence.DeparturePlan{}) {
					t.Fatalf("a no-op planned writes: %+v", plan)
				}
				return
			}
			if !plan.Removed || plan.DeleteParticipant != tc.wantDeleteEntry || plan.WriteParticipant != tc.wantWriteEntry {
				t.Fatalf("plan %+v; want removed, deleteEntry=%v writeEntry=%v", plan, tc.wantDeleteEntry, tc.wantWriteEntry)
			}
			if plan.WriteParticipant && plan.Participant.SessionCount != 1 {
				t.Fatalf("session count %d after the expiry, want 1 (the other tab)", plan.Participant.SessionCount)
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
			sess := presence.Session{Generation: 7, LeaseExpiresAt: tc.deadline}
			st := presence.DepartureState{
				Participant: &presence.Participant{ID: "alice", SessionCount: 1},
				Session:     &sess,
				Sessions:    []presence.Session{sess},
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
	sess := presence.Session{Generation: 7, LeaseExpiresAt: ended}
	st := presence.DepartureState{
		Participant: &presence.Participant{ID: "alice", SessionCount: 1},
		Session:     &sess,
		Sessions:    []presence.Session{sess},
	}
	plan, got := s.PlanExpiry(now, st, presence.ExpiryCandidate{Generation: 7, LeaseExpiresAt: ended})
	if got != presence.Done || !plan.DeleteParticipant || !plan.DepartedAt.Equal(ended) {
		t.Fatalf("outcome %s, plan %+v; want the entry removed, departed at the lease's end", outcomeName(got), plan)
	}
	room := &presence.Room{ID: "r", State: presence.StateActive, Generation: 1}
	next, e := s.PlanEmptiness(now, room, 0, plan.DepartedAt)
	if e != presence.BecameEmpty || !next.EmptySince.Equal(ended) || !next.CleanupAfter.Equal(ended.Add(s.EmptyRoomGrace)) {
		t.Fatalf("emptiness %v, room %+v; want empty since %v, cleanup after %v", e, next, ended, ended.Add(s.EmptyRoomGrace))
	}
	if !next.UpdatedAt.Equal(now) {
		t.Fatalf("updatedAt %v, want the sweep's now %v", next.UpdatedAt, now)
	}
}
