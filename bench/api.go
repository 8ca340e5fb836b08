package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
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

// API is an HTTP client of the roomlease API that records every call.
type API struct {
	Base  string
	HTTP  *http.Client
	stats map[Op]*OpStats
}

// NewAPI returns a client of the API at base.
func NewAPI(base string) *API {
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second}
	a := &API{Base: base, HTTP: &http.Client{Transport: tr, Timeout: 60 * time.Second}, stats: map[Op]*OpStats{}}
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
	Status  int
	Code    string // error code for non-2xx
	Body    []byte
	Sent    time.Time
	Done    time.Time
	Latency time.Duration
	Err     error // transport error
}

func (a *API) call(ctx context.Context, op Op, method, path, token string, body any) Result {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return Result{Err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	st := a.stats[op]
	r := Result{Sent: time.Now()}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		r.Done = time.Now()
		r.Err = err
		if ctx.Err() == nil {
			st.failed.Add(1)
		}
		return r
	}
	r.Body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	r.Done = time.Now()
	r.Latency = r.Done.Sub(r.Sent)
	r.Status = resp.StatusCode
	st.latency.Add(r.Latency)
	switch {
	case r.Status < 300:
		st.ok.Add(1)
	default:
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(r.Body, &e)
		r.Code = e.Error.Code
		if r.Status >= 500 {
			st.status5x.Add(1)
		} else {
			st.status4x.Add(1)
		}
		st.mu.Lock()
		st.codes[fmt.Sprintf("%d %s", r.Status, r.Code)]++
		st.mu.Unlock()
	}
	return r
}

// JoinResponse is the part of a join's answer the load generator uses.
type JoinResponse struct {
	Generation     int64     `json:"generation"`
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
	Heartbeat      float64   `json:"heartbeatSeconds"`
	Lease          float64   `json:"leaseSeconds"`
}

// Join joins roomID with session sid.
func (a *API) Join(ctx context.Context, token, roomID, sid, name string) (Result, JoinResponse) {
	r := a.call(ctx, OpJoin, "POST", "/v1/rooms/"+roomID+"/join", token, map[string]any{"sessionId": sid, "displayName": name})
	var jr JoinResponse
	if r.Status == 200 {
		_ = json.Unmarshal(r.Body, &jr)
	}
	return r, jr
}

// Heartbeat renews a session; it returns the new lease deadline on success.
func (a *API) Heartbeat(ctx context.Context, token, roomID, sid string, gen int64) (Result, time.Time) {
	r := a.call(ctx, OpHeartbeat, "POST", "/v1/rooms/"+roomID+"/heartbeat", token, map[string]any{"sessionId": sid, "generation": gen})
	var out struct {
		LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
	}
	if r.Status == 200 {
		_ = json.Unmarshal(r.Body, &out)
	}
	return r, out.LeaseExpiresAt
}

// Leave leaves a session.
func (a *API) Leave(ctx context.Context, token, roomID, sid string, gen int64) Result {
	return a.call(ctx, OpLeave, "POST", "/v1/rooms/"+roomID+"/leave", token, map[string]any{"sessionId": sid, "generation": gen})
}

// Read reads the room's roster.
func (a *API) Read(ctx context.Context, token, roomID string) Result {
	return a.call(ctx, OpRead, "GET", "/v1/rooms/"+roomID, token, nil)
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
