package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/roomlease/roomlease/client"
)

// silentServer accepts every request and never answers, as a hung instance
// or a network that swallows packets would. It counts the requests that
// arrived.
type silentServer struct {
	URL      string
	requests atomic.Int32
}

func newSilentServer(t *testing.T) *silentServer {
	t.Helper()
	s := &silentServer{}
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		select {
		case <-r.Context().Done(): // the client gave up
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first: unblocks the handlers
	s.URL = srv.URL
	return s
}

// within runs call and fails the test if it has not returned after limit
// (the goroutine is left behind): without a bound of its own, a call to a
// silent server would hang the test instead of failing it.
func within(t *testing.T, limit time.Duration, call func() error) (error, time.Duration) {
	t.Helper()
	type result struct {
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		err := call()
		done <- result{err, time.Since(start)}
	}()
	select {
	case r := <-done:
		return r.err, r.took
	case <-time.After(limit):
		t.Fatalf("still waiting after %v", limit)
		return nil, 0
	}
}

// A server that never answers costs each call its request timeout and no
// more, whichever call it is, and the error says so.
func TestClient_RequestTimeout(t *testing.T) {
	silent := newSilentServer(t)
	const bound = 300 * time.Millisecond
	ctx := context.Background()

	t.Run("SilentServer", func(t *testing.T) {
		c, err := client.New(silent.URL, client.StaticToken("id"), client.WithRequestTimeout(bound))
		if err != nil {
			t.Fatal(err)
		}
		calls := []struct {
			name string
			call func() error
		}{
			{"Config", func() error { _, err := c.Config(ctx); return err }},
			{"Join", func() error { _, err := c.Join(ctx, "r", "s", nil); return err }},
			{"Heartbeat", func() error { _, err := c.Heartbeat(ctx, "r", "s", 1, 0); return err }},
			{"Leave", func() error { _, err := c.LeaveRoom(ctx, "r", "s", 1); return err }},
			{"Room", func() error { _, err := c.Room(ctx, "r"); return err }},
			{"SetTyping", func() error { return c.SetTyping(ctx, "r", "s", 1, true) }},
			{"MarkRead", func() error { _, err := c.MarkRead(ctx, "r", 1); return err }},
		}
		for _, tc := range calls {
			t.Run(tc.name, func(t *testing.T) {
				before := silent.requests.Load()
				err, took := within(t, bound+5*time.Second, tc.call)
				if !errors.Is(err, client.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("got %v, want an error matching ErrTimeout and context.DeadlineExceeded", err)
				}
				if took < bound {
					t.Fatalf("failed after %v, before its %v bound: not a timeout", took, bound)
				}
				if got := silent.requests.Load() - before; got != 1 {
					t.Fatalf("%d requests reached the server, want 1", got)
				}
			})
		}
	})

	t.Run("TokenThatNeverComes", func(t *testing.T) {
		c, _ := client.New(silent.URL, stuckTokens{}, client.WithRequestTimeout(bound))
		before := silent.requests.Load()
		err, _ := within(t, bound+5*time.Second, func() error { _, err := c.Room(ctx, "r"); return err })
		if !errors.Is(err, client.ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		if silent.requests.Load() != before {
			t.Fatal("a request went out without its token")
		}
	})

	// The caller's own deadline is the caller's business: it is not
	// reported as the client's timeout.
	t.Run("CallersDeadlineIsNotErrTimeout", func(t *testing.T) {
		c, _ := client.New(silent.URL, client.StaticToken("id"), client.WithRequestTimeout(time.Minute))
		short, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		err, _ := within(t, bound+5*time.Second, func() error { _, err := c.Room(short, "r"); return err })
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrTimeout) {
			t.Fatalf("got %v, want context.DeadlineExceeded and not ErrTimeout", err)
		}
	})

	t.Run("ErrNegative", func(t *testing.T) {
		if _, err := client.New(silent.URL, client.StaticToken("id"), client.WithRequestTimeout(-time.Second)); err == nil {
			t.Fatal("a negative request timeout was accepted")
		}
	})
}

// stuckTokens is a token source whose refresh never returns.
type stuckTokens struct{}

func (stuckTokens) Token() (*oauth2.Token, error) { select {} }

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
	silent := newSilentServer(t)
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
	clock := newManualClock()
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
	clock.waitAsked(t, 1)
	hangNext.Store(true)
	start := time.Now()
	clock.fire()
	e := nextEvent(t, events, lease/2+5*time.Second)
	took := time.Since(start)
	if e.Kind != client.Failed || !errors.Is(e.Err, client.ErrTimeout) {
		t.Fatalf("event %+v, want Failed with ErrTimeout", e)
	}
	if took < time.Second || took > lease/2+5*time.Second {
		t.Fatalf("the silent heartbeat took %v; want at least 1s and about half the %v lease", took, lease)
	}
	if n := silent.requests.Load(); n != 1 {
		t.Fatalf("%d requests reached the silent server, want 1", n)
	}
	t.Logf("a silent heartbeat failed after %v (lease %v)", took, lease)

	// The retry goes to the dev server, inside the lease: the same lease renewed.
	clock.waitAsked(t, 2)
	clock.fire()
	if e := nextEvent(t, events, 20*time.Second); e.Kind != client.Renewed || e.Generation != generation {
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

func nextEvent(t *testing.T, events <-chan client.Event, limit time.Duration) client.Event {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(limit):
		t.Fatalf("no event within %v", limit)
		return client.Event{}
	}
}
