package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CustomTokenSource is the TokenSource of a service that acts as a
// Firebase user of its own (a bot joining rooms): it exchanges a Firebase
// custom token for an ID token and a refresh token, and from then on uses
// the refresh token to get a new ID token shortly before the current one
// expires (ID tokens last an hour). A custom token is good for one hour
// only, which is why the refresh token, not the custom token, keeps the
// source going for as long as the service runs.
//
// It calls the Firebase Auth REST API: Identity Toolkit's
// accounts:signInWithCustomToken once, then the Secure Token API's token
// endpoint. When FIREBASE_AUTH_EMULATOR_HOST is set (as the Admin SDK
// honours it), it calls the Auth emulator there instead, which takes
// unsigned custom tokens and any API key.
//
// It is safe for concurrent use: concurrent callers share one exchange.
//
// What it does not do: it does not mint custom tokens (that takes a
// service account, and the Admin SDK, which this module leaves out), and
// it cannot recover once the refresh token is refused (the user was
// disabled or deleted, or its tokens revoked): every call then returns
// that *AuthError, and the service needs a new custom token.
type CustomTokenSource struct {
	signInURL  string
	refreshURL string
	custom     string
	http       *http.Client
	clock      Clock
	early      time.Duration // refresh this long before expiry

	// turn is held by the caller that exchanges; it is a channel rather
	// than a mutex so that a caller waiting for its turn can give up when
	// its context ends.
	turn chan struct{}
	// waiting, if set, is called when a caller starts waiting for its
	// turn: the tests' hook for deterministic interleavings.
	waiting func()

	mu      sync.Mutex
	idToken string
	refresh string
	expiry  time.Time
}

// TokenOption configures a CustomTokenSource.
type TokenOption func(*CustomTokenSource)

// WithTokenHTTPClient sets the HTTP client of the exchanges (default
// http.Client{}; the caller's context bounds each exchange).
func WithTokenHTTPClient(h *http.Client) TokenOption {
	return func(s *CustomTokenSource) { s.http = h }
}

// WithTokenClock sets the clock that tells when the ID token expires
// (default: the system clock).
func WithTokenClock(c Clock) TokenOption { return func(s *CustomTokenSource) { s.clock = c } }

// WithRefreshBefore sets how long before its expiry an ID token is
// replaced (default DefaultRefreshBefore). It must leave a token some
// minutes of use: at least 0, less than 50 minutes.
func WithRefreshBefore(d time.Duration) TokenOption {
	return func(s *CustomTokenSource) { s.early = d }
}

// WithAuthEmulator calls the Auth emulator at host ("127.0.0.1:9099")
// whatever FIREBASE_AUTH_EMULATOR_HOST says; "" calls production Firebase
// Auth even when it is set.
func WithAuthEmulator(host string) TokenOption {
	return func(s *CustomTokenSource) { s.signInURL, s.refreshURL = authURLs(host) }
}

// DefaultRefreshBefore is how long before its expiry an ID token is
// replaced unless WithRefreshBefore says otherwise: five minutes, as the
// Firebase client SDKs do, which leaves room for clock drift and for
// retries of a refresh that failed.
const DefaultRefreshBefore = 5 * time.Minute

// expirySlack is how long before its expiry a token stops being handed
// out when its refresh failed: a request needs time to reach the server,
// whose clock may be ahead.
const expirySlack = 30 * time.Second

func authURLs(emulatorHost string) (signIn, refresh string) {
	if emulatorHost == "" {
		return "https://identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken",
			"https://securetoken.googleapis.com/v1/token"
	}
	return "http://" + emulatorHost + "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken",
		"http://" + emulatorHost + "/securetoken.googleapis.com/v1/token"
}

// NewCustomTokenSource returns a source of ID tokens of the user that
// customToken (minted by the Admin SDK's CustomToken, or by any signer of
// the project's service account) names. apiKey is the Firebase project's
// Web API key, which identifies the project to Firebase Auth. Nothing is
// sent until the first IDToken.
//
// Returns an error if customToken is empty, apiKey is empty outside the
// emulator, or an option is out of range.
func NewCustomTokenSource(apiKey, customToken string, opts ...TokenOption) (*CustomTokenSource, error) {
	s := &CustomTokenSource{
		custom: customToken,
		http:   &http.Client{},
		clock:  systemClock{},
		early:  DefaultRefreshBefore,
		turn:   make(chan struct{}, 1),
	}
	emulator := os.Getenv("FIREBASE_AUTH_EMULATOR_HOST")
	s.signInURL, s.refreshURL = authURLs(emulator)
	for _, o := range opts {
		o(s)
	}
	if customToken == "" {
		return nil, errors.New("roomlease client: a custom token is required")
	}
	emulated := !strings.HasPrefix(s.signInURL, "https://")
	if apiKey == "" && !emulated {
		return nil, errors.New("roomlease client: the project's Web API key is required (any will do for the Auth emulator)")
	}
	if apiKey == "" {
		apiKey = "emulator"
	}
	if s.early < 0 || s.early >= 50*time.Minute {
		return nil, fmt.Errorf("roomlease client: refresh-before %v must be at least 0 and less than 50m", s.early)
	}
	if s.http == nil || s.clock == nil {
		return nil, errors.New("roomlease client: nil HTTP client or clock")
	}
	key := "?key=" + url.QueryEscape(apiKey)
	s.signInURL += key
	s.refreshURL += key
	return s, nil
}

