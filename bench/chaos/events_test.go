package chaos

import (
	"testing"
	"time"
)

func TestJudgeEvents(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	life := lifetimeKey{"r", t0.UnixNano()}
	ev := func(id, typ, uid string, seq int64) receivedEvent {
		return receivedEvent{ID: id, Type: typ, Room: "r", Participant: uid, Lifetime: life.Lifetime, Seq: seq,
			Committed: t0, Received: t0.Add(20 * time.Millisecond)}
	}
	const (
		joined = "roomlease.participant.joined"
		left   = "roomlease.participant.left"
		closed = "roomlease.room.closed"
	)
	whole := []receivedEvent{ev("a1", joined, "a", 1), ev("b1", joined, "b", 1), ev("a2", left, "a", 2),
		ev("b2", left, "b", 2), ev("a3", joined, "a", 3), ev("a4", left, "a", 4), ev("c", closed, "", 0)}
	without := func(id string) []receivedEvent {
		var out []receivedEvent
		for _, e := range whole {
			if e.ID != id {
				out = append(out, e)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name                  string
		got                   []receivedEvent
		revision              int64
		lost, invented, dupes int
	}{
		{"every event once", whole, 6, 0, 0, 0},
		{"a duplicate is no loss", append(whole, whole[2]), 6, 0, 0, 1},
		{"a gap", without("a2"), 6, 1, 0, 0},
		{"a lost departure at the tail", without("a4"), 6, 1, 0, 0},
		{"a lost room.closed", without("c"), 6, 1, 0, 0},
		{"more changes read than events", whole, 8, 2, 0, 0},
		{"one number, two ids", append(whole, ev("a2'", left, "a", 2)), 6, 0, 1, 0},
		{"a second room.closed", append(whole, ev("c'", closed, "", 0)), 6, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeEvents(tc.got, map[lifetimeKey]int64{life: tc.revision})
			if v.Lost != tc.lost || v.Invented != tc.invented || v.Duplicates != tc.dupes {
				t.Fatalf("lost %d invented %d duplicates %d, want %d %d %d (%v)", v.Lost, v.Invented, v.Duplicates, tc.lost, tc.invented, tc.dupes, v.Details)
			}
		})
	}
	if v := judgeEvents(nil, map[lifetimeKey]int64{life: 3}); v.Lost != 4 {
		t.Fatalf("a lifetime read with revision 3 and no event: lost %d, want 4 (3 changes and the closing)", v.Lost)
	}
}
