package presence_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// JudgeTeardown is the last word before a room is deleted, so every way of
// failing to prove absence must keep the room, and the checks must come in
// the right order: a moved-on room is never "repaired", and a live lease
// keeps the room even after the grace.
func TestJudgeTeardown(t *testing.T) {
	now := testclock.Start
	opened := now.Add(-time.Hour)
	// The room as the sweeper's query saw it: emptied 31 s ago, grace 30 s.
	seen := presence.Room{ID: "standup", State: presence.StateSuspectedEmpty, Generation: 3, CreatedAt: opened,
		EmptySince: now.Add(-31 * time.Second), CleanupAfter: now.Add(-time.Second)}
	candidate := presence.CandidateOf(seen)
	edit := func(f func(r *presence.Room)) *presence.Room { r := seen; f(&r); return &r }

	tests := []struct {
		name    string
		room    *presence.Room // as read inside the teardown transaction
		entries int
		want    presence.Verdict
	}{
		{"proven empty after the grace is torn down", &seen, 0, presence.TearDown},
		{"grace ending exactly now is over", edit(func(r *presence.Room) { r.CleanupAfter = now }), 0, presence.TearDown},
		{"grace ending a nanosecond from now keeps the room", edit(func(r *presence.Room) { r.CleanupAfter = now.Add(time.Nanosecond) }), 0, presence.GraceNotOver},
		{"a roster entry keeps the room", &seen, 1, presence.Occupied},
		{"a roster entry keeps the room even before the grace ends", edit(func(r *presence.Room) { r.CleanupAfter = now.Add(time.Minute) }), 2, presence.Occupied},
		{"room already deleted by another sweeper", nil, 0, presence.RoomGone},
		{"join during the grace advanced the generation", edit(func(r *presence.Room) { r.State, r.Generation = presence.StateActive, 4 }), 0, presence.GenerationChanged},
		{"room active again at the same generation", edit(func(r *presence.Room) { r.State = presence.StateActive }), 0, presence.GenerationChanged},
		{"room emptied again after a join: same state, newer generation", edit(func(r *presence.Room) { r.Generation = 4 }), 0, presence.GenerationChanged},
		{"room deleted and created again: same generation, new lifetime", edit(func(r *presence.Room) { r.CreatedAt = now.Add(-time.Minute) }), 0, presence.GenerationChanged},
		{"moved-on room with entries is not repaired by a stale candidate", edit(func(r *presence.Room) { r.State, r.Generation = presence.StateActive, 4 }), 1, presence.GenerationChanged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := presence.JudgeTeardown(now, tc.room, candidate, tc.entries); got != tc.want {
				t.Fatalf("verdict %s, want %s", verdictName(got), verdictName(tc.want))
			}
		})
	}
}

// verdictName makes a failing case say "Occupied", not "4".
func verdictName(v presence.Verdict) string {
	switch v {
	case presence.TearDown:
		return "TearDown"
	case presence.RoomGone:
		return "RoomGone"
	case presence.GenerationChanged:
		return "GenerationChanged"
	case presence.GraceNotOver:
		return "GraceNotOver"
	case presence.Occupied:
		return "Occupied"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// The closing record keeps what an operator needs to judge a teardown (its
// lifetime, how late the sweeper came) and how long the record itself lives.
func TestCloseRoom(t *testing.T) {
	s := presence.DefaultSettings()
	s.ClosingRetention = 7 * 24 * time.Hour
	now := testclock.Start
	opened := now.Add(-2 * time.Hour)

	tests := []struct {
		name       string
		emptySince time.Time
		wantLag    time.Duration
	}{
		{"torn down the moment the grace ended", now.Add(-s.EmptyRoomGrace), s.EmptyRoomGrace},
		{"torn down late: the lag includes the sweeper's delay", now.Add(-s.EmptyRoomGrace - 4*time.Second), s.EmptyRoomGrace + 4*time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			room := presence.Room{ID: "standup", State: presence.StateSuspectedEmpty, Generation: 5,
				CreatedAt: opened, EmptySince: tc.emptySince, CleanupAfter: tc.emptySince.Add(s.EmptyRoomGrace)}
			got := s.CloseRoom(now, room)
			want := presence.Closing{RoomID: "standup", OpenedAt: opened, EmptySince: tc.emptySince, ClosedAt: now,
				Generation: 5, Reason: "empty", ExpireAt: now.Add(7 * 24 * time.Hour)}
			if got != want {
				t.Fatalf("closing record\n got %+v\nwant %+v", got, want)
			}
			if lag := got.CleanupLag(); lag != tc.wantLag {
				t.Fatalf("cleanup lag %v, want %v", lag, tc.wantLag)
			}
		})
	}
}
