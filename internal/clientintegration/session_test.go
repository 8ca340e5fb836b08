package clientintegration_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/clients/go/clienttest"
)

// The whole surface against a real server: join, heartbeat, read, typing,
// receipts, leave, and the 409 a stale generation gets afterwards.
func TestSession_JoinHeartbeatReadSignalsLeave(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	room := roomName(t)
	ada, _ := newClient(t, base)
	grace, _ := newClient(t, base)

	a, err := ada.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Ada")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	g, err := grace.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Grace")})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if a.Generation() <= 0 || a.Joined().Heartbeat() <= 0 || a.Joined().Lease() < 2*a.Joined().Heartbeat() {
		t.Fatalf("join answer: %+v", a.Joined())
	}

	snap, err := a.Room(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(snap); !slices.Equal(got, []string{"Ada", "Grace"}) || snap.State != "active" || snap.Revision < 1 {
		t.Fatalf("room read: %+v", snap)
	}

	before := a.Joined().LeaseExpiresAt
	if err := a.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	// Right after the join more than half the lease is left, so the server
	// answers the lease end it holds without renewing; it never goes back.
	if after := a.Joined().LeaseExpiresAt; after.Before(before) {
		t.Fatalf("heartbeat moved the lease end back: %v then %v", before, after)
	}

	if err := a.SetTyping(ctx, true); err != nil {
		t.Fatalf("typing: %v", err)
	}
	if got, err := a.MarkRead(ctx, 7); err != nil || got != 7 {
		t.Fatalf("MarkRead(7) = %d, %v", got, err)
	}
	if got, err := a.MarkRead(ctx, 3); err != nil || got != 7 {
		t.Fatalf("MarkRead(3) after 7 = %d, %v; receipts only move forward", got, err)
	}

	gen := g.Generation()
	left, err := g.LeaveRoom(ctx)
	if err != nil || !left.Removed || !left.CleanupAfter.IsZero() {
		t.Fatalf("leave with Ada still in: %+v %v, want removed and no cleanupAfter", left, err)
	}
	snap, err = a.Room(ctx)
	if err != nil || !slices.Equal(names(snap), []string{"Ada"}) {
		t.Fatalf("after Grace left: %+v %v", snap, err)
	}
	if _, err := grace.Heartbeat(ctx, room, g.SessionID(), gen, 0); !errors.Is(err, client.ErrStaleGeneration) {
		t.Fatalf("heartbeat after leave: %v, want ErrStaleGeneration", err)
	}
	if removed, err := grace.Leave(ctx, room, g.SessionID(), gen); err != nil || removed {
		t.Fatalf("second leave: %v %v, want removed=false", removed, err)
	}

	// The last one out learns when the room is due for teardown from the
	// leave itself: afterwards it may not read the room any more.
	before = time.Now()
	last, err := a.LeaveRoom(ctx)
	if err != nil || !last.Removed || !last.CleanupAfter.After(before) {
		t.Fatalf("last leave: %+v %v, want removed and a cleanupAfter after %v", last, err, before)
	}
	if _, err := a.Room(ctx); !errors.Is(err, client.ErrRoomNotFound) {
		t.Fatalf("room read after the last leave: %v, want ErrRoomNotFound", err)
	}
}

