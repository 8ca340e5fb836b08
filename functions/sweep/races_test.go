package sweep_test

import (
	"context"

	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/faultproxy"
)

// sweeperStore is the sweeper's own Firestore client, on a machine whose
// clock runs 2 ms ahead of the API's: enough for it to see a lease as ended
// while the API still accepts a heartbeat for it.
func (f *fixture) sweeperStore(t *testing.T) *firestoredb.Store {
	t.Helper()
	client, err := firestore.NewClient(f.ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ahead := func() time.Time { return f.clock.Now().Add(2 * time.Millisecond) }
	return firestoredb.New(client, f.settings, ahead)
}

func sessionRef(s presence.Session) presence.SessionRef {
	return presence.SessionRef{SessionKey: presence.SessionKey{RoomID: s.RoomID, ParticipantID: s.ParticipantID, SessionID: s.ID}, Generation: s.Generation}
}

// docs/races.md, "heartbeat against expiry": a heartbeat just before the lease ends against the
// sweeper expiring it. Either the heartbeat wins atomically (the expiry is a
// no-op) or it gets 409 (the session and entry are gone); never a
// half-renewed lease.
func TestSweep_HeartbeatAgainstExpiry(t *testing.T) {
	t.Run("HeartbeatCommitsFirst", func(t *testing.T) {
		f := MustOpen(t)
		sw := f.sweeperStore(t)
		alice := f.join(t, "r2", "alice", "tab")
		f.clock.Advance(f.settings.Lease - time.Millisecond)
		listing, err := sw.ExpiredSessions(f.ctx, f.clock.Now().Add(2*time.Millisecond), 10)
		seen := listing.Items
		if err != nil || len(seen) != 1 {
			t.Fatalf("the sweeper's view: %v %v", seen, err)
		}
		if _, err := f.store.Heartbeat(f.ctx, sessionRef(alice)); err != nil {
			t.Fatalf("heartbeat before the deadline: %v", err)
		}
		res, err := sw.ExpireSession(f.ctx, seen[0])
		if err != nil || res.Outcome != presence.Conflict {
			t.Fatalf("expiry after the renewal: %+v %v, want a conflict", res, err)
		}
		if !f.exists(t, "rooms/r2/participants/alice/sessions/tab") || !f.exists(t, "rooms/r2/participants/alice") {
			t.Fatal("the renewed session or its entry is gone")
		}
	})
	t.Run("ExpiryCommitsFirst", func(t *testing.T) {
		f := MustOpen(t)
		sw := f.sweeperStore(t)
		alice := f.join(t, "r2", "alice", "tab")
		f.clock.Advance(f.settings.Lease - time.Millisecond)
		listing, err := sw.ExpiredSessions(f.ctx, f.clock.Now().Add(2*time.Millisecond), 10)
		seen := listing.Items
		if err != nil || len(seen) != 1 {
			t.Fatalf("the sweeper's view: %v %v", seen, err)
		}
		if res, err := sw.ExpireSession(f.ctx, seen[0]); err != nil || res.Outcome != presence.Done {
			t.Fatalf("expiry: %+v %v", res, err)
		}
		_, err = f.store.Heartbeat(f.ctx, sessionRef(alice))
		if presence.ErrorCode(err) != presence.EStaleGeneration {
			t.Fatalf("heartbeat after the expiry: %v, want stale_generation", err)
		}
		if f.exists(t, "rooms/r2/participants/alice/sessions/tab") || f.exists(t, "rooms/r2/participants/alice") {
			t.Fatal("a half-removed participant remains")
		}
	})
	t.Run("TrulyConcurrentAlwaysConsistent", func(t *testing.T) {
		f := MustOpen(t)
		sw := f.sweeperStore(t)
		for i := 0; i < 8; i++ {
			room := "rc" + itoa(int64(i))
			alice := f.join(t, room, "alice", "tab")
			f.clock.Advance(f.settings.Lease - time.Millisecond)
			listing, err := sw.ExpiredSessions(f.ctx, f.clock.Now().Add(2*time.Millisecond), 10)
			seen := listing.Items
			if err != nil || len(seen) != 1 {
				t.Fatalf("the sweeper's view: %v %v", seen, err)
			}
			var hbErr, exErr error
			var expiry presence.ExpiryResult
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); _, hbErr = f.store.Heartbeat(f.ctx, sessionRef(alice)) }()
			go func() { defer wg.Done(); expiry, exErr = sw.ExpireSession(f.ctx, seen[0]) }()
			wg.Wait()
			if exErr != nil {
				t.Fatalf("round %d: expiry failed: %v", i, exErr)
			}
			sessionThere := f.exists(t, "rooms/"+room+"/participants/alice/sessions/tab")
			entryThere := f.exists(t, "rooms/"+room+"/participants/alice")
			// Exactly one of the two wins, and the other sees its result.
			switch {
			case hbErr == nil && expiry.Outcome == presence.Conflict && sessionThere && entryThere:
			case presence.ErrorCode(hbErr) == presence.EStaleGeneration && expiry.Outcome == presence.Done && !sessionThere && !entryThere:
			default:
				t.Fatalf("round %d: heartbeat err %v, expiry %+v, session %v, entry %v", i, hbErr, expiry, sessionThere, entryThere)
			}
			f.clock.Advance(time.Hour) // let this round's session end for good
			f.pass(t, f.sweeper(t, f.store, sweep.Config{}))
		}
	})
}