// IDToken returns the current ID token, first exchanging the custom token
// (on the first call) or the refresh token (within the refresh-before
// window of its expiry) for a new one. A refresh that fails while the
// current token has more than half a minute left returns the current
// token, and the next call tries again.
//
// Returns ctx's error if ctx ends first, an *AuthError if Firebase Auth
// refused the exchange, or the transport's error.
func (s *CustomTokenSource) IDToken(ctx context.Context) (string, error) {
	if tok, ok := s.fresh(); ok {
		return tok, nil
	}
	if s.waiting != nil {
		s.waiting()
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.turn }()
	// Another caller may have exchanged while this one waited.
	if tok, ok := s.fresh(); ok {
		return tok, nil
	}
	err := s.exchange(ctx)
	if err == nil {
		tok, _ := s.fresh()
		return tok, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idToken != "" && s.clock.Now().Before(s.expiry.Add(-expirySlack)) {
		return s.idToken, nil
	}
	return "", err
}

// Expiry is when the current ID token expires by the local clock; zero
// before the first exchange.
func (s *CustomTokenSource) Expiry() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expiry
}

// fresh returns the current token if it is outside its refresh window.
func (s *CustomTokenSource) fresh() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idToken == "" || !s.clock.Now().Before(s.expiry.Add(-s.early)) {
		return "", false
	}
	return s.idToken, true
}

// exchange gets a new ID token: from the refresh token once there is one,
// from the custom token before. The caller holds the turn.
func (s *CustomTokenSource) exchange(ctx context.Context) error {
	s.mu.Lock()
	refresh := s.refresh
	s.mu.Unlock()
	// The token's lifetime counts from before the request: the server
	// started it somewhere between sending and receiving, and erring early
	// is safe.
	sent := s.clock.Now()
	var got struct {
		idToken, refresh string
		expiresIn        seconds64
	}
	if refresh == "" {
		var out struct {
			IDToken      string    `json:"idToken"`
			RefreshToken string    `json:"refreshToken"`
			ExpiresIn    seconds64 `json:"expiresIn"`
		}
		body, err := json.Marshal(map[string]any{"token": s.custom, "returnSecureToken": true})
		if err != nil {
			return err
		}
		if err := s.post(ctx, s.signInURL, "application/json", body, &out); err != nil {
			return err
		}
		got.idToken, got.refresh, got.expiresIn = out.IDToken, out.RefreshToken, out.ExpiresIn
	} else {
		var out struct {
			IDToken      string    `json:"id_token"`
			RefreshToken string    `json:"refresh_token"`
			ExpiresIn    seconds64 `json:"expires_in"`
		}
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
		if err := s.post(ctx, s.refreshURL, "application/x-www-form-urlencoded", []byte(form.Encode()), &out); err != nil {
			return err
		}
		got.idToken, got.refresh, got.expiresIn = out.IDToken, out.RefreshToken, out.ExpiresIn
	}
	if got.idToken == "" || got.refresh == "" || got.expiresIn <= 0 {
		return errors.New("roomlease client: Firebase Auth answered without an ID token, refresh token or lifetime")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idToken, s.refresh = got.idToken, got.refresh
	s.expiry = sent.Add(time.Duration(got.expiresIn) * time.Second)
	return nil
}

func (s *CustomTokenSource) post(ctx context.Context, endpoint, contentType string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("roomlease client: Firebase Auth: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("roomlease client: Firebase Auth: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return authError(resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("roomlease client: Firebase Auth: decoding the answer: %w", err)
	}
	return nil
}

// AuthError is Firebase Auth's refusal of an exchange: its status and the
// code its message starts with (INVALID_CUSTOM_TOKEN, TOKEN_EXPIRED,
// USER_DISABLED, INVALID_REFRESH_TOKEN, ...).
type AuthError struct {
	Status  int
	Code    string
	Message string
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("roomlease client: Firebase Auth refused the token exchange: %d %s", e.Status, e.Message)
}

// Retryable reports whether the same exchange may succeed later: Firebase
// Auth was unavailable or over its quota, rather than refusing the token.
func (e *AuthError) Retryable() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests
}

// authError reads Firebase Auth's error shape, {"error": {"message":
// "CODE : details"}}; anything else keeps the status and its text.
func authError(status int, raw []byte) error {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		msg = body.Error.Message
	}
	code, _, _ := strings.Cut(msg, " ")
	code = strings.TrimSuffix(code, ":")
	return &AuthError{Status: status, Code: code, Message: msg}
}

// seconds64 reads a lifetime in seconds that the REST API sends as a
// string ("3600"), and takes a number too.
type seconds64 int64

func (s *seconds64) UnmarshalJSON(b []byte) error {
	str := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(str, 10, 64)
	if err != nil {
		return fmt.Errorf("a lifetime in seconds: %q", b)
	}
	*s = seconds64(n)
	return nil
}
