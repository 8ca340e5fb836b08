package main_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

func devFirestore(t *testing.T) *firestore.Client {
	t.Helper()
	emulatortest.FirestoreHost(t)
	client, err := firestore.NewClient(context.Background(), emulatortest.AuthProjectID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

func exists(t *testing.T, c *firestore.Client, path string) bool {
	t.Helper()
	snap, err := c.Doc(path).Get(context.Background())
	if err != nil && (snap == nil) {
		t.Fatalf("reading %s: %v", path, err)
	}
	return snap.Exists()
}

// waitGone polls (boundedly) until path no longer exists and returns when
// that was seen.
func waitGone(t *testing.T, c *firestore.Client, path string, limit time.Duration) time.Time {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !exists(t, c, path) {
			return time.Now()
		}
	}
	t.Fatalf("%s still exists after %v", path, limit)
	return time.Time{}
}

// The real sweeper loop, end to end: a client joins and stops heartbeating
// (a crash). The participant goes after its lease, then the room after the
// grace. The bounds are generous (machines are noisy); the measured delays
// are printed, and the benchmarks measure their distributions.
func TestDevServer_CrashedClientAndRoomAreSweptAway(t *testing.T) {
	fs := devFirestore(t)
	emulatortest.AuthHost(t)
	const lease, grace = 2 * time.Second, 2 * time.Second
	base := StartDevServer(t, []string{
		"ROOMLEASE_HEARTBEAT_INTERVAL=1s", "ROOMLEASE_LEASE=2s", "ROOMLEASE_EMPTY_ROOM_GRACE=2s",
		"ROOMLEASE_SWEEP_MAX_PAUSE=1s",
	})
	user := emulatortest.SignUp(t)
	room := fmt.Sprintf("swept-%d", time.Now().UnixNano())
	// One join and then nothing: a client that crashed right after joining.
	join, err := NewClient(t, base, user).Join(context.Background(), room, "tab", nil)
	if err != nil {
		t.Fatal(err)
	}
	leaseEnd := join.LeaseExpiresAt

	gone := waitGone(t, fs, "rooms/"+room+"/participants/"+user.UID, lease+15*time.Second)
	torn := waitGone(t, fs, "rooms/"+room, grace+15*time.Second)
	t.Logf("participant removed %v after its lease ended; room torn down %v after the grace ended",
		gone.Sub(leaseEnd).Round(time.Millisecond), torn.Sub(leaseEnd.Add(grace)).Round(time.Millisecond))
	if gone.Before(leaseEnd) {
		t.Fatalf("participant removed %v before the lease ended", leaseEnd.Sub(gone))
	}
	if torn.Before(leaseEnd.Add(grace)) {
		t.Fatalf("room torn down %v before the grace ended", leaseEnd.Add(grace).Sub(torn))
	}
}

// docs/races.md, "two processes", with two real server processes on one emulator: one
// sees the apparent last departure while the other accepts a reconnect. The
// room survives, and a cleanup decided in between loses.
func TestDevServer_TwoProcessesDepartureAndReconnect(t *testing.T) {
	fs := devFirestore(t)
	emulatortest.AuthHost(t)
	env := []string{"ROOMLEASE_EMPTY_ROOM_GRACE=0s"}
	a := StartDevServer(t, env, "-sweep=false")
	b := StartDevServer(t, env, "-sweep=false")
	user := emulatortest.SignUp(t)
	room := fmt.Sprintf("race7-%d", time.Now().UnixNano())

	viaA, viaB := NewClient(t, a, user), NewClient(t, b, user)
	ctx := context.Background()

	// 1. Alice joins through process A, and her leave reaches A: for A,
	// the room has just become empty.
	first, err := viaA.Join(ctx, room, "tab", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viaA.Leave(ctx, room, "tab", first.Generation); err != nil {
		t.Fatal(err)
	}

	// 2. A sweeper sees the room suspected_empty past its (zero) grace.
	store := firestoredb.New(fs, presence.DefaultSettings(), time.Now)
	listing, err := store.DueRooms(ctx, time.Now(), 500, false)
	due := listing.Items
	if err != nil {
		t.Fatal(err)
	}
	var seen *presence.Room
	for i := range due {
		if due[i].ID == room {
			seen = &due[i]
		}
	}
	if seen == nil {
		t.Fatalf("the sweeper did not see %s as due", room)
	}

	// 3. Her tab reconnects through process B.
	if _, err := viaB.Join(ctx, room, "tab", nil); err != nil {
		t.Fatal(err)
	}

	// 4. The cleanup decided in step 2 loses; a fresh sweep finds nothing.
	res, err := store.TearDown(ctx, presence.CandidateOf(*seen), true)
	if err != nil || res.Verdict != presence.GenerationChanged {
		t.Fatalf("stale teardown: %+v %v", res, err)
	}
	s, err := sweep.New(store, sweep.Config{}, time.Now, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Pass(ctx); r.Err != nil || contains(r.Deleted, room) {
		t.Fatalf("a fresh sweep: %+v", r)
	}
	snap, err := viaA.Room(ctx, room)
	if err != nil || len(snap.Participants) != 1 || !exists(t, fs, "rooms/"+room+"/participants/"+user.UID) {
		t.Fatalf("after the race the room read through A: %+v %v", snap, err)
	}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
