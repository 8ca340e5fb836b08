package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// apiFixture is the real API: the handler on the Firestore emulator with
// tokens verified by the Firebase Admin SDK against the Auth emulator.
type apiFixture struct {
	srv    *httptest.Server
	client *firestore.Client
}

func MustOpenAPI(tb testing.TB) *apiFixture {
	tb.Helper()
	return mustOpenAPIWith(tb, auth.Options{})
}

// mustOpenAPIWith is MustOpenAPI with the token verifier's options (its
// clock, for a test that steps past the revocation check's period).
func mustOpenAPIWith(tb testing.TB, authOpts auth.Options) *apiFixture {
	tb.Helper()
	return mustOpenAPIOptions(tb, authOpts, func(*httpapi.Options) {})
}

// mustOpenAPIOptions is mustOpenAPIWith with the handler's options edited
// by edit.
func mustOpenAPIOptions(tb testing.TB, authOpts auth.Options, edit func(*httpapi.Options)) *apiFixture {
	tb.Helper()
	emulatortest.AuthHost(tb)
	client, _ := emulatortest.Firestore(tb)
	verifier, err := auth.NewVerifier(context.Background(), emulatortest.AuthProjectID(), authOpts)
	if err != nil {
		tb.Fatal(err)
	}
	settings := presence.DefaultSettings()
	opts := httpapi.Options{
		Store: firestoredb.New(client, settings, time.Now), Tokens: verifier, Settings: settings,
		AllowedOrigins: []string{"*"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	edit(&opts)
	h := httpapi.New(opts)
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return &apiFixture{srv: srv, client: client}
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (f *apiFixture) do(tb testing.TB, method, path, token string, body string, headers ...string) response {
	tb.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// Each header pair is set; an empty value removes the header (a body
	// sent without Content-Type).
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := response{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			tb.Fatalf("%s %s: response is not JSON: %q", method, path, raw)
		}
	}
	return out
}

func TestAPI_JoinHeartbeatReadLeave(t *testing.T) {
	f := MustOpenAPI(t)
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)

	join := f.do(t, "POST", "/v1/rooms/standup/join", ada.IDToken, `{"sessionId":"tab-1","displayName":"Ada"}`)
	if join.status != 200 {
		t.Fatalf("join: %d %s", join.status, join.raw)
	}
	for _, k := range []string{"roomId", "participantId", "sessionId", "generation", "leaseExpiresAt", "leaseSeconds", "heartbeatSeconds", "revision"} {
		if _, ok := join.body[k]; !ok {
			t.Errorf("join response lacks %q: %s", k, join.raw)
		}
	}
	if join.body["participantId"] != ada.UID || join.body["leaseSeconds"] != 15.0 || join.body["heartbeatSeconds"] != 5.0 {
		t.Fatalf("join response %s", join.raw)
	}
	if _, err := time.Parse(time.RFC3339, join.body["leaseExpiresAt"].(string)); err != nil {
		t.Fatalf("leaseExpiresAt is not RFC 3339: %v", err)
	}
	gen := int64(join.body["generation"].(float64))
	sess := `{"sessionId":"tab-1","generation":` + jsonInt(gen) + `}`

	if hb := f.do(t, "POST", "/v1/rooms/standup/heartbeat", ada.IDToken, sess); hb.status != 200 || hb.body["leaseExpiresAt"] == nil {
		t.Fatalf("heartbeat: %d %s", hb.status, hb.raw)
	}
	stale := `{"sessionId":"tab-1","generation":` + jsonInt(gen-1) + `}`
	if hb := f.do(t, "POST", "/v1/rooms/standup/heartbeat", ada.IDToken, stale); hb.status != 409 || errCode(hb) != "stale_generation" {
		t.Fatalf("stale heartbeat: %d %s", hb.status, hb.raw)
	}

	t.Run("RoomReadIsForParticipantsOnly", func(t *testing.T) {
		if r := f.do(t, "GET", "/v1/rooms/standup", bob.IDToken, ""); r.status != 404 || errCode(r) != "room_not_found" {
			t.Fatalf("non-participant read: %d %s", r.status, r.raw)
		}
		if r := f.do(t, "GET", "/v1/rooms/nowhere", ada.IDToken, ""); r.status != 404 || errCode(r) != "room_not_found" {
			t.Fatalf("unknown room: %d %s", r.status, r.raw)
		}
		r := f.do(t, "GET", "/v1/rooms/standup", ada.IDToken, "")
		ps, _ := r.body["participants"].([]any)
		if r.status != 200 || r.body["state"] != "active" || r.body["revision"] != 1.0 || len(ps) != 1 {
			t.Fatalf("room read: %d %s", r.status, r.raw)
		}
		p := ps[0].(map[string]any)
		if p["participantId"] != ada.UID || p["displayName"] != "Ada" || p["sessionCount"] != 1.0 || p["joinedAt"] == nil {
			t.Fatalf("roster entry %v", p)
		}
	})

	if l := f.do(t, "POST", "/v1/rooms/standup/leave", ada.IDToken, sess); l.status != 200 || l.body["removed"] != true {
		t.Fatalf("leave: %d %s", l.status, l.raw)
	}
	if l := f.do(t, "POST", "/v1/rooms/standup/leave", ada.IDToken, sess); l.status != 200 || l.body["removed"] != false {
		t.Fatalf("second leave: %d %s", l.status, l.raw)
	}
}

// The participant id is the token's uid: a body cannot name another user.
func TestAPI_ParticipantComesFromTheToken(t *testing.T) {
	f := MustOpenAPI(t)
	ada := emulatortest.SignUp(t)
	r := f.do(t, "POST", "/v1/rooms/r/join", ada.IDToken, `{"sessionId":"s","participantId":"someone-else"}`)
	if r.status != 400 || errCode(r) != "invalid_argument" {
		t.Fatalf("a body naming a participant: %d %s", r.status, r.raw)
	}
}

func TestAPI_CORSPreflight(t *testing.T) {
	f := MustOpenAPI(t)
	r := f.do(t, "OPTIONS", "/v1/rooms/r/join", "", "", "Origin", "http://127.0.0.1:5173", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type")
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "authorization") {
		t.Fatalf("preflight: %d %v", r.status, r.header)
	}
}

func TestAPI_Healthz(t *testing.T) {
	f := MustOpenAPI(t)
	if r := f.do(t, "GET", "/healthz", "", ""); r.status != 200 || r.body["status"] != "ok" {
		t.Fatalf("healthz: %d %s", r.status, r.raw)
	}
}

func errCode(r response) string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestAPI_TypingAndReceipts(t *testing.T) {
	f := MustOpenAPI(t)
	ada := emulatortest.SignUp(t)
	join := f.do(t, "POST", "/v1/rooms/chat/join", ada.IDToken, `{"sessionId":"tab"}`)
	if join.status != 200 {
		t.Fatalf("join: %d %s", join.status, join.raw)
	}
	gen := jsonInt(int64(join.body["generation"].(float64)))

	if r := f.do(t, "POST", "/v1/rooms/chat/typing", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"typing":true}`); r.status != 204 || r.raw != "" {
		t.Fatalf("typing: %d %q", r.status, r.raw)
	}
	if r := f.do(t, "POST", "/v1/rooms/chat/typing", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`}`); r.status != 400 {
		t.Fatalf("typing without a value: %d %s", r.status, r.raw)
	}
	if r := f.do(t, "POST", "/v1/rooms/chat/typing", ada.IDToken, `{"sessionId":"tab","generation":1,"typing":true}`); r.status != 409 || errCode(r) != "stale_generation" {
		t.Fatalf("typing from a stale generation: %d %s", r.status, r.raw)
	}
	for _, step := range []struct{ send, want float64 }{{7, 7}, {4, 7}, {9, 9}} {
		r := f.do(t, "POST", "/v1/rooms/chat/receipts", ada.IDToken, `{"lastReadSeq":`+jsonInt(int64(step.send))+`}`)
		if r.status != 200 || r.body["lastReadSeq"] != step.want {
			t.Fatalf("receipt %v: %d %s, want %v", step.send, r.status, r.raw, step.want)
		}
	}
	bob := emulatortest.SignUp(t)
	if r := f.do(t, "POST", "/v1/rooms/chat/receipts", bob.IDToken, `{"lastReadSeq":1}`); r.status != 403 {
		t.Fatalf("receipt from a non-participant: %d %s", r.status, r.raw)
	}
}
