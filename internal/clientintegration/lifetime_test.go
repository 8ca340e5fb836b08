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

// Cancelling the context a session was started with ends it with a leave:
// the others see the user go at once, not when the lease runs out.
func TestSession_CancelLeaves(t *testing.T) {
	base := startDevServer(t) // a 15 s lease: long enough that only the leave explains a quick departure
	room := roomName(t)
	ada, _ := newClient(t, base)
	a, err := ada.JoinRoom(context.Background(), room, client.SessionOptions{DisplayName: ptr("Ada")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	grace, _ := newClient(t, base)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan client.Event, 16)
	g, err := grace.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Grace"), OnEvent: func(e client.Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	if snap, err := a.Room(context.Background()); err != nil || !slices.Contains(names(snap), "Grace") {
		t.Fatalf("before: %+v %v", snap, err)
	}
	if g.Err() != nil {
		t.Fatalf("Err() = %v while the session runs", g.Err())
	}
	generation := g.Generation()

	cancel()
	clienttest.WaitDone(t, g)
	if !errors.Is(g.Err(), context.Canceled) {
		t.Fatalf("Err() = %v, want context.Canceled", g.Err())
	}
	if e := clienttest.NextEvent(t, events, time.Second); e.Kind != client.Left || e.Err != nil {
		t.Fatalf("event %+v, want Left without an error", e)
	}
	snap, err := a.Room(context.Background())
	if err != nil || slices.Contains(names(snap), "Grace") {
		t.Fatalf("after the cancel: %+v %v; want Grace gone", snap, err)
	}
	if _, err := grace.Heartbeat(context.Background(), room, g.SessionID(), generation, 0); !errors.Is(err, client.ErrStaleGeneration) {
		t.Fatalf("the old generation's heartbeat: %v, want ErrStaleGeneration", err)
	}
	// An ended session sends nothing more: no heartbeat that could rejoin.
	if err := g.Beat(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Beat after the end: %v, want the reason it ended", err)
	}
	if snap, _ := a.Room(context.Background()); slices.Contains(names(snap), "Grace") {
		t.Fatal("Grace came back after the session ended")
	}
}
