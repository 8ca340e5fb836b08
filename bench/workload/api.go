package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
)

// Op names the API operations the load generator measures.
type Op string

const (
	OpJoin      Op = "join"
	OpHeartbeat Op = "heartbeat"
	OpLeave     Op = "leave"
	OpRead      Op = "roomRead"
)

// Ops lists the measured operations in report order.
var Ops = []Op{OpJoin, OpHeartbeat, OpLeave, OpRead}

// OpStats is what the client saw of one operation type.
type OpStats struct {
	latency  Dist
	ok       atomic.Int64
	status4x atomic.Int64
	status5x atomic.Int64
	failed   atomic.Int64 // transport errors (no HTTP status)
	mu       sync.Mutex
	codes    map[string]int64
}

// OpReport is the reported form of OpStats.
type OpReport struct {
	Latency   Summary          `json:"latency"`
	OK        int64            `json:"ok"`
	Client4xx int64            `json:"status4xx"`
	Server5xx int64            `json:"status5xx"`
	Transport int64            `json:"transportErrors"`
	Codes     map[string]int64 `json:"errorCodes,omitempty"`
	PerSecond float64          `json:"perSecond"`
}

func (s *OpStats) report(elapsed time.Duration) OpReport {
	s.mu.Lock()
	codes := map[string]int64{}
	for k, v := range s.codes {
		codes[k] = v
	}
	s.mu.Unlock()
	total := s.ok.Load() + s.status4x.Load() + s.status5x.Load() + s.failed.Load()
	return OpReport{Latency: s.latency.Summary(), OK: s.ok.Load(), Client4xx: s.status4x.Load(), Server5xx: s.status5x.Load(),
		Transport: s.failed.Load(), Codes: codes, PerSecond: Ratio(float64(total), elapsed.Seconds())}
}

// API calls the roomlease API through the Go client (package client) and
// records every call: latency, and the outcome by HTTP status class.
type API struct {
	Base  string
	HTTP  *http.Client
	stats map[Op]*OpStats
}

// NewAPI returns a client of the API at base.
func NewAPI(base string) *API {
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second}
	a := &API{Base: base, HTTP: &http.Client{Transport: timingTransport{tr}, Timeout: 60 * time.Second}, stats: map[Op]*OpStats{}}
	for _, op := range Ops {
		a.stats[op] = &OpStats{codes: map[string]int64{}}
	}
	return a
}

// Reports returns the per-operation reports over elapsed.
func (a *API) Reports(elapsed time.Duration) map[Op]OpReport {
	out := map[Op]OpReport{}
	for _, op := range Ops {
		out[op] = a.stats[op].report(elapsed)
	}
	return out
}

// Result is one API call's outcome.
type Result struct {
	Status  int    // HTTP status; 0 when no answer came (Err is set)
	Code    string // error code for non-2xx
	Sent    time.Time
	Done    time.Time
	Latency time.Duration
	Err     error // transport error
}

// as returns a Go client of the API acting with token. Clients are cheap:
// they share this API's HTTP connections. The client sets no timeout of its
// own: a.HTTP bounds every call (60 s), so that a slow answer under load is
// measured as latency rather than cut off at the client's default 10 s.
func (a *API) as(token string) *client.Client {
	c, err := client.New(a.Base, client.StaticToken(token), client.WithHTTPClient(a.HTTP), client.WithRequestTimeout(0))
	if err != nil {
		panic(fmt.Sprintf("bench: a client of %q: %v", a.Base, err)) // only a malformed base URL
	}
	return c
}