// docs/races.md, "sweeper crash": a sweeper crashes between the teardown decision and
// the purge; a restarted sweeper finishes the work, exactly once.
func TestSweep_CrashBetweenStepsThenRestart(t *testing.T) {
	f := MustOpen(t)
	for _, room := range []string{"a", "b"} {
		s := f.join(t, room, "u", "tab")
		if _, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: room, ParticipantID: "u", LastReadSeq: 9}); err != nil {
			t.Fatal(err)
		}
		f.leave(t, s)
	}
	due := f.dueAfterGrace(t)
	for _, room := range due { // the crashed sweeper decided, then died
		if res, err := f.store.TearDown(f.ctx, presence.CandidateOf(room), true); err != nil || res.Closing == nil {
			t.Fatalf("teardown %s: %+v %v", room.ID, res, err)
		}
	}
	if !f.exists(t, "rooms/a/receipts/u") {
		t.Fatal("setup: the receipt should still await the purge")
	}

	restarted := f.sweeper(t, f.store, sweep.Config{})
	if r := f.pass(t, restarted); r.RoomsPurged != 2 || r.RoomsDeleted != 0 {
		t.Fatalf("restarted pass: %+v", r)
	}
	if r := f.pass(t, restarted); r.RoomsPurged != 0 || r.RoomsDeleted != 0 {
		t.Fatalf("a second pass did the work again: %+v", r)
	}
	for p := range emulatortest.Snapshot(t, f.client) {
		if strings.HasPrefix(p, "rooms/") {
			t.Fatalf("left behind: %s", p)
		}
	}
}

// docs/races.md, "sweeper crash", continued: two sweepers at once do each thing once and never
// remove a live session.
func TestSweep_TwoSweepersAtOnce(t *testing.T) {
	f := MustOpen(t)
	const crashed = 5
	for i := 0; i < crashed; i++ {
		f.join(t, "room-"+itoa(int64(i)), "u", "tab")
	}
	live := f.join(t, "live", "dora", "tab")
	one := f.sweeper(t, f.store, sweep.Config{})
	two := f.sweeper(t, f.sweeperStore(t), sweep.Config{})
	concurrently := func() (a, b sweep.PassReport) {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); a = one.Pass(f.ctx) }()
		go func() { defer wg.Done(); b = two.Pass(f.ctx) }()
		wg.Wait()
		if a.Err != nil || b.Err != nil {
			t.Fatalf("passes failed: %v / %v", a.Err, b.Err)
		}
		return a, b
	}

	f.advanceHeartbeating(t, f.settings.Lease, live)
	a, b := concurrently()
	if got := a.SessionsExpired + b.SessionsExpired; got != crashed {
		t.Fatalf("sessions expired %d in all, want %d", got, crashed)
	}
	if got := a.RoomsSuspected + b.RoomsSuspected; got != crashed {
		t.Fatalf("rooms suspected %d in all, want %d", got, crashed)
	}
	f.advanceHeartbeating(t, f.settings.EmptyRoomGrace, live)
	a, b = concurrently()
	if got := a.RoomsDeleted + b.RoomsDeleted; got != crashed {
		t.Fatalf("rooms deleted %d in all, want %d", got, crashed)
	}
	closings, err := f.client.Collection("roomClosings").Documents(f.ctx).GetAll()
	if err != nil || len(closings) != crashed {
		t.Fatalf("%d closing records (%v), want %d", len(closings), err, crashed)
	}
	if !f.exists(t, "rooms/live/participants/dora/sessions/tab") || f.roomState(t, "live") != "active" {
		t.Fatal("a live session or its room was removed")
	}
}

