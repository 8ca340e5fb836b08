package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/clients/go/clienttest"
)

// ending is what a case of TestSession_DoneAndErr may use to end a session.
type ending struct {
	s      *client.Session
	cancel context.CancelCauseFunc
	srv    *recordingServer
	clock  *clienttest.ManualClock
}

// Done and Err say when and why a session ended, the first reason winning;
// an ended session sends no heartbeat.
func TestSession_DoneAndErr(t *testing.T) {
	errShutdown := errors.New("the bot shuts down")
	for _, tc := range []struct {
		name      string
		deadline  time.Duration // the session's context's, if any
		end       func(t *testing.T, e ending)
		want      error
		wantLeave int
	}{
		{name: "Close", end: func(t *testing.T, e ending) { e.s.Close() }, want: client.ErrClosed, wantLeave: 0},
		{name: "Leave", end: func(t *testing.T, e ending) {
			if removed, err := e.s.Leave(context.Background()); err != nil || !removed {
				t.Fatalf("Leave: %v %v", removed, err)
			}
		}, want: client.ErrLeft, wantLeave: 1},
		{name: "Cancel", end: func(t *testing.T, e ending) { e.cancel(nil) }, want: context.Canceled, wantLeave: 1},
		{name: "CancelWithCause", end: func(t *testing.T, e ending) { e.cancel(errShutdown) }, want: errShutdown, wantLeave: 1},
		// The leave runs on a context without the deadline that expired.
		{name: "Deadline", deadline: 500 * time.Millisecond, end: func(t *testing.T, e ending) {}, want: context.DeadlineExceeded, wantLeave: 1},
		{name: "PermissionDenied", end: func(t *testing.T, e ending) {
			e.srv.refuse.Store(true)
			e.clock.Fire()
		}, want: client.ErrPermissionDenied, wantLeave: 0},
		{name: "FirstReasonWins", end: func(t *testing.T, e ending) {
			e.cancel(errShutdown)
			clienttest.WaitDone(t, e.s)
			e.s.Close()
			e.s.Leave(context.Background()) // sent all the same; the reason stays
		}, want: errShutdown, wantLeave: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecordingServer(t)
			clock := clienttest.NewManualClock()
			c, err := client.New(srv.URL, client.StaticToken("id"), client.WithClock(clock))
			if err != nil {
				t.Fatal(err)
			}
			parent := context.Background()
			if tc.deadline > 0 {
				var stop context.CancelFunc
				parent, stop = context.WithTimeout(parent, tc.deadline)
				defer stop()
			}
			ctx, cancel := context.WithCancelCause(parent)
			defer cancel(nil)
			s, err := c.JoinRoom(ctx, "r", client.SessionOptions{SessionID: "s"})
			if err != nil {
				t.Fatal(err)
			}
			clock.WaitAsked(t, 1)
			select {
			case <-s.Done():
				t.Fatal("Done before the session ended")
			default:
			}
			if s.Err() != nil {
				t.Fatalf("Err() = %v while the session runs", s.Err())
			}
			tc.end(t, ending{s, cancel, srv, clock})
			clienttest.WaitDone(t, s)
			if !errors.Is(s.Err(), tc.want) {
				t.Fatalf("Err() = %v, want %v", s.Err(), tc.want)
			}
			if got := srv.count("/leave"); got != tc.wantLeave {
				t.Fatalf("%d leaves sent, want %d", got, tc.wantLeave)
			}
			beats := srv.count("/heartbeat")
			if err := s.Beat(context.Background()); !errors.Is(err, tc.want) {
				t.Fatalf("Beat after the end: %v, want %v", err, tc.want)
			}
			if srv.count("/heartbeat") != beats {
				t.Fatal("Beat after the end sent a heartbeat")
			}
		})
	}
}

type ctxKey struct{}

// valueTransport records the value under ctxKey of every request's context,
// by path.
type valueTransport struct {
	mu   sync.Mutex
	seen map[string][]any
}

func (v *valueTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	v.mu.Lock()
	v.seen[r.URL.Path] = append(v.seen[r.URL.Path], r.Context().Value(ctxKey{}))
	v.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// The heartbeats run on the context the session was started with (its
// values reach the transport: trace ids, credentials), not on
// context.Background(); so does the leave that follows its cancellation.
func TestSession_HeartbeatsRunOnItsContext(t *testing.T) {
	srv := newRecordingServer(t)
	clock := clienttest.NewManualClock()
	transport := &valueTransport{seen: map[string][]any{}}
	c, err := client.New(srv.URL, client.StaticToken("id"), client.WithClock(clock), client.WithHTTPClient(&http.Client{Transport: transport}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "bot-42"))
	events := make(chan client.Event, 4)
	s, err := c.JoinRoom(ctx, "r", client.SessionOptions{SessionID: "s", OnEvent: func(e client.Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	clock.WaitAsked(t, 1)
	clock.Fire()
	if e := clienttest.NextEvent(t, events, 10*time.Second); e.Kind != client.Renewed {
		t.Fatalf("event %+v, want Renewed", e)
	}
	cancel()
	clienttest.WaitDone(t, s)
	transport.mu.Lock()
	defer transport.mu.Unlock()
	for _, path := range []string{"/v1/rooms/r/heartbeat", "/v1/rooms/r/leave"} {
		if got := transport.seen[path]; len(got) != 1 || got[0] != "bot-42" {
			t.Fatalf("%s ran with context values %v, want [bot-42]", path, got)
		}
	}
}

// recordingServer answers the session calls as the API would (a 15 s lease,
// 5 s heartbeats) and records the paths it was asked, and for the
// heartbeats whether refuse() says to answer 403.
type recordingServer struct {
	URL    string
	mu     sync.Mutex
	paths  []string
	refuse atomic.Bool
}

func newRecordingServer(t *testing.T) *recordingServer {
	t.Helper()
	s := &recordingServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		lease := time.Now().Add(15 * time.Second).UTC().Format(time.RFC3339Nano)
		switch {
		case strings.HasSuffix(r.URL.Path, "/join"):
			w.Write([]byte(`{"roomId":"r","participantId":"u","sessionId":"s","generation":1,"leaseExpiresAt":"` + lease + `","leaseSeconds":15,"heartbeatSeconds":5,"revision":1}`))
		case strings.HasSuffix(r.URL.Path, "/heartbeat") && s.refuse.Load():
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":{"code":"permission_denied","message":"not admitted"}}`))
		case strings.HasSuffix(r.URL.Path, "/heartbeat"):
			w.Write([]byte(`{"leaseExpiresAt":"` + lease + `"}`))
		case strings.HasSuffix(r.URL.Path, "/leave"):
			w.Write([]byte(`{"removed":true}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *recordingServer) count(suffix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.paths {
		if strings.HasSuffix(p, suffix) {
			n++
		}
	}
	return n
}
