package httpapi_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Every client mistake gets a 4xx in the documented error shape and leaves
// Firestore exactly as it was.
func TestAPI_BadInputIsRefusedAndWritesNothing(t *testing.T) {
	f := MustOpenAPI(t)
	ada := emulatortest.SignUp(t)
	// A room with a live session, so that refused requests have something
	// they could wrongly change.
	join := f.do(t, "POST", "/v1/rooms/room-1/join", ada.IDToken, `{"sessionId":"tab"}`)
	if join.status != 200 {
		t.Fatalf("setup join: %d %s", join.status, join.raw)
	}
	gen := jsonInt(int64(join.body["generation"].(float64)))
	valid := ada.IDToken

	expired := emulatortest.ResignToken(t, valid, func(c map[string]any) {
		past := time.Now().Add(-2 * time.Hour).Unix()
		c["iat"], c["exp"], c["auth_time"] = past-60, past, past-60
	})
	foreign := emulatortest.ResignToken(t, valid, func(c map[string]any) {
		c["aud"] = "someone-elses-project"
		c["iss"] = "https://securetoken.google.com/someone-elses-project"
	})
	unknownUser := emulatortest.ResignToken(t, valid, func(c map[string]any) {
		c["sub"], c["user_id"] = "no-such-user", "no-such-user"
	})

	cases := []struct {
		name, method, path, token, body string
		headers                         []string
		status                          int
		code                            string
	}{
		{"malformed JSON", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":`, nil, 400, "invalid_argument"},
		{"not an object", "POST", "/v1/rooms/room-1/join", valid, `["tab"]`, nil, 400, "invalid_argument"},
		{"empty body", "POST", "/v1/rooms/room-1/heartbeat", valid, ``, nil, 400, "invalid_argument"},
		{"two objects", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"a"}{"sessionId":"b"}`, nil, 400, "invalid_argument"},
		{"unknown field", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"tab","admin":true}`, nil, 400, "invalid_argument"},
		{"body over the limit", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"tab","displayName":"` + strings.Repeat("x", 5000) + `"}`, nil, 413, "payload_too_large"},
		{"non-UTF-8 body", "POST", "/v1/rooms/room-1/join", valid, "{\"sessionId\":\"tab\",\"displayName\":\"\xff\xfe\"}", nil, 400, "invalid_argument"},
		{"form body", "POST", "/v1/rooms/room-1/join", valid, `sessionId=tab`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"JSON without a content type", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"tab"}`, []string{"Content-Type", ""}, 415, "unsupported_media_type"},
		{"JSON as text/plain", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"tab"}`, []string{"Content-Type", "text/plain;charset=UTF-8"}, 415, "unsupported_media_type"},
		{"JSON in another charset", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"tab"}`, []string{"Content-Type", "application/json; charset=iso-8859-1"}, 415, "unsupported_media_type"},
		{"null body", "POST", "/v1/rooms/room-1/leave", valid, `null`, nil, 400, "invalid_argument"},
		{"key in another case", "POST", "/v1/rooms/room-1/join", valid, `{"SessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"key given twice", "POST", "/v1/rooms/room-1/leave", valid, `{"sessionId":"other","sessionId":"tab","generation":` + gen + `}`, nil, 400, "invalid_argument"},
		{"room id with a slash", "POST", "/v1/rooms/a%2Fb/join", valid, `{"sessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"reserved room id", "POST", "/v1/rooms/__x__/join", valid, `{"sessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"room id ..", "POST", "/v1/rooms/%2E%2E/join", valid, `{"sessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"empty room id", "POST", "/v1/rooms//join", valid, `{"sessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"2 KB room id", "POST", "/v1/rooms/" + strings.Repeat("r", 2048) + "/join", valid, `{"sessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"non-UTF-8 room id", "POST", "/v1/rooms/%FF%FE/join", valid, `{"sessionId":"tab"}`, nil, 400, "invalid_argument"},
		{"session id with a slash", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"a/b"}`, nil, 400, "invalid_argument"},
		{"missing session id", "POST", "/v1/rooms/room-1/join", valid, `{"displayName":"x"}`, nil, 400, "invalid_argument"},
		{"control character in name", "POST", "/v1/rooms/room-1/join", valid, `{"sessionId":"tab","displayName":"a\u0000b"}`, nil, 400, "invalid_argument"},
		{"generation as a string", "POST", "/v1/rooms/room-1/heartbeat", valid, `{"sessionId":"tab","generation":"` + gen + `"}`, nil, 400, "invalid_argument"},
		{"fractional generation", "POST", "/v1/rooms/room-1/heartbeat", valid, `{"sessionId":"tab","generation":1.5}`, nil, 400, "invalid_argument"},
		{"generation beyond 2^53", "POST", "/v1/rooms/room-1/leave", valid, `{"sessionId":"tab","generation":9007199254740993}`, nil, 400, "invalid_argument"},
		{"negative generation", "POST", "/v1/rooms/room-1/leave", valid, `{"sessionId":"tab","generation":-1}`, nil, 400, "invalid_argument"},
		{"missing token", "POST", "/v1/rooms/room-1/heartbeat", "", `{"sessionId":"tab","generation":` + gen + `}`, nil, 401, "unauthenticated"},
		{"garbage token", "POST", "/v1/rooms/room-1/heartbeat", "not-a-jwt", `{"sessionId":"tab","generation":` + gen + `}`, nil, 401, "unauthenticated"},
		{"expired token", "POST", "/v1/rooms/room-1/heartbeat", expired, `{"sessionId":"tab","generation":` + gen + `}`, nil, 401, "unauthenticated"},
		{"wrong-project token", "POST", "/v1/rooms/room-1/leave", foreign, `{"sessionId":"tab","generation":` + gen + `}`, nil, 401, "unauthenticated"},
		{"token of an unknown user", "POST", "/v1/rooms/room-1/join", unknownUser, `{"sessionId":"tab"}`, nil, 401, "unauthenticated"},
		{"basic auth", "GET", "/v1/rooms/room-1", "", ``, []string{"Authorization", "Basic YTpi"}, 401, "unauthenticated"},
		{"GET on join", "GET", "/v1/rooms/room-1/join", valid, ``, nil, 405, "method_not_allowed"},
		{"DELETE a room", "DELETE", "/v1/rooms/room-1", valid, ``, nil, 405, "method_not_allowed"},
		{"PUT healthz", "PUT", "/healthz", "", ``, nil, 405, "method_not_allowed"},
		{"POST config", "POST", "/v1/config", valid, `{}`, nil, 405, "method_not_allowed"},
		{"below config", "GET", "/v1/config/database", "", ``, nil, 404, "not_found"},
		{"unknown action", "POST", "/v1/rooms/room-1/explode", valid, `{}`, nil, 404, "not_found"},
		{"unknown path", "GET", "/v2/rooms", valid, ``, nil, 404, "not_found"},
	}
	before := emulatortest.Snapshot(t, f.client)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, tc.method, tc.path, tc.token, tc.body, tc.headers...)
			if r.status != tc.status || errCode(r) != tc.code {
				t.Fatalf("got %d %s, want %d %s", r.status, r.raw, tc.status, tc.code)
			}
			e, _ := r.body["error"].(map[string]any)
			if msg, _ := e["message"].(string); msg == "" || len(e) != 2 {
				t.Fatalf("error body %s is not {\"error\":{\"code\",\"message\"}}", r.raw)
			}
			if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
				t.Fatalf("content type %q", r.header.Get("Content-Type"))
			}
		})
	}
	if after := emulatortest.Snapshot(t, f.client); !reflect.DeepEqual(before, after) {
		t.Fatalf("refused requests changed Firestore: %v", emulatortest.Changed(before, after))
	}
}

// Content-Type may name the charset, as OkHttp and some browsers do, as long
// as it is UTF-8.
func TestAPI_JSONWithCharsetAccepted(t *testing.T) {
	f := MustOpenAPI(t)
	ada := emulatortest.SignUp(t)
	for i, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"} {
		r := f.do(t, "POST", "/v1/rooms/charset/join", ada.IDToken, `{"sessionId":"tab-`+string(rune('a'+i))+`"}`, "Content-Type", ct)
		if r.status != 200 {
			t.Errorf("join with Content-Type %q: %d %s", ct, r.status, r.raw)
		}
	}
}
