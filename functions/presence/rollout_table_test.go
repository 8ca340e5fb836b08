package presence_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

// ClassifyCandidate is what the switch from observing to enforcing is
// decided on, so each class, the window's edges and a room id reused by
// later lifetimes must come out right.
func TestClassifyCandidate(t *testing.T) {
	s := presence.DefaultSettings()
	w := s.ReconnectWindow
	checked := testclock.Start
	opened := checked.Add(-time.Hour)
	// The room as the teardown check read it: emptied 31 s before the
	// check, generation 3.
	room := presence.Room{ID: "standup", State: presence.StateSuspectedEmpty, Generation: 3, CreatedAt: opened,
		EmptySince: checked.Add(-31 * time.Second), CleanupAfter: checked.Add(-time.Second), UpdatedAt: checked.Add(-31 * time.Second),
		TeardownReported: true}
	observed := s.NewCandidate(checked, room, 0, false)
	enforced := s.NewCandidate(checked, room, 0, true)
	end := checked.Add(w)
	edit := func(f func(r *presence.Room)) *presence.Room { r := room; f(&r); return &r }
	// revivedAt is the room revived once, at at, and still active.
	revivedAt := func(at time.Time) *presence.Room {
		return edit(func(r *presence.Room) {
			r.State, r.Generation, r.UpdatedAt, r.EmptySince, r.CleanupAfter = presence.StateActive, 4, at, time.Time{}, time.Time{}
		})
	}
	// newLifetime is the room id's next lifetime, created at at.
	newLifetime := func(at time.Time, gen int64) *presence.Room {
		return &presence.Room{ID: "standup", State: presence.StateActive, Generation: gen, CreatedAt: at, UpdatedAt: at}
	}
	lease := func(joined, ends time.Time) presence.LeaseTrace {
		return presence.LeaseTrace{Generation: joined.UnixMicro(), LeaseExpiresAt: ends}
	}
	closed := func(gen int64, emptySince time.Time) *presence.Closing {
		return &presence.Closing{RoomID: "standup", OpenedAt: opened, Generation: gen, EmptySince: emptySince, ClosedAt: emptySince.Add(s.EmptyRoomGrace)}
	}

	tests := []struct {
		name string
		c    presence.Candidate
		ev   presence.CandidateEvidence
		want presence.CandidateClass
	}{
		{"room stayed empty through the window", observed, presence.CandidateEvidence{Room: &room}, presence.Confirmed},
		{"reconnect a second after the candidate", observed, presence.CandidateEvidence{Room: revivedAt(checked.Add(time.Second)),
			Leases: []presence.LeaseTrace{lease(checked.Add(time.Second), checked.Add(16*time.Second))}}, presence.ReconnectAfterCandidate},
		{"revive exactly at the window's end counts", observed, presence.CandidateEvidence{Room: revivedAt(end)}, presence.ReconnectAfterCandidate},
		{"revive a microsecond after the window is confirmed", observed, presence.CandidateEvidence{Room: revivedAt(end.Add(time.Microsecond))}, presence.Confirmed},
		{"reconnect in the window, then empty again: emptySince bounds the revive", observed, presence.CandidateEvidence{Room: edit(func(r *presence.Room) {
			r.Generation, r.EmptySince, r.UpdatedAt = 4, checked.Add(20*time.Second), end.Add(time.Minute)
			r.CleanupAfter = r.EmptySince.Add(s.EmptyRoomGrace)
		})}, presence.ReconnectAfterCandidate},
		{"revived twice, the later session pins nothing down: counted as a reconnect", observed, presence.CandidateEvidence{Room: edit(func(r *presence.Room) {
			r.State, r.Generation, r.UpdatedAt, r.EmptySince = presence.StateActive, 6, end.Add(time.Hour), time.Time{}
		})}, presence.ReconnectAfterCandidate},
		{"session still live from before the candidate is a violation", observed, presence.CandidateEvidence{Room: &room,
			Leases: []presence.LeaseTrace{lease(checked.Add(-time.Minute), checked.Add(time.Second))}}, presence.Violation},
		{"session whose lease ended exactly at the candidate's time was not live", observed, presence.CandidateEvidence{Room: &room,
			Leases: []presence.LeaseTrace{lease(checked.Add(-time.Minute), checked)}}, presence.Confirmed},
		{"violation outranks a reconnect", observed, presence.CandidateEvidence{Room: revivedAt(checked.Add(time.Second)),
			Leases: []presence.LeaseTrace{lease(checked.Add(-time.Minute), end)}}, presence.Violation},
		{"departure after the candidate without a revive is a violation", observed, presence.CandidateEvidence{Room: edit(func(r *presence.Room) {
			r.EmptySince, r.TeardownReported = checked.Add(2*time.Second), false
		})}, presence.Violation},
		{"later departure before the candidate is not a violation", observed, presence.CandidateEvidence{Room: edit(func(r *presence.Room) {
			r.EmptySince = checked.Add(-2 * time.Second)
		})}, presence.Confirmed},
		{"enforced: nobody came back", enforced, presence.CandidateEvidence{Closing: closed(3, room.EmptySince)}, presence.Confirmed},
		{"enforced: torn down and recreated within the window", enforced, presence.CandidateEvidence{Room: newLifetime(checked.Add(10*time.Second), 1),
			Closing: closed(3, room.EmptySince)}, presence.ReconnectAfterCandidate},
		{"enforced: recreated within the window, torn down again since", enforced, presence.CandidateEvidence{
			Closing: closed(3, room.EmptySince), ClosedLifetimeOpened: true}, presence.ReconnectAfterCandidate},
		{"room id reused by a lifetime after the window, at a higher generation", enforced, presence.CandidateEvidence{
			Room: newLifetime(end.Add(time.Minute), 5), Closing: closed(3, room.EmptySince)}, presence.Confirmed},
		{"room id reused: the new lifetime's sessions are not the candidate's", observed, presence.CandidateEvidence{
			Room: newLifetime(end.Add(time.Minute), 2), Closing: closed(3, room.EmptySince),
			Leases: []presence.LeaseTrace{lease(end.Add(time.Minute), end.Add(2*time.Minute))}}, presence.Confirmed},
		{"observed, torn down later without a revive", observed, presence.CandidateEvidence{Closing: closed(3, room.EmptySince)}, presence.Confirmed},
		{"observed, revived in the window, torn down later", observed, presence.CandidateEvidence{Closing: closed(4, checked.Add(20*time.Second))},
			presence.ReconnectAfterCandidate},
		{"room gone without a closing (TTL)", observed, presence.CandidateEvidence{}, presence.Confirmed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := presence.ClassifyCandidate(tc.c, w, tc.ev); got != tc.want {
				t.Fatalf("class %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNewCandidate(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	room := presence.Room{ID: "r", Generation: 2, CreatedAt: now.Add(-time.Hour), EmptySince: now.Add(-40 * time.Second), CleanupAfter: now.Add(-10 * time.Second)}
	c := s.NewCandidate(now, room, 0, true)
	if !c.ClassifyAfter.Equal(now.Add(s.ReconnectWindow)) || !c.ExpireAt.After(c.ClassifyAfter) || !c.Enforced || c.Generation != 2 || c.Class != "" {
		t.Fatalf("candidate %+v", c)
	}
}

// The slice is chosen by the room id alone: about the share of rooms, the
// same ones on every call, and a larger share keeps every room a smaller one
// enforced.
func TestInEnforcedSlice(t *testing.T) {
	const rooms = 10000
	ids := make([]string, rooms)
	for i := range ids {
		ids[i] = fmt.Sprintf("room-%d", i)
	}
	prev := map[string]bool{}
	for _, share := range []int{0, 100, 1000, 5000, 10000} {
		n := 0
		now := map[string]bool{}
		for _, id := range ids {
			if presence.InEnforcedSlice(id, share) {
				n++
				now[id] = true
				if presence.InEnforcedSlice(id, share) != true {
					t.Fatalf("%s flipped at share %d", id, share)
				}
			}
		}
		got, want := float64(n)/rooms*100, float64(share)/100
		if got < want-0.5 || got > want+0.5 {
			t.Errorf("share %d bp enforces %.2f %% of %d rooms, want %.2f ± 0.5", share, got, rooms, want)
		}
		for id := range prev {
			if !now[id] {
				t.Errorf("raising the share to %d bp dropped %s", share, id)
			}
		}
		prev = now
	}
}
