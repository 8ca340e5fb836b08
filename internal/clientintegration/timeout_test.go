package clientintegration_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/clients/go/clienttest"
)

// hangingTransport sends the requests hang picks to a silent server and
// the others on to the real one.
type hangingTransport struct {
	silent string
	hang   func(*http.Request) bool
}

func (h hangingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.hang(r) {
		r = r.Clone(r.Context())
		r.URL.Host = strings.TrimPrefix(h.silent, "http://")
		r.Host = r.URL.Host
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A heartbeat the server never answers waits half the lease it has left,
// not the client's whole request timeout (here a minute, longer than the
// lease), and the session's next heartbeat renews the same lease: the
// silent server held nothing up.
func TestSession_SilentHeartbeatCostsHalfTheLeaseLeft(t *testing.T) {
	base := startDevServer(t, "ROOMLEASE_HEARTBEAT_INTERVAL=1s", "ROOMLEASE_LEASE=3s", "ROOMLEASE_SWEEP_MAX_PAUSE=1s")
	silent := clienttest.NewSilentServer(t)
	ctx := context.Background()
	room := roomName(t)
	ada, _ := newClient(t, base)
	a, err := ada.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Ada")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	var hangNext atomic.Bool
	transport := hangingTransport{silent: silent.URL, hang: func(r *http.Request) bool {
		return strings.HasSuffix(r.URL.Path, "/heartbeat") && hangNext.CompareAndSwap(true, false)
	}}
	clock := clienttest.NewManualClock()
	grace, _ := newClient(t, base, client.WithClock(clock), client.WithRand(func() float64 { return 0.5 }),
		client.WithHTTPClient(&http.Client{Transport: transport}), client.WithRequestTimeout(time.Minute))
	events := make(chan client.Event, 16)
	g, err := grace.JoinRoom(ctx, room, client.SessionOptions{DisplayName: ptr("Grace"), OnEvent: func(e client.Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	generation := g.Generation()
	lease := g.Joined().Lease()

	// The first beat, with (nearly) the whole lease ahead, goes to the silent server.
	clock.WaitAsked(t, 1)
	hangNext.Store(true)
	start := time.Now()
	clock.Fire()
	e := clienttest.NextEvent(t, events, lease/2+5*time.Second)
	took := time.Since(start)
	if e.Kind != client.Failed || !errors.Is(e.Err, client.ErrTimeout) {
		t.Fatalf("event %+v, want Failed with ErrTimeout", e)
	}
	if took < time.Second || took > lease/2+5*time.Second {
		t.Fatalf("the silent heartbeat took %v; want at least 1s and about half the %v lease", took, lease)
	}
	if n := silent.Requests(); n != 1 {
		t.Fatalf("%d requests reached the silent server, want 1", n)
	}
	t.Logf("a silent heartbeat failed after %v (lease %v)", took, lease)

	// The retry goes to the dev server, inside the lease: the same lease renewed.
	clock.WaitAsked(t, 2)
	clock.Fire()
	if e := clienttest.NextEvent(t, events, 20*time.Second); e.Kind != client.Renewed || e.Generation != generation {
		t.Fatalf("event %+v, want Renewed with generation %d", e, generation)
	}
	if g.Generation() != generation {
		t.Fatalf("generation %d, want %d: the lease was lost", g.Generation(), generation)
	}
	snap, err := a.Room(ctx)
	if err != nil || !slices.Contains(names(snap), "Grace") {
		t.Fatalf("Ada's read: %+v %v; want Grace listed", snap, err)
	}
}
