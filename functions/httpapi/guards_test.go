package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/appcheck"
	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/internal/appchecktest"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
	"github.com/roomlease/roomlease/internal/testlog"
)

// mustOpenGuardedAPI is MustOpenAPI with the options set by configure, and
// the log kept.
func mustOpenGuardedAPI(tb testing.TB, configure func(*httpapi.Options)) (*apiFixture, *testlog.Buffer) {
	tb.Helper()
	return mustOpenGuardedAPIWith(tb, auth.Options{}, configure)
}

// mustOpenGuardedAPIWith is mustOpenGuardedAPI with the token verifier's
// options; the verifier logs to the same buffer as the handler.
func mustOpenGuardedAPIWith(tb testing.TB, authOpts auth.Options, configure func(*httpapi.Options)) (*apiFixture, *testlog.Buffer) {
	tb.Helper()
	emulatortest.AuthHost(tb)
	client, _ := emulatortest.Firestore(tb)
	logs := &testlog.Buffer{}
	authOpts.Logger = logging.New(logs, nil)
	verifier, err := auth.NewVerifier(context.Background(), emulatortest.AuthProjectID(), authOpts)
	if err != nil {
		tb.Fatal(err)
	}
	settings := presence.DefaultSettings()
	o := httpapi.Options{
		Store: firestoredb.New(client, settings, time.Now), Tokens: verifier, Settings: settings,
		AllowedOrigins: []string{"*"}, Logger: logging.New(logs, nil),
	}
	configure(&o)
	srv := httptest.NewServer(httpapi.New(o))
	tb.Cleanup(srv.Close)
	return &apiFixture{srv: srv, client: client}, logs
}

// roomExists reads rooms/{id} directly: a refused request must write nothing.
func roomExists(tb testing.TB, client *firestore.Client, roomID string) bool {
	tb.Helper()
	_, err := client.Collection("rooms").Doc(roomID).Get(context.Background())
	switch {
	case err == nil:
		return true
	case status.Code(err) == codes.NotFound:
		return false
	}
	tb.Fatalf("reading rooms/%s: %v", roomID, err)
	return false
}

// Each mode end to end through the handler, with tokens verified by the
// Admin SDK against a local key set: a valid token, none, an expired one,
// one for another project, and one signed by another key.
func TestAPI_AppCheckModes(t *testing.T) {
	iss := appchecktest.Start(t)
	project := emulatortest.AuthProjectID()
	cases := []struct {
		name, token, reason string // reason: the log field appCheck, "" when valid
	}{
		{"Valid", iss.Valid(t, project), ""},
		{"Missing", "", "missing"},
		{"Expired", iss.Token(t, project, time.Now().Add(-time.Minute)), "invalid"},
		{"WrongProject", iss.Valid(t, "another-project"), "invalid"},
		{"Forged", iss.Forged(t, project), "invalid"},
	}
	for _, mode := range []httpapi.AppCheckMode{httpapi.AppCheckOff, httpapi.AppCheckMonitor, httpapi.AppCheckEnforce} {
		t.Run(string(mode), func(t *testing.T) {
			f, logs := mustOpenGuardedAPI(t, func(o *httpapi.Options) {
				o.AppCheckMode = mode
				if mode != httpapi.AppCheckOff {
					o.AppCheck = appcheck.NewVerifier(project, time.Now)
				}
			})
			ada := emulatortest.SignUp(t)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					room := "ac-" + strings.ToLower(tc.name)
					var hdr []string
					if tc.token != "" {
						hdr = []string{httpapi.AppCheckHeader, tc.token}
					}
					before := len(logs.Lines(t, map[string]any{"message": "request without a valid App Check token"}))
					r := f.do(t, "POST", "/v1/rooms/"+room+"/join", ada.IDToken, `{"sessionId":"s-`+tc.name+`"}`, hdr...)

					refused := mode == httpapi.AppCheckEnforce && tc.reason != ""
					if refused {
						if r.status != 401 || errCode(r) != "app_check_failed" {
							t.Fatalf("join: %d %s, want 401 app_check_failed", r.status, r.raw)
						}
						if tc.token != "" && strings.Contains(r.raw, tc.token) {
							t.Errorf("the answer repeats the token: %s", r.raw)
						}
						if roomExists(t, f.client, room) {
							t.Error("a refused join wrote the room")
						}
					} else if r.status != 200 {
						t.Fatalf("join: %d %s, want 200", r.status, r.raw)
					}

					got := logs.Lines(t, map[string]any{"message": "request without a valid App Check token"})[before:]
					wantLogged := mode != httpapi.AppCheckOff && tc.reason != ""
					if !wantLogged {
						if len(got) != 0 {
							t.Fatalf("logged %v, want nothing", got)
						}
						return
					}
					if len(got) != 1 {
						t.Fatalf("%d App Check lines for one request, want 1; log:\n%s", len(got), logs)
					}
					line := got[0]
					if line["severity"] != "WARNING" || line["appCheck"] != tc.reason ||
						line["appCheckMode"] != string(mode) || line["component"] != "api" || line["action"] != "join" {
						t.Errorf("log line %v: want WARNING, appCheck=%s, appCheckMode=%s, component=api, action=join", line, tc.reason, mode)
					}
					raw, _ := json.Marshal(line)
					if tc.token != "" && strings.Contains(string(raw), tc.token) {
						t.Errorf("the log line contains the token")
					}
					if strings.Contains(string(raw), room) {
						t.Errorf("the log line names the room")
					}
				})
			}
			t.Run("HealthAndPreflightExempt", func(t *testing.T) {
				if r := f.do(t, "GET", "/healthz", "", ""); r.status != 200 {
					t.Fatalf("healthz without App Check: %d %s", r.status, r.raw)
				}
				r := f.do(t, "OPTIONS", "/v1/rooms/x/join", "", "", "Origin", "https://app.example.com",
					"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type, x-firebase-appcheck")
				if r.status != 204 {
					t.Fatalf("preflight: %d %s", r.status, r.raw)
				}
				if allow := r.header.Get("Access-Control-Allow-Headers"); !strings.Contains(strings.ToLower(allow), strings.ToLower(httpapi.AppCheckHeader)) {
					t.Fatalf("preflight allows headers %q, not %s", allow, httpapi.AppCheckHeader)
				}
			})
		})
	}
}