// record times call, classifies its outcome and counts it under op.
func (a *API) record(ctx context.Context, op Op, call func() error) Result {
	st := a.stats[op]
	r := Result{Sent: time.Now()}
	err := call()
	r.Done = time.Now()
	var apiErr *client.APIError
	switch {
	case err == nil:
		r.Status = http.StatusOK
	case errors.As(err, &apiErr):
		r.Status, r.Code = apiErr.Status, apiErr.Code
	default:
		r.Err = err
		if ctx.Err() == nil {
			st.failed.Add(1)
		}
		return r
	}
	r.Latency = r.Done.Sub(r.Sent)
	st.latency.Add(r.Latency)
	switch {
	case r.Status < 300:
		st.ok.Add(1)
	case r.Status >= 500:
		st.status5x.Add(1)
	default:
		st.status4x.Add(1)
	}
	if r.Status >= 300 {
		st.mu.Lock()
		st.codes[fmt.Sprintf("%d %s", r.Status, r.Code)]++
		st.mu.Unlock()
	}
	return r
}

// JoinResponse is the part of a join's answer the load generator uses.
type JoinResponse struct {
	Generation     int64
	LeaseExpiresAt time.Time
	Heartbeat      float64 // seconds
	Lease          float64 // seconds
	Database       string  // the Firestore database that holds the roster
	// RenewAt and LeaseToken: when the server wants the first heartbeat,
	// and the token to send with it (zero and "" from a server without).
	RenewAt    time.Time
	LeaseToken string
}

// Join joins roomID with session sid.
func (a *API) Join(ctx context.Context, token, roomID, sid, name string) (Result, JoinResponse) {
	var jr JoinResponse
	r := a.record(ctx, OpJoin, func() error {
		j, err := a.as(token).Join(ctx, roomID, sid, &name)
		jr = JoinResponse{Generation: j.Generation, LeaseExpiresAt: j.LeaseExpiresAt, Heartbeat: j.HeartbeatSeconds, Lease: j.LeaseSeconds, Database: j.Database,
			RenewAt: j.RenewAt, LeaseToken: j.LeaseToken}
		return err
	})
	return r, jr
}

// Heartbeat renews a session; it returns the new lease deadline on success.
func (a *API) Heartbeat(ctx context.Context, token, roomID, sid string, gen int64) (Result, time.Time) {
	var deadline time.Time
	r := a.record(ctx, OpHeartbeat, func() error {
		var err error
		deadline, err = a.as(token).Heartbeat(ctx, roomID, sid, gen, 0)
		return err
	})
	return r, deadline
}

// Renew renews a session as a client that follows renewAt does: with the
// lease token it was last given. The reply says when to renew next.
func (a *API) Renew(ctx context.Context, token, roomID, sid string, gen int64, leaseToken string) (Result, client.Beat) {
	var beat client.Beat
	r := a.record(ctx, OpHeartbeat, func() error {
		var err error
		beat, err = a.as(token).Renew(ctx, roomID, sid, gen, 0, false, leaseToken)
		return err
	})
	return r, beat
}

// Leave leaves a session.
func (a *API) Leave(ctx context.Context, token, roomID, sid string, gen int64) Result {
	return a.record(ctx, OpLeave, func() error {
		_, err := a.as(token).Leave(ctx, roomID, sid, gen)
		return err
	})
}

// Read reads the room's roster.
func (a *API) Read(ctx context.Context, token, roomID string) (Result, client.RoomSnapshot) {
	var snap client.RoomSnapshot
	r := a.record(ctx, OpRead, func() error {
		var err error
		snap, err = a.as(token).Room(ctx, roomID)
		return err
	})
	return r, snap
}

// SignUp creates an anonymous user at the Auth emulator at authHost and
// returns its uid and ID token.
func SignUp(ctx context.Context, hc *http.Client, authHost string) (uid, token string, err error) {
	url := fmt.Sprintf("http://%s/identitytoolkit.googleapis.com/v1/accounts:signUp?key=any", authHost)
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader([]byte(`{"returnSecureToken":true}`)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err == nil {
			var out struct {
				LocalID string `json:"localId"`
				IDToken string `json:"idToken"`
			}
			derr := json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if resp.StatusCode == 200 && derr == nil && out.IDToken != "" {
				return out.LocalID, out.IDToken, nil
			}
			err = fmt.Errorf("sign-up: status %s", resp.Status)
		}
		if attempt >= 4 || ctx.Err() != nil {
			return "", "", err
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
}
