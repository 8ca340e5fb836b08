package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/appcheck"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/internal/appchecktest"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// GET /v1/config names the database clients must listen to, and answers
// before a client has signed in: no token, no App Check token.
func TestAPI_Config(t *testing.T) {
	appchecktest.Start(t)
	f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) {
		o.ProjectID, o.Database = "demo-handshake", "roomlease-test"
		// Enforced, so that a room request without an App Check token
		// would be refused: the config must not be.
		o.AppCheckMode, o.AppCheck = httpapi.AppCheckEnforce, appcheck.NewVerifier(emulatortest.AuthProjectID(), time.Now)
	})

	t.Run("OK", func(t *testing.T) {
		r := f.do(t, "GET", "/v1/config", "", "")
		if r.status != 200 {
			t.Fatalf("GET /v1/config without any token: %d %s", r.status, r.raw)
		}
		want := map[string]any{"projectId": "demo-handshake", "database": "roomlease-test", "heartbeatSeconds": 5.0, "leaseSeconds": 15.0, "recentlyLeftSeconds": 120.0}
		if len(r.body) != len(want) {
			t.Fatalf("config %s, want exactly %v", r.raw, want)
		}
		for k, v := range want {
			if r.body[k] != v {
				t.Fatalf("config %s: %s is %v, want %v", r.raw, k, r.body[k], v)
			}
		}
	})
	t.Run("CORS", func(t *testing.T) {
		r := f.do(t, "GET", "/v1/config", "", "", "Origin", "https://app.example")
		if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("cross-origin config: %d %v", r.status, r.header)
		}
	})
	t.Run("ErrMethodNotAllowed", func(t *testing.T) {
		r := f.do(t, "DELETE", "/v1/config", "", "")
		if r.status != 405 || errCode(r) != "method_not_allowed" || !strings.HasPrefix(r.header.Get("Allow"), "GET") {
			t.Fatalf("DELETE /v1/config: %d %s, Allow %q", r.status, r.raw, r.header.Get("Allow"))
		}
	})
}

// Without a database named in the options, the handler reports the one
// the Firebase SDKs open by default.
func TestAPI_ConfigDefaultDatabase(t *testing.T) {
	f := MustOpenAPI(t)
	if r := f.do(t, "GET", "/v1/config", "", ""); r.status != 200 || r.body["database"] != "(default)" {
		t.Fatalf("config: %d %s", r.status, r.raw)
	}
}

// The join reply names the same database as /v1/config, so that a client
// that joined can tell where its listeners belong without asking again.
func TestAPI_JoinNamesTheDatabase(t *testing.T) {
	f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) { o.Database = "roomlease-test" })
	ada := emulatortest.SignUp(t)
	join := f.do(t, "POST", "/v1/rooms/standup/join", ada.IDToken, `{"sessionId":"tab-1"}`)
	if join.status != 200 || join.body["database"] != "roomlease-test" {
		t.Fatalf("join: %d %s, want database roomlease-test", join.status, join.raw)
	}
}

// A server on the emulators says where they are, in the shape the Firebase
// SDKs take them, so that an app connects to them exactly when the server
// uses them; a server on the real services says nothing of emulators.
func TestAPI_ConfigEmulators(t *testing.T) {
	t.Run("OnTheEmulators", func(t *testing.T) {
		f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) {
			o.Emulators = httpapi.Emulators{Firestore: "127.0.0.1:18080", Auth: "127.0.0.1:19099"}
		})
		r := f.do(t, "GET", "/v1/config", "", "")
		if r.status != 200 {
			t.Fatalf("GET /v1/config: %d %s", r.status, r.raw)
		}
		emu, _ := r.body["emulators"].(map[string]any)
		fs, _ := emu["firestore"].(map[string]any)
		au, _ := emu["auth"].(map[string]any)
		if fs["host"] != "127.0.0.1" || fs["port"] != 18080.0 || au["url"] != "http://127.0.0.1:19099" {
			t.Fatalf("config %s: want emulators.firestore {127.0.0.1, 18080} and emulators.auth.url http://127.0.0.1:19099", r.raw)
		}
	})
	t.Run("FirestoreOnly", func(t *testing.T) {
		f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) { o.Emulators = httpapi.Emulators{Firestore: "[::1]:8080"} })
		r := f.do(t, "GET", "/v1/config", "", "")
		emu, _ := r.body["emulators"].(map[string]any)
		fs, _ := emu["firestore"].(map[string]any)
		if _, hasAuth := emu["auth"]; r.status != 200 || fs["host"] != "::1" || fs["port"] != 8080.0 || hasAuth {
			t.Fatalf("config %d %s: want the Firestore emulator at ::1 port 8080 and no auth", r.status, r.raw)
		}
	})
	t.Run("InProduction", func(t *testing.T) {
		f := MustOpenAPI(t)
		r := f.do(t, "GET", "/v1/config", "", "")
		if _, ok := r.body["emulators"]; r.status != 200 || ok {
			t.Fatalf("config %d %s: a server on no emulator must not name any", r.status, r.raw)
		}
	})
}
