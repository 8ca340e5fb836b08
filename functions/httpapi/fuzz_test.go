package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/roomlease/roomlease/functions/presence"
)

// FuzzDecodeJSON: whatever the bytes, decoding either fails with an
// invalid_argument error or yields a request that came from one valid UTF-8
// JSON object with known fields only.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"tab","generation":1}`, `{"sessionId":`, `[]`, `{}{}`, `{"x":1}`,
		"{\"sessionId\":\"\xff\"}", `{"generation":1.5}`, `{"generation":"1"}`, ``, `null`, `{"sessionId":"a","sessionId":"b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req sessionRequest
		err := decodeJSON(body, &req)
		if err != nil {
			if presence.ErrorCode(err) != presence.EInvalid {
				t.Fatalf("decode error %v has code %s", err, presence.ErrorCode(err))
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("accepted non-UTF-8 body %q", body)
		}
		var generic any
		if json.Unmarshal(body, &generic) != nil {
			t.Fatalf("accepted a body that is not JSON: %q", body)
		}
	})
}

type acceptAll struct{}

func (acceptAll) Join(_ context.Context, r presence.JoinRequest) (presence.JoinResult, error) {
	if err := r.Validate(); err != nil {
		return presence.JoinResult{}, err
	}
	return presence.JoinResult{Session: presence.Session{ID: r.SessionID, Generation: 1}}, nil
}
func (acceptAll) Heartbeat(_ context.Context, r presence.SessionRef) (time.Time, error) {
	return time.Time{}, r.Validate()
}
func (acceptAll) Leave(_ context.Context, r presence.SessionRef) (presence.LeaveResult, error) {
	return presence.LeaveResult{}, r.Validate()
}
func (acceptAll) Roster(_ context.Context, r presence.RosterRequest) (presence.Roster, error) {
	return presence.Roster{}, r.Validate()
}

func (acceptAll) SetTyping(_ context.Context, r presence.SessionRef, _ bool) error {
	return r.Validate()
}
func (acceptAll) MarkRead(_ context.Context, r presence.ReceiptRequest) (int64, error) {
	return r.LastReadSeq, r.Validate()
}

type anyToken struct{}

func (anyToken) VerifyIDToken(context.Context, string) (string, error) { return "uid-1", nil }

// FuzzRequest: no path, method or body makes the API answer with a server
// error or anything but the documented JSON shapes.
func FuzzRequest(f *testing.F) {
	f.Add("POST", "/v1/rooms/a%2Fb/join", `{"sessionId":"s"}`)
	f.Add("GET", "/v1/rooms/__x__", ``)
	f.Add("POST", "/v1/rooms/%FF/leave", `{"sessionId":"s","generation":3}`)
	f.Add("PATCH", "/healthz", ``)
	f.Add("POST", "/v1/rooms/r/heartbeat", `{"sessionId":"s","generation":1e400}`)
	h := New(Options{Store: acceptAll{}, Tokens: anyToken{}, Settings: presence.DefaultSettings(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	f.Fuzz(func(t *testing.T, method, path, body string) {
		if !validMethod(method) || !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#?") {
			return
		}
		req, err := http.NewRequest(method, "http://x"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q %q: status %d %s", method, path, body, rec.Code, rec.Body.String())
		}
		if method != http.MethodOptions && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: body is not JSON: %q", method, path, rec.Body.String())
		}
	})
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
