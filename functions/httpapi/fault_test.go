package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
)

// brokenPresence fails the way an infrastructure fault does: with an error
// that is not part of the domain's vocabulary, or with a panic.
type brokenPresence struct{ panics bool }

func (b brokenPresence) fail() error {
	if b.panics {
		panic("index out of range [3] with length 3")
	}
	return errors.New("rpc error: code = Internal desc = disk on fire at 10.0.0.7")
}

func (b brokenPresence) Join(context.Context, presence.JoinRequest) (presence.JoinResult, error) {
	return presence.JoinResult{}, b.fail()
}
func (b brokenPresence) Renew(context.Context, presence.SessionRef) (presence.Grant, error) {
	return presence.Grant{}, b.fail()
}
func (b brokenPresence) Leave(context.Context, presence.SessionRef) (presence.LeaveResult, error) {
	return presence.LeaveResult{}, b.fail()
}
func (b brokenPresence) Roster(context.Context, presence.RosterRequest) (presence.Roster, error) {
	return presence.Roster{}, b.fail()
}

func (b brokenPresence) HeartbeatAway(context.Context, presence.AwayRequest) (presence.Grant, error) {
	return presence.Grant{}, b.fail()
}
func (b brokenPresence) SetTyping(context.Context, presence.SessionRef, bool) (presence.Grant, error) {
	return presence.Grant{}, b.fail()
}
func (b brokenPresence) SetState(context.Context, presence.StateRequest) (presence.StateResult, error) {
	return presence.StateResult{}, b.fail()
}
func (b brokenPresence) MarkRead(context.Context, presence.ReceiptRequest) (int64, error) {
	return 0, b.fail()
}
func (b brokenPresence) RosterPage(context.Context, presence.RosterPageRequest) (presence.RosterPage, error) {
	return presence.RosterPage{}, b.fail()
}
func (b brokenPresence) Occupancy(context.Context, string) (presence.Occupancy, error) {
	return presence.Occupancy{}, b.fail()
}

type staticTokens struct{}

func (staticTokens) VerifyIDToken(_ context.Context, tok string) (presence.Identity, error) {
	if tok == "good" {
		return presence.Identity{UID: "alice"}, nil
	}
	return presence.Identity{}, presence.Errorf(presence.EUnauthenticated, "bad token")
}

// A server fault is a 500 in the documented shape and a log line; the client
// learns nothing of the cause, and a panic never reaches it as a trace.
func TestAPI_ServerFaultsAre5xxAndLogged(t *testing.T) {
	for _, panics := range []bool{false, true} {
		var logs bytes.Buffer
		h := httpapi.New(httpapi.Options{Store: brokenPresence{panics: panics}, Tokens: staticTokens{},
			Settings: presence.DefaultSettings(), Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
		req := httptest.NewRequest("POST", "/v1/rooms/r/join", strings.NewReader(`{"sessionId":"s"}`))
		req.Header.Set("Authorization", "Bearer good")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		body := rec.Body.String()
		if rec.Code != http.StatusInternalServerError || body != `{"error":{"code":"internal","message":"internal error"}}`+"\n" {
			t.Fatalf("panics=%v: got %d %q", panics, rec.Code, body)
		}
		want := "disk on fire"
		if panics {
			want = "index out of range"
		}
		if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Fatalf("panics=%v: the fault was not logged: %s", panics, logs.String())
		}
	}
}

// Unavailability of a dependency is a 503 the client may retry.
func TestAPI_UnavailableIs503(t *testing.T) {
	h := httpapi.New(httpapi.Options{Store: brokenPresence{}, Tokens: unavailableTokens{}, Settings: presence.DefaultSettings(),
		Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	req := httptest.NewRequest("GET", "/v1/rooms/r", nil)
	req.Header.Set("Authorization", "Bearer x")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"unavailable"`) {
		t.Fatalf("got %d %s", rec.Code, rec.Body.String())
	}
}

type unavailableTokens struct{}

func (unavailableTokens) VerifyIDToken(context.Context, string) (presence.Identity, error) {
	return presence.Identity{}, presence.Errorf(presence.EUnavailable, "could not verify the ID token; retry")
}

// A request that fails for want of time says where the time went: the log
// line of a 503 from the token check carries the elapsed time and no gate
// time (it never passed the gates); one from the store carries both.
func TestAPI_FaultLogsSayWhereTheTimeWent(t *testing.T) {
	tests := []struct {
		name      string
		tokens    httpapi.TokenVerifier
		wantGates bool
	}{
		{"failed in the token check", unavailableTokens{}, false},
		{"failed in the store", staticTokens{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := httpapi.New(httpapi.Options{Store: brokenPresence{}, Tokens: tc.tokens, Settings: presence.DefaultSettings(),
				Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			req := httptest.NewRequest("GET", "/v1/rooms/r", nil)
			req.Header.Set("Authorization", "Bearer good")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code < 500 {
				t.Fatalf("got %d, want a server fault", rec.Code)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatalf("log %q: %v", logs.String(), err)
			}
			if _, ok := line["elapsedMs"]; !ok {
				t.Errorf("no elapsedMs in %v", line)
			}
			if _, ok := line["gatesMs"]; ok != tc.wantGates {
				t.Errorf("gatesMs present %v, want %v: %v", ok, tc.wantGates, line)
			}
		})
	}
}
