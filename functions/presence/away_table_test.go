package presence_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// An away toggle judges the user's other sessions as a departure does: a
// sibling whose lease has ended is left out of the recount of away and of
// the session count, and deleted (ExpiredSiblings); live ones count.
func TestPlanAway(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	sess := func(id string, away bool, end time.Time) presence.Session {
		return presence.Session{ID: id, Generation: 1, Away: away, LeaseExpiresAt: end}
	}
	own := sess("s1", false, now.Add(time.Second))
	tests := []struct {
		name        string
		siblings    []presence.Session
		entry       presence.Participant
		wantAway    bool
		wantCount   int
		wantWrite   bool
		wantExpired []string
	}{
		{"a present sibling keeps the user present", []presence.Session{sess("s2", false, now.Add(time.Second))},
			presence.Participant{SessionCount: 2}, false, 2, false, nil},
		{"an away sibling: now all away", []presence.Session{sess("s2", true, now.Add(time.Second))},
			presence.Participant{SessionCount: 2}, true, 2, true, nil},
		{"a present sibling ended at now is left out and deleted", []presence.Session{sess("s2", false, now)},
			presence.Participant{SessionCount: 2}, true, 1, true, []string{"s2"}},
		{"an ended sibling already left out of the count is still deleted", []presence.Session{sess("s2", true, now.Add(-time.Second))},
			presence.Participant{SessionCount: 1, Away: true}, true, 1, false, []string{"s2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := presence.DepartureState{Participant: &tc.entry, Session: &own, Sessions: append([]presence.Session{own}, tc.siblings...)}
			p, err := s.PlanAway(now, st, presence.SessionRef{SessionKey: presence.SessionKey{SessionID: "s1"}, Generation: 1}, true)
			if err != nil {
				t.Fatal(err)
			}
			if p.Participant.Away != tc.wantAway || p.Participant.SessionCount != tc.wantCount || p.WriteParticipant != tc.wantWrite {
				t.Fatalf("away %v, count %d, write %v; want %v, %d, %v", p.Participant.Away, p.Participant.SessionCount, p.WriteParticipant, tc.wantAway, tc.wantCount, tc.wantWrite)
			}
			if !reflect.DeepEqual(p.ExpiredSiblings, tc.wantExpired) {
				t.Fatalf("expired siblings %v, want %v", p.ExpiredSiblings, tc.wantExpired)
			}
		})
	}
}
