package presence_test

import (
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// A heartbeat reads only its session, so RefreshDue decides from the
// session's copies of its room's and roster entry's expireAt whether to
// read and refresh them. Missing the last day would let TTL delete a live
// room; checking too early would make every heartbeat read three documents.
func TestRefreshDue(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	far := now.Add(s.RecordHorizon)
	tests := []struct {
		name        string
		room, entry time.Time
		want        bool
	}{
		{"both far from expiring: the heartbeat reads nothing else", far, far, false},
		{"a day and a nanosecond left is not yet due", now.Add(presence.RefreshWindow + time.Nanosecond), far, false},
		{"room within its last day is due", now.Add(23 * time.Hour), far, true},
		{"roster entry within its last day is due", far, now.Add(23 * time.Hour), true},
		{"room with exactly a day left is due", now.Add(presence.RefreshWindow), far, true},
		{"roster entry with exactly a day left is due", far, now.Add(presence.RefreshWindow), true},
		{"already past its expireAt is due", now.Add(-time.Minute), far, true},
		{"session without copies of the expiries checks them", time.Time{}, time.Time{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sess := presence.Session{Generation: 1, LeaseExpiresAt: now.Add(s.Lease), RoomExpireAt: tc.room, EntryExpireAt: tc.entry}
			if got := s.RefreshDue(now, sess); got != tc.want {
				t.Fatalf("RefreshDue = %v, want %v", got, tc.want)
			}
		})
	}
}
