package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/clients/go/clienttest"
)

func TestClient_AppCheckHeader(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("X-Firebase-AppCheck"))
		mu.Unlock()
		w.Write([]byte(`{"roomId":"r","state":"active","revision":1,"participants":[]}`))
	}))
	defer srv.Close()
	last := func() (string, int) {
		mu.Lock()
		defer mu.Unlock()
		if len(got) == 0 {
			return "", 0
		}
		return got[len(got)-1], len(got)
	}
	ctx := context.Background()

	t.Run("SentWithEveryRequest", func(t *testing.T) {
		calls := 0
		c, err := client.New(srv.URL, client.StaticToken("id"), client.WithAppCheck(func(context.Context) (string, error) {
			calls++
			return "app-check-token", nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := c.Room(ctx, "r"); err != nil {
				t.Fatal(err)
			}
			if h, _ := last(); h != "app-check-token" {
				t.Fatalf("X-Firebase-AppCheck = %q", h)
			}
		}
		if calls != 2 {
			t.Fatalf("token source called %d times for 2 requests", calls)
		}
	})
	t.Run("AbsentWithoutTheOption", func(t *testing.T) {
		c, _ := client.New(srv.URL, client.StaticToken("id"))
		if _, err := c.Room(ctx, "r"); err != nil {
			t.Fatal(err)
		}
		if h, _ := last(); h != "" {
			t.Fatalf("X-Firebase-AppCheck = %q without WithAppCheck", h)
		}
	})
	t.Run("TokenErrorSendsNothing", func(t *testing.T) {
		_, before := last()
		boom := errors.New("attestation failed")
		c, _ := client.New(srv.URL, client.StaticToken("id"), client.WithAppCheck(func(context.Context) (string, error) {
			return "", boom
		}))
		if _, err := c.Room(ctx, "r"); !errors.Is(err, boom) {
			t.Fatalf("err %v, want the token source's error", err)
		}
		if _, after := last(); after != before {
			t.Fatal("the request was sent without its App Check token")
		}
	})
}

func TestAPIError_RetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		want         time.Duration
	}{
		{"Seconds", "3", 3 * time.Second},
		{"HTTPDate", time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat), 90 * time.Second},
		{"Absent", "", 0},
		{"Garbage", "soon", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"error":{"code":"rate_limited","message":"slow down"}}`))
			}))
			defer srv.Close()
			c, _ := client.New(srv.URL, client.StaticToken("id"))
			_, err := c.Room(context.Background(), "r")
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || !errors.Is(err, client.ErrRateLimited) || !apiErr.Retryable() {
				t.Fatalf("got %#v, want a retryable ErrRateLimited", err)
			}
			// An HTTP date has one-second resolution.
			if d := apiErr.RetryAfter - tc.want; d > 0 || d < -time.Second {
				t.Fatalf("RetryAfter = %v, want %v", apiErr.RetryAfter, tc.want)
			}
		})
	}
}

// A heartbeat refused with 429 is retried no sooner than Retry-After, even
// though that is later than the usual backoff; after a success the regular
// schedule resumes.
func TestSession_HeartbeatHonoursRetryAfter(t *testing.T) {
	var mu sync.Mutex
	limited := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lease := time.Now().Add(15 * time.Second).UTC().Format(time.RFC3339Nano)
		switch r.URL.Path {
		case "/v1/rooms/r/join":
			w.Write([]byte(`{"roomId":"r","participantId":"u","sessionId":"s","generation":1,"leaseExpiresAt":"` + lease + `","leaseSeconds":15,"heartbeatSeconds":5,"revision":1}`))
		case "/v1/rooms/r/heartbeat":
			mu.Lock()
			l := limited
			mu.Unlock()
			if l {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"error":{"code":"rate_limited","message":"slow down"}}`))
				return
			}
			w.Write([]byte(`{"leaseExpiresAt":"` + lease + `"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	clock := clienttest.NewManualClock()
	c, err := client.New(srv.URL, client.StaticToken("id"), client.WithClock(clock), client.WithRand(func() float64 { return 0.5 }))
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan client.Event, 10)
	s, err := c.JoinRoom(context.Background(), "r", client.SessionOptions{SessionID: "s", OnEvent: func(e client.Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	regular := clock.WaitAsked(t, 1) // 5 s shortened by jitter 0.2 × 0.5
	if regular != 4500*time.Millisecond {
		t.Fatalf("first beat after %v, want 4.5s", regular)
	}
	clock.Fire()
	if e := <-events; e.Kind != client.Failed || !errors.Is(e.Err, client.ErrRateLimited) {
		t.Fatalf("event %+v, want Failed with ErrRateLimited", e)
	}
	// The backoff alone would be 0.5 s × 0.75.
	if d := clock.WaitAsked(t, 2); d != 7*time.Second {
		t.Fatalf("retry after %v, want the server's Retry-After 7s", d)
	}
	mu.Lock()
	limited = false
	mu.Unlock()
	clock.Fire()
	if e := <-events; e.Kind != client.Renewed {
		t.Fatalf("event %+v, want Renewed", e)
	}
	if d := clock.WaitAsked(t, 3); d != regular {
		t.Fatalf("after a success the next beat is in %v, want the regular %v", d, regular)
	}
}