// In enforce mode, a key set that cannot be fetched refuses with 503
// (retry), like an ID token that cannot be checked; in monitor mode the
// request goes through and the line says "unverified".
func TestAPI_AppCheckKeysUnreachable(t *testing.T) {
	iss := appchecktest.Start(t)
	project := emulatortest.AuthProjectID()
	token := iss.Valid(t, project)
	iss.SetDown(true)
	for _, tc := range []struct {
		mode   httpapi.AppCheckMode
		status int
	}{{httpapi.AppCheckMonitor, 200}, {httpapi.AppCheckEnforce, 503}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			f, logs := mustOpenGuardedAPI(t, func(o *httpapi.Options) {
				o.AppCheckMode, o.AppCheck = tc.mode, appcheck.NewVerifier(project, time.Now)
			})
			ada := emulatortest.SignUp(t)
			r := f.do(t, "POST", "/v1/rooms/keys-down/join", ada.IDToken, `{"sessionId":"s"}`, httpapi.AppCheckHeader, token)
			if r.status != tc.status {
				t.Fatalf("join: %d %s, want %d", r.status, r.raw, tc.status)
			}
			if n := len(logs.Lines(t, map[string]any{"appCheck": "unverified"})); n != 1 {
				t.Fatalf("%d unverified lines, want 1; log:\n%s", n, logs)
			}
		})
	}
}

// Over the limit: 429 rate_limited with Retry-After in whole seconds
// (rounded up), nothing written; other users unaffected; admitted again once
// the wait is over. The limiter runs on a test clock, so no sleeps.
func TestAPI_RateLimit(t *testing.T) {
	clock := testclock.New(testclock.Start)
	// Burst 2, then one request every 2.5 s.
	lim, err := ratelimit.New(ratelimit.Config{Rate: 0.4, Burst: 2, MaxKeys: 100}, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) { o.RateLimiter = lim })
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)

	for i := range 2 {
		if r := f.do(t, "GET", "/v1/rooms/nowhere", ada.IDToken, ""); r.status != 404 {
			t.Fatalf("request %d within the burst: %d %s", i+1, r.status, r.raw)
		}
	}
	r := f.do(t, "POST", "/v1/rooms/limited/join", ada.IDToken, `{"sessionId":"s"}`, "Origin", "https://app.example.com")
	if r.status != 429 || errCode(r) != "rate_limited" {
		t.Fatalf("join over the limit: %d %s, want 429 rate_limited", r.status, r.raw)
	}
	if got := r.header.Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After = %q, want \"3\" (2.5 s rounded up)", got)
	}
	if got := r.header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Retry-After") {
		t.Errorf("Access-Control-Expose-Headers = %q: a browser could not read Retry-After", got)
	}
	if roomExists(t, f.client, "limited") {
		t.Fatal("a rate-limited join wrote the room")
	}
	if r := f.do(t, "POST", "/v1/rooms/limited/join", bob.IDToken, `{"sessionId":"s"}`); r.status != 200 {
		t.Fatalf("bob, under his own limit: %d %s", r.status, r.raw)
	}

	clock.Advance(2400 * time.Millisecond)
	if r := f.do(t, "POST", "/v1/rooms/limited/join", ada.IDToken, `{"sessionId":"s"}`); r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("100 ms before the token: %d Retry-After=%q, want 429 with 1 (at least one second)", r.status, r.header.Get("Retry-After"))
	}
	clock.Advance(100 * time.Millisecond)
	if r := f.do(t, "POST", "/v1/rooms/limited/join", ada.IDToken, `{"sessionId":"s"}`); r.status != 200 {
		t.Fatalf("after the wait: %d %s", r.status, r.raw)
	}
}