// A process that was suspended past its lease: the sweeper removes it, its
// next heartbeat gets 409, and the session joins again with a new
// generation and is back on the roster.
func TestSession_RejoinsAfterLeaseRanOut(t *testing.T) {
	base := startDevServer(t, "ROOMLEASE_HEARTBEAT_INTERVAL=1s", "ROOMLEASE_LEASE=2s", "ROOMLEASE_SWEEP_MAX_PAUSE=1s")
	ctx := context.Background()
	room := roomName(t)
	ada, _ := newClient(t, base)
	clock := clienttest.NewManualClock()
	grace, _ := newClient(t, base, client.WithClock(clock))
	a, err := ada.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Ada")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	events := make(chan client.Event, 16)
	g, err := grace.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Grace"), OnEvent: func(e client.Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	first := g.Generation()
	clock.WaitAsked(t, 1) // the first heartbeat is scheduled, and held

	eventually(t, "Grace swept out", 20*time.Second, func() bool {
		snap, err := a.Room(ctx)
		return err == nil && !slices.Contains(names(snap), "Grace")
	})
	clock.Fire()
	select {
	case e := <-events:
		if e.Kind != client.Rejoined || e.Generation <= first {
			t.Fatalf("after the lease ran out: %+v, want Rejoined with a generation above %d", e, first)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no event after the held heartbeat fired")
	}
	if g.Generation() <= first {
		t.Fatalf("generation %d after %d", g.Generation(), first)
	}
	// Back on the roster. Her heartbeats are held, so the fresh lease
	// (2 s) is all that keeps her listed; a machine that stalls longer
	// between the rejoin and this read would let it lapse, so each look
	// lets a held heartbeat go first.
	eventually(t, "Grace back on the roster", 20*time.Second, func() bool {
		clock.Fire()
		snap, err := a.Room(ctx)
		return err == nil && slices.Contains(names(snap), "Grace")
	})
	// The old generation is fenced off for good.
	if _, err := grace.Heartbeat(ctx, room, g.SessionID(), first, 0); !errors.Is(err, client.ErrStaleGeneration) {
		t.Fatalf("old generation's heartbeat: %v", err)
	}
}

// The schedule: at the server's renewAt, by the estimated server clock,
// plus the margin and its jitter; each fired timer is one accepted
// heartbeat, whose lease end never goes back (the manual clock fires these
// beats before renewAt, and the server answers them without renewing).
func TestSession_HeartbeatsAtRenewAt(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	clock := clienttest.NewManualClock()
	events := make(chan client.Event, 16)
	c, _ := newClient(t, base, client.WithClock(clock), client.WithRand(func() float64 { return 0.5 }), client.WithHeartbeatJitter(0.2))
	s, err := c.JoinRoom(ctx, roomName(t), client.SessionOptions{OnEvent: func(e client.Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	j := s.Joined()
	if j.RenewAt.IsZero() || j.LeaseToken == "" || j.LeaseExpiresAt.Sub(j.RenewAt) != 5*time.Second {
		t.Fatalf("join: renewAt %v, lease end %v, token %q", j.RenewAt, j.LeaseExpiresAt, j.LeaseToken)
	}
	for i := 1; i <= 3; i++ {
		got := clock.WaitAsked(t, i)
		// Asked a moment ago: the real clock has moved on since, by less
		// than the tolerance.
		want := s.Joined().RenewAt.Sub(c.ServerNow()) + 250*time.Millisecond + 25*time.Millisecond // margin × (1 + 0.2 × 0.5)
		if got < want || got > want+time.Second {
			t.Fatalf("timer %d: %v, want about %v (renewAt + margin × (1 + 0.2 × 0.5))", i, got, want)
		}
		before := s.Joined().LeaseExpiresAt
		clock.Fire()
		select {
		case e := <-events:
			if e.Kind != client.Renewed || e.LeaseExpiresAt.Before(before) {
				t.Fatalf("beat %d: %+v", i, e)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("beat %d: no event", i)
		}
	}
}

// The server's clock is estimated from lease ends, whatever the local
// clock says.
func TestClient_EstimatesServerClock(t *testing.T) {
	base := startDevServer(t)
	skewed := skewedClock(-3 * time.Hour)
	c, _ := newClient(t, base, client.WithClock(skewed))
	if _, err := c.Join(context.Background(), roomName(t), "tab", nil); err != nil {
		t.Fatal(err)
	}
	// The server runs on this machine's real clock.
	if off := c.ServerNow().Sub(time.Now()); off > time.Second || off < -time.Second {
		t.Fatalf("ServerNow is %v off the real clock (offset %v)", off, c.ClockOffset())
	}
}

type skewedClock time.Duration

func (s skewedClock) Now() time.Time                         { return time.Now().Add(time.Duration(s)) }
func (s skewedClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
