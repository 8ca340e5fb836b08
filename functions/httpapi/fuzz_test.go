package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/roomlease/roomlease/functions/presence"
)

// FuzzDecodeJSON: whatever the bytes, decoding either fails with an
// invalid_argument error or yields a request that came from one valid UTF-8
// JSON object whose keys are the request's field names, exactly (case
// included), each once.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"tab","generation":1}`, `{"sessionId":`, `[]`, `{}{}`, `{"x":1}`,
		"{\"sessionId\":\"\xff\"}", `{"generation":1.5}`, `{"generation":"1"}`, ``, `null`, `{"sessionId":"a","sessionId":"b"}`,
		`{"SessionId":"a"}`, `{"sessionid":"a","generation":1}`, `{"GENERATION":1}`, `{"generation":1,"generation":1}`,
		`{"session\u0049d":"a"}`, `{"sessionId":{"a":1,"a":2}}`, `{"sessionId":["x"]}`, `"tab"`, ` {"sessionId":"a"} `,
	} {
		f.Add([]byte(s))
	}
	fields := []string{"sessionId", "generation"}
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
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil || obj == nil {
			t.Fatalf("accepted a body that is not a JSON object: %q", body)
		}
		for k := range obj {
			if !slices.Contains(fields, k) {
				t.Fatalf("accepted key %q, not exactly a field name, in %q", k, body)
			}
		}
		if n := topLevelKeys(t, body); n != len(obj) {
			t.Fatalf("accepted %d keys of which only %d differ: a key given twice in %q", n, len(obj), body)
		}
	})
}

// topLevelKeys counts the keys of the object in body as written, repeats
// included. The request's fields are all scalars, so an accepted body
// holds no nested value.
func topLevelKeys(t *testing.T, body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			t.Fatal(err)
		}
		v, err := dec.Token()
		if _, nested := v.(json.Delim); err != nil || nested {
			t.Fatalf("accepted a nested value (%v, %v) in %q", v, err, body)
		}
		n++
	}
	return n
}

// The refusals FuzzDecodeJSON's property allows but does not demand, each
// with the message that tells the client what is wrong.
func TestDecodeJSON_Strict(t *testing.T) {
	for name, tc := range map[string]struct{ body, message string }{
		"Null":              {`null`, "must be a JSON object"},
		"Array":             {`[{"sessionId":"a"}]`, "must be a JSON object"},
		"String":            {`"tab"`, "must be a JSON object"},
		"KeyInAnotherCase":  {`{"SessionId":"a","generation":1}`, `unknown field "SessionId"; keys are case-sensitive: "sessionId"`},
		"KeyAllLowerCase":   {`{"sessionid":"a","generation":1}`, `unknown field "sessionid"`},
		"DuplicateKey":      {`{"sessionId":"a","sessionId":"b","generation":1}`, `field "sessionId" appears more than once`},
		"DuplicateSameCase": {`{"generation":1,"sessionId":"a","generation":1}`, `field "generation" appears more than once`},
		"DuplicateNested":   {`{"sessionId":{"x":1,"x":2}}`, `field "x" appears more than once`},
		"UnknownField":      {`{"sessionId":"a","admin":true}`, `unknown field "admin"`},
	} {
		t.Run(name, func(t *testing.T) {
			var req sessionRequest
			err := decodeJSON([]byte(tc.body), &req)
			if presence.ErrorCode(err) != presence.EInvalid || !strings.Contains(presence.ErrorMessage(err), tc.message) {
				t.Fatalf("decoding %s: %v; want invalid_argument mentioning %q", tc.body, err, tc.message)
			}
		})
	}
	t.Run("EscapedKeyIsTheSameKey", func(t *testing.T) {
		var req sessionRequest
		if err := decodeJSON([]byte(`{"session\u0049d":"a","generation":2}`), &req); err != nil || req.SessionID != "a" || req.Generation != 2 {
			t.Fatalf("decoded %+v, %v", req, err)
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
func (acceptAll) Renew(_ context.Context, r presence.SessionRef) (presence.Grant, error) {
	return presence.Grant{}, r.Validate()
}
func (acceptAll) HeartbeatAway(_ context.Context, r presence.AwayRequest) (presence.Grant, error) {
	return presence.Grant{Away: r.Away}, r.Validate()
}
func (acceptAll) Leave(_ context.Context, r presence.SessionRef) (presence.LeaveResult, error) {
	return presence.LeaveResult{}, r.Validate()
}
func (acceptAll) Roster(_ context.Context, r presence.RosterRequest) (presence.Roster, error) {
	return presence.Roster{}, r.Validate()
}

func (acceptAll) SetTyping(_ context.Context, r presence.SessionRef, _ bool) (presence.Grant, error) {
	return presence.Grant{}, r.Validate()
}
func (acceptAll) SetState(_ context.Context, r presence.StateRequest) (presence.StateResult, error) {
	return presence.StateResult{State: r.State}, r.Validate()
}
func (acceptAll) MarkRead(_ context.Context, r presence.ReceiptRequest) (int64, error) {
	return r.LastReadSeq, r.Validate()
}
func (acceptAll) RosterPage(_ context.Context, r presence.RosterPageRequest) (presence.RosterPage, error) {
	return presence.RosterPage{RoomID: r.RoomID}, r.Validate()
}
func (acceptAll) Occupancy(_ context.Context, roomID string) (presence.Occupancy, error) {
	return presence.Occupancy{RoomID: roomID}, presence.ValidateRoomID(roomID)
}

type anyToken struct{}

func (anyToken) VerifyIDToken(context.Context, string) (presence.Identity, error) {
	return presence.Identity{UID: "uid-1"}, nil
}

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
