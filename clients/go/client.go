package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client calls the roomlease API as one user: the user whose ID tokens its
// token source returns. It is safe for concurrent use.
type Client struct {
	base    string
	tokens  TokenSource
	http    *http.Client
	timeout time.Duration // each request's bound; 0: none of the client's own
	clock   Clock
	rand    func() float64
	jitter  float64
	server  serverClock
	// appCheck, if set, supplies the X-Firebase-AppCheck token of each request.
	appCheck func(ctx context.Context) (string, error)
}

// Option configures a Client.
type Option func(*Client)

// DefaultRequestTimeout bounds each request unless WithRequestTimeout says
// otherwise.
const DefaultRequestTimeout = 10 * time.Second

// WithHTTPClient sets the HTTP client (default: http.Client{}, with no
// timeout of its own: the request timeout bounds each request).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRequestTimeout bounds every request, from fetching its token to
// reading the last byte of its answer (default DefaultRequestTimeout). A
// request that has no answer by then fails with an error that matches
// ErrTimeout (and context.DeadlineExceeded): a server that accepts the
// connection and never answers costs no more than d. A Session's
// heartbeat waits less: at most half the lease it has left. 0 sets no
// bound of the client's own (the caller's context and the HTTP client's
// Timeout still apply); a Session's heartbeats and its leave on
// cancellation stay bounded all the same.
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithClock sets the clock (default: the system clock).
func WithClock(clock Clock) Option { return func(c *Client) { c.clock = clock } }

// WithRand sets the source of jitter and backoff, numbers in [0, 1)
// (default math/rand/v2).
func WithRand(f func() float64) Option { return func(c *Client) { c.rand = f } }

// WithHeartbeatJitter sets the fraction by which a heartbeat interval is
// shortened at random, in [0, 1) (default 0.2).
func WithHeartbeatJitter(f float64) Option { return func(c *Client) { c.jitter = f } }

// WithAppCheck makes every request carry an App Check token from tokens
// in the X-Firebase-AppCheck header, for a server whose App Check mode is
// monitor or enforce. tokens is called once per request, so it should
// cache (App Check tokens last from 30 minutes to a few days); an empty
// token sends no header, and an error fails the request before it is sent.
func WithAppCheck(tokens func(ctx context.Context) (string, error)) Option {
	return func(c *Client) { c.appCheck = tokens }
}

// New returns a client of the API at baseURL (e.g. "https://presence.example.com")
// whose requests carry the tokens of tokens as bearer tokens: Firebase ID
// tokens (a service's own user, or the Auth emulator's). A
// CustomTokenSource keeps one valid for as long as the service runs.
//
// Returns an error if baseURL is not an absolute http(s) URL, tokens is nil,
// or an option is out of range.
func New(baseURL string, tokens TokenSource, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("roomlease client: base URL %q is not an absolute http(s) URL", baseURL)
	}
	if tokens == nil {
		return nil, errors.New("roomlease client: a token source is required")
	}
	c := &Client{
		base:    strings.TrimRight(baseURL, "/"),
		tokens:  tokens,
		http:    &http.Client{},
		timeout: DefaultRequestTimeout,
		clock:   systemClock{},
		rand:    rand.Float64,
		jitter:  0.2,
	}
	for _, o := range opts {
		o(c)
	}
	if c.jitter < 0 || c.jitter >= 1 {
		return nil, fmt.Errorf("roomlease client: heartbeat jitter %v must be at least 0 and below 1", c.jitter)
	}
	if c.timeout < 0 {
		return nil, fmt.Errorf("roomlease client: request timeout %v must not be negative (0 sets none)", c.timeout)
	}
	if c.http == nil || c.clock == nil || c.rand == nil {
		return nil, errors.New("roomlease client: nil HTTP client, clock or rand")
	}
	return c, nil
}

// ServerNow estimates the server's current time from the lease ends of the
// answers seen so far; before the first, it is the local clock.
func (c *Client) ServerNow() time.Time { return c.clock.Now().Add(c.server.get()) }

