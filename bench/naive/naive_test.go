package naive_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/roomlease/roomlease/bench/naive"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The baseline behaves as a presence store: joins add to the roster map,
// heartbeats renew only the current generation, leaves remove it, and every
// heartbeat costs one read and one write of the room document.
func TestNaiveStore(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	ctx := context.Background()
	s := naive.New(client, 15*time.Second)
	g1, _, err := s.Join(ctx, "r", "alice", "Alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Join(ctx, "r", "bob", "Bob"); err != nil {
		t.Fatal(err)
	}
	g2, _, err := s.Join(ctx, "r", "alice", "Alice") // reconnect: new generation
	if err != nil || g2 != g1+1 {
		t.Fatalf("rejoin generation %d after %d: %v", g2, g1, err)
	}
	r0, w0 := s.Ops()
	for range 3 {
		if _, err := s.Heartbeat(ctx, "r", "alice", g2); err != nil {
			t.Fatal(err)
		}
	}
	r1, w1 := s.Ops()
	if r1-r0 != 3 || w1-w0 != 3 {
		t.Fatalf("3 heartbeats cost %d reads, %d writes; want 3 and 3", r1-r0, w1-w0)
	}
	if _, err := s.Heartbeat(ctx, "r", "alice", g1); !errors.Is(err, naive.ErrStale) {
		t.Fatalf("stale heartbeat: %v", err)
	}
	if removed, err := s.Leave(ctx, "r", "alice", g1); err != nil || removed {
		t.Fatalf("stale leave removed=%v err=%v", removed, err)
	}
	if removed, err := s.Leave(ctx, "r", "alice", g2); err != nil || !removed {
		t.Fatalf("leave removed=%v err=%v", removed, err)
	}
	roster, err := s.Roster(ctx, "r")
	if err != nil || len(roster) != 1 || roster[0] != "bob" {
		t.Fatalf("roster %v, %v", roster, err)
	}
}