// cutAfterListing makes Firestore unreachable for the sweeper right after it
// has listed the rooms due for teardown: in the middle of a sweep.
type cutAfterListing struct {
	*firestoredb.Store
	proxy *faultproxy.Proxy
	armed bool
}

func (c *cutAfterListing) DueRooms(ctx context.Context, now time.Time, limit int, unreportedOnly bool) (presence.Listing[presence.Room], error) {
	rooms, err := c.Store.DueRooms(ctx, now, limit, unreportedOnly)
	if c.armed {
		c.proxy.Cut()
	}
	return rooms, err
}

// docs/races.md, "store down": the presence store becomes unavailable during a
// sweep. Nothing is deleted, the sweeper backs off and reports the error,
// and once Firestore is back the next sweep completes the work.
func TestSweep_StoreUnavailableDuringAPass(t *testing.T) {
	f := MustOpen(t)
	proxy := faultproxy.Start(t, emulatortest.FirestoreHost(t))
	client := emulatortest.FirestoreVia(t, proxy.Addr(), f.project)
	store := &cutAfterListing{Store: firestoredb.New(client, f.settings, f.clock.Now), proxy: proxy, armed: true}
	// A short pass timeout: during an outage the Firestore client retries
	// until the deadline, and this is the real time each failing pass takes.
	s := f.sweeper(t, store, sweep.Config{RunBudget: 10 * time.Second, PassTimeout: 2 * time.Second})

	f.leave(t, f.join(t, "fragile", "u", "tab"))
	f.clock.Advance(f.settings.EmptyRoomGrace)

	began := time.Now()
	r := s.Pass(f.ctx)
	t.Logf("failing pass took %v", time.Since(began))
	if r.Err == nil || r.FailedSteps != 1 || r.RoomsDeleted != 0 {
		t.Fatalf("pass during the outage: %+v", r)
	}
	if f.roomState(t, "fragile") != "suspected_empty" {
		t.Fatal("the room was deleted without proof of absence")
	}

	// A run while Firestore stays down: it backs off (1 s, 2 s, 4 s) and
	// reports the failure in its summary.
	f.sleeps = nil
	began = time.Now()
	sum := s.Run(f.ctx)
	t.Logf("failing run took %v, %d passes", time.Since(began), sum.Passes)
	if sum.FailedSteps < 3 || sum.RoomsDeleted != 0 || sum.LastError == "" {
		t.Fatalf("run during the outage: %+v", sum)
	}
	if len(f.sleeps) < 3 || f.sleeps[0] != time.Second || f.sleeps[1] != 2*time.Second || f.sleeps[2] != 4*time.Second {
		t.Fatalf("pauses %v, want an exponential backoff from 1s", f.sleeps)
	}
	if summary := f.logLine(t, "sweep run"); summary["severity"] != "WARNING" || summary["failedSteps"] != float64(sum.FailedSteps) {
		t.Fatalf("summary line of the failed run: %v, want severity WARNING and failedSteps %d", summary, sum.FailedSteps)
	}

	// Firestore comes back: the next sweep completes the teardown. The gRPC
	// channel reconnects on its own schedule, so poll, boundedly.
	store.armed = false
	proxy.Restore()
	began = time.Now()
	var last sweep.PassReport
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if last = s.Pass(f.ctx); last.Err == nil {
			break
		}
	}
	t.Logf("recovered after %v", time.Since(began))
	if last.Err != nil || last.RoomsDeleted != 1 {
		t.Fatalf("after recovery: %+v", last)
	}
	if f.roomState(t, "fragile") != "deleted" {
		t.Fatal("the room survived the recovered sweep")
	}
}
