package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
)

// fakeClock is a clock that moves only when the test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(time.Duration) <-chan time.Time { return nil }

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fakeAuth answers as Firebase Auth's two endpoints do, at the paths the
// Auth emulator serves them under, and records what it was asked. Each
// answer carries a new ID token and refresh token, numbered.
type fakeAuth struct {
	host string
	mu   sync.Mutex
	log  []string // "signIn token=…" or "refresh refresh_token=…"
	n    int
	fail int // the status to answer refreshes with, if not 0
}

func newFakeAuth(t *testing.T) *fakeAuth {
	t.Helper()
	a := &fakeAuth{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Query().Get("key") != "web-key" {
			http.Error(w, "want a POST with the API key", http.StatusBadRequest)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken":
			if r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "want JSON", http.StatusBadRequest)
				return
			}
			if !strings.Contains(string(raw), `"token":"custom-1"`) || !strings.Contains(string(raw), `"returnSecureToken":true`) {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":{"code":400,"message":"INVALID_CUSTOM_TOKEN : the token is malformed"}}`)
				return
			}
			a.n++
			a.log = append(a.log, "signIn")
			fmt.Fprintf(w, `{"idToken":"id-%d","refreshToken":"refresh-%d","expiresIn":"3600","isNewUser":false}`, a.n, a.n)
		case "/securetoken.googleapis.com/v1/token":
			form, err := url.ParseQuery(string(raw))
			if err != nil || form.Get("grant_type") != "refresh_token" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
				http.Error(w, "want a refresh_token grant", http.StatusBadRequest)
				return
			}
			a.log = append(a.log, "refresh "+form.Get("refresh_token"))
			if a.fail != 0 {
				w.WriteHeader(a.fail)
				fmt.Fprintf(w, `{"error":{"code":%d,"message":"UNAVAILABLE"}}`, a.fail)
				return
			}
			a.n++
			fmt.Fprintf(w, `{"id_token":"id-%d","refresh_token":"refresh-%d","expires_in":"3600","token_type":"Bearer","user_id":"bot"}`, a.n, a.n)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	a.host = strings.TrimPrefix(srv.URL, "http://")
	return a
}

func (a *fakeAuth) calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.log...)
}

func (a *fakeAuth) failRefreshes(status int) {
	a.mu.Lock()
	a.fail = status
	a.mu.Unlock()
}

func newSource(t *testing.T, a *fakeAuth, clock *fakeClock, custom string) *client.CustomTokenSource {
	t.Helper()
	s, err := client.NewCustomTokenSource("web-key", custom, client.WithAuthEmulator(a.host), client.WithTokenClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantToken(t *testing.T, s *client.CustomTokenSource, want string) {
	t.Helper()
	got, err := s.IDToken(context.Background())
	if err != nil || got != want {
		t.Fatalf("IDToken() = %q, %v; want %q", got, err, want)
	}
}

func TestCustomTokenSource(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

	t.Run("ExchangesOnceThenReuses", func(t *testing.T) {
		a, clock := newFakeAuth(t), &fakeClock{now: start}
		s := newSource(t, a, clock, "custom-1")
		if calls := a.calls(); len(calls) != 0 {
			t.Fatalf("calls before the first IDToken: %v", calls)
		}
		wantToken(t, s, "id-1")
		clock.advance(54 * time.Minute) // 6 minutes left: outside the 5-minute window
		wantToken(t, s, "id-1")
		if calls := a.calls(); len(calls) != 1 || calls[0] != "signIn" {
			t.Fatalf("calls %v, want one sign-in", calls)
		}
		if !s.Expiry().Equal(start.Add(time.Hour)) {
			t.Fatalf("Expiry() = %v, want an hour after the exchange", s.Expiry())
		}
	})

	t.Run("RefreshesBeforeExpiryWithTheLatestRefreshToken", func(t *testing.T) {
		a, clock := newFakeAuth(t), &fakeClock{now: start}
		s := newSource(t, a, clock, "custom-1")
		wantToken(t, s, "id-1")
		clock.advance(55 * time.Minute) // 5 minutes left: refresh now, before the token expires
		wantToken(t, s, "id-2")
		clock.advance(55 * time.Minute)
		wantToken(t, s, "id-3")
		want := []string{"signIn", "refresh refresh-1", "refresh refresh-2"}
		if got := a.calls(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("calls %v, want %v", got, want)
		}
	})

	t.Run("AFailedRefreshKeepsTheTokenWhileItLasts", func(t *testing.T) {
		a, clock := newFakeAuth(t), &fakeClock{now: start}
		s := newSource(t, a, clock, "custom-1")
		wantToken(t, s, "id-1")
		a.failRefreshes(http.StatusServiceUnavailable)
		clock.advance(56 * time.Minute)
		wantToken(t, s, "id-1") // 4 minutes left: still good
		clock.advance(3*time.Minute + 31*time.Second)
		_, err := s.IDToken(context.Background())
		var authErr *client.AuthError
		if !errors.As(err, &authErr) || authErr.Status != http.StatusServiceUnavailable || !authErr.Retryable() {
			t.Fatalf("29 s before expiry: %v, want the refresh's retryable *AuthError", err)
		}
		a.failRefreshes(0)
		wantToken(t, s, "id-2")
	})

	t.Run("ErrRefused", func(t *testing.T) {
		a, clock := newFakeAuth(t), &fakeClock{now: start}
		s := newSource(t, a, clock, "forged")
		_, err := s.IDToken(context.Background())
		var authErr *client.AuthError
		if !errors.As(err, &authErr) || authErr.Code != "INVALID_CUSTOM_TOKEN" || authErr.Retryable() {
			t.Fatalf("got %v, want an *AuthError INVALID_CUSTOM_TOKEN, not retryable", err)
		}
	})

	t.Run("ErrConfig", func(t *testing.T) {
		for name, tc := range map[string]struct {
			key, custom string
			opts        []client.TokenOption
		}{
			"NoCustomToken":         {"web-key", "", []client.TokenOption{client.WithAuthEmulator("")}},
			"NoAPIKeyInProduction":  {"", "custom-1", []client.TokenOption{client.WithAuthEmulator("")}},
			"NegativeRefreshBefore": {"web-key", "custom-1", []client.TokenOption{client.WithRefreshBefore(-time.Second)}},
			"RefreshBeforeTooLong":  {"web-key", "custom-1", []client.TokenOption{client.WithRefreshBefore(time.Hour)}},
		} {
			if _, err := client.NewCustomTokenSource(tc.key, tc.custom, tc.opts...); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
		if _, err := client.NewCustomTokenSource("", "custom-1", client.WithAuthEmulator("127.0.0.1:9099")); err != nil {
			t.Errorf("the emulator takes any API key, none included: %v", err)
		}
	})

	// The client's requests carry the source's tokens, refreshed as they age.
	t.Run("CarriedByTheClient", func(t *testing.T) {
		a, clock := newFakeAuth(t), &fakeClock{now: start}
		s := newSource(t, a, clock, "custom-1")
		var mu sync.Mutex
		var seen []string
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			w.Write([]byte(`{"roomId":"r","state":"active","revision":1,"participants":[]}`))
		}))
		defer api.Close()
		c, err := client.New(api.URL, s)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := c.Room(context.Background(), "r"); err != nil {
				t.Fatal(err)
			}
			clock.advance(time.Hour)
		}
		mu.Lock()
		defer mu.Unlock()
		if fmt.Sprint(seen) != "[Bearer id-1 Bearer id-2]" {
			t.Fatalf("Authorization headers %v", seen)
		}
	})
}
