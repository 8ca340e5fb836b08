package client_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
)

// authEmulator returns the Auth emulator's host from
// FIREBASE_AUTH_EMULATOR_HOST, as scripts/test sets it.
func authEmulator(t *testing.T) string {
	t.Helper()
	host := os.Getenv("FIREBASE_AUTH_EMULATOR_HOST")
	if host == "" {
		if os.Getenv("ROOMLEASE_SKIP_EMULATOR_TESTS") == "1" {
			t.Skip("FIREBASE_AUTH_EMULATOR_HOST is not set and ROOMLEASE_SKIP_EMULATOR_TESTS=1")
		}
		t.Fatal("FIREBASE_AUTH_EMULATOR_HOST is not set: run the tests with scripts/test, which starts the Auth emulator")
	}
	return host
}

// unsignedCustomToken is a custom token for uid as the Admin SDK mints it
// in emulator mode: the claims Firebase Auth requires, no signature (the
// Auth emulator accepts alg "none").
func unsignedCustomToken(t *testing.T, uid string) string {
	t.Helper()
	now := time.Now().Unix()
	enc := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	const sa = "firebase-auth-emulator@example.com"
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(map[string]any{
		"iss": sa, "sub": sa, "uid": uid, "iat": now, "exp": now + 3600,
		"aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
	}) + "."
}

// uidOf asks the Auth emulator whose ID token idToken is; it fails the
// test if the emulator does not accept the token.
func uidOf(t *testing.T, host, idToken string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"idToken": idToken})
	resp, err := http.Post("http://"+host+"/identitytoolkit.googleapis.com/v1/accounts:lookup?key=any", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Users []struct {
			LocalID string `json:"localId"`
		} `json:"users"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.Users) != 1 {
		t.Fatalf("the Auth emulator does not accept the ID token (status %s)", resp.Status)
	}
	return out.Users[0].LocalID
}

// pathRecorder records the path of every request it passes on.
type pathRecorder struct {
	mu    sync.Mutex
	paths []string
}

func (p *pathRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.Path)
	p.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// Against the real Auth emulator, found through FIREBASE_AUTH_EMULATOR_HOST
// as in production code: the custom token is exchanged for an ID token of
// its uid, and an hour later (on the source's clock) the refresh token
// gets another, without the custom token.
func TestCustomTokenSource_AuthEmulator(t *testing.T) {
	host := authEmulator(t)
	uid := fmt.Sprintf("bot-%d", time.Now().UnixNano())
	clock := &fakeClock{now: time.Now()}
	rec := &pathRecorder{}
	s, err := client.NewCustomTokenSource("any-key", unsignedCustomToken(t, uid),
		client.WithTokenClock(clock), client.WithTokenHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	first, err := s.IDToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := uidOf(t, host, first); got != uid {
		t.Fatalf("the ID token is %q's, want %q's", got, uid)
	}
	if left := s.Expiry().Sub(clock.Now()); left <= 55*time.Minute || left > time.Hour {
		t.Fatalf("the ID token expires in %v, want about an hour", left)
	}

	clock.advance(56 * time.Minute)
	second, err := s.IDToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := uidOf(t, host, second); got != uid {
		t.Fatalf("the refreshed ID token is %q's, want %q's", got, uid)
	}
	want := []string{
		"/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken",
		"/securetoken.googleapis.com/v1/token",
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Equal(rec.paths, want) {
		t.Fatalf("requests %v, want %v", rec.paths, want)
	}
	if strings.Count(second, ".") != 2 {
		t.Fatalf("the refreshed token is not a JWT: %q", second)
	}
}

// The Auth emulator refuses what is not a custom token, and the error says
// so in Firebase Auth's own words.
func TestCustomTokenSource_AuthEmulatorRefusesAMalformedToken(t *testing.T) {
	authEmulator(t)
	s, err := client.NewCustomTokenSource("any-key", "not-a-custom-token")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.IDToken(context.Background())
	var authErr *client.AuthError
	if !errors.As(err, &authErr) || authErr.Status != http.StatusBadRequest || !strings.HasPrefix(authErr.Code, "INVALID_CUSTOM_TOKEN") {
		t.Fatalf("got %v, want a 400 *AuthError INVALID_CUSTOM_TOKEN", err)
	}
}