// ClockOffset is the estimated server clock minus the local clock.
func (c *Client) ClockOffset() time.Duration { return c.server.get() }

// call does one request, bounded by the request timeout. body nil sends no
// body; out nil ignores the answer's body. It returns the local times the
// request was sent and its answer received, for the server clock estimate.
//
// When the bound (the client's, or a tighter one a Session set on ctx with
// ErrTimeout as its cause) passes before an answer, the error matches
// ErrTimeout. An answer that came, whatever its status, is never one.
func (c *Client) call(ctx context.Context, method, path string, body, out any) (sent, received time.Time, err error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.timeout, ErrTimeout)
		defer cancel()
	}
	sent, received, err = c.do(ctx, method, path, body, out)
	var apiErr *APIError
	if err != nil && !errors.As(err, &apiErr) && errors.Is(context.Cause(ctx), ErrTimeout) {
		err = fmt.Errorf("%w: %s %s: %w", ErrTimeout, method, path, ctx.Err())
	}
	return sent, received, err
}

// token returns the bearer token, or gives up when ctx ends: a token
// source that refreshes over the network can hang as a request can, and
// one that ignores ctx would hang the request with it. The goroutine of a
// token that never comes is left behind; it ends when the source returns.
func (c *Client) token(ctx context.Context) (string, error) {
	type result struct {
		tok string
		err error
	}
	got := make(chan result, 1)
	go func() {
		tok, err := c.tokens.IDToken(ctx)
		got <- result{tok, err}
	}()
	select {
	case r := <-got:
		return r.tok, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// do is call without its bound.
func (c *Client) do(ctx context.Context, method, path string, body, out any) (sent, received time.Time, err error) {
	tok, err := c.token(ctx)
	if err != nil {
		return sent, received, fmt.Errorf("roomlease client: token: %w", err)
	}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return sent, received, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return sent, received, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Roomlease-Client", "go/"+Version)
	if c.appCheck != nil {
		ac, err := c.appCheck(ctx)
		if err != nil {
			return sent, received, fmt.Errorf("roomlease client: App Check token: %w", err)
		}
		if ac != "" {
			req.Header.Set("X-Firebase-AppCheck", ac)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	sent = c.clock.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return sent, received, fmt.Errorf("roomlease client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	received = c.clock.Now()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return sent, received, fmt.Errorf("roomlease client: %s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		err := decodeError(resp.StatusCode, raw)
		if apiErr, ok := err.(*APIError); ok {
			apiErr.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), received)
		}
		return sent, received, err
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return sent, received, fmt.Errorf("roomlease client: %s %s: decoding the answer: %w", method, path, err)
		}
	}
	return sent, received, nil
}

// decodeError turns an error answer into an *APIError. A body that is not
// the API's error shape (a proxy's page) keeps the status and gets a code
// from it, so that errors.Is still works for the common cases.
func decodeError(status int, raw []byte) error {
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Error.Code != "" {
		return &APIError{Status: status, Code: body.Error.Code, Message: body.Error.Message}
	}
	code := map[int]string{
		http.StatusBadRequest: "invalid_argument", http.StatusUnauthorized: "unauthenticated",
		http.StatusForbidden: "permission_denied", http.StatusNotFound: "not_found",
		http.StatusMethodNotAllowed: "method_not_allowed", http.StatusRequestEntityTooLarge: "payload_too_large",
		http.StatusUnsupportedMediaType: "unsupported_media_type", http.StatusServiceUnavailable: "unavailable",
		http.StatusTooManyRequests: "rate_limited",
	}[status]
	if code == "" && status >= 500 {
		code = "internal"
	}
	return &APIError{Status: status, Code: code, Message: strings.TrimSpace(string(raw))}
}

func roomPath(roomID, action string) string {
	p := "/v1/rooms/" + url.PathEscape(roomID)
	if action != "" {
		p += "/" + action
	}
	return p
}
