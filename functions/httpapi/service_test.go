package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/appcheck"
	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/oidctest"
)

const (
	backendSA       = "support-backend@app.iam.gserviceaccount.com"
	serviceAudience = "https://roomlease.example/api"
)

// mustOpenServiceAPI is the API with service reads on for backendSA, its
// tokens checked against google's key set, and edit applied last.
func mustOpenServiceAPI(t *testing.T, google *oidctest.Google, edit func(*httpapi.Options)) *apiFixture {
	t.Helper()
	services, err := auth.NewServiceVerifier(context.Background(), auth.ServiceOptions{
		Accounts: []string{backendSA}, Audience: serviceAudience, KeysURL: google.KeysURL})
	if err != nil {
		t.Fatal(err)
	}
	return mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) {
		o.ServiceTokens = services
		o.ServiceRosters = o.Store.(*firestoredb.Store)
		edit(o)
	})
}

// A backend reads the roster of a room it is not in with its service
// account's ID token; nobody else gets in by that door.
func TestAPI_ServiceReadsAnyRoster(t *testing.T) {
	google := oidctest.NewGoogle(t)
	f := mustOpenServiceAPI(t, google, func(*httpapi.Options) {})
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)
	if r := f.do(t, "POST", "/v1/rooms/support-42/join", ada.IDToken, `{"sessionId":"tab","displayName":"Ada"}`); r.status != 200 {
		t.Fatalf("join: %d %s", r.status, r.raw)
	}
	listed := google.Token(t, oidctest.Claims{Audience: serviceAudience, Email: backendSA})

	t.Run("ListedAccount", func(t *testing.T) {
		r := f.do(t, "GET", "/v1/rooms/support-42", listed, "")
		if r.status != 200 {
			t.Fatalf("service read: %d %s", r.status, r.raw)
		}
		ps := r.body["participants"].([]any)
		if len(ps) != 1 || ps[0].(map[string]any)["participantId"] != ada.UID || r.body["revision"] == nil {
			t.Fatalf("service read: %s, want Ada alone with a revision", r.raw)
		}
		// participantSeqs ties the snapshot to the events (eventfold's
		// Seed): an object, whatever the room's events.
		if _, ok := r.body["participantSeqs"].(map[string]any); !ok {
			t.Fatalf("service read: %s, want participantSeqs, an object", r.raw)
		}
		// lifetime is the room's createdAt, to the microsecond.
		snap, err := f.client.Collection(firestoredb.RoomsCollection).Doc("support-42").Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		created := snap.Data()["createdAt"].(time.Time)
		got, err := time.Parse(time.RFC3339Nano, r.body["lifetime"].(string))
		if err != nil || !got.Equal(created.Truncate(time.Microsecond)) {
			t.Fatalf("lifetime %v (%v), want the room's createdAt %v", r.body["lifetime"], err, created)
		}
	})
	t.Run("AbsentRoomIs404", func(t *testing.T) {
		if r := f.do(t, "GET", "/v1/rooms/nowhere", listed, ""); r.status != 404 || errCode(r) != presence.ENotFound {
			t.Fatalf("absent room: %d %s", r.status, r.raw)
		}
	})
	// A user who is not in the room is refused as before: the outsiders'
	// one answer, whatever the room's state (outsider_test.go).
	t.Run("FirebaseTokenOfANonMember", func(t *testing.T) {
		if r := f.do(t, "GET", "/v1/rooms/support-42", bob.IDToken, ""); r.status != 404 || errCode(r) != presence.ENotFound {
			t.Fatalf("non-member: %d %s", r.status, r.raw)
		}
	})
	t.Run("UnlistedAccountIs403", func(t *testing.T) {
		tok := google.Token(t, oidctest.Claims{Audience: serviceAudience, Email: "other@app.iam.gserviceaccount.com"})
		if r := f.do(t, "GET", "/v1/rooms/support-42", tok, ""); r.status != 403 || errCode(r) != presence.EForbidden {
			t.Fatalf("unlisted account: %d %s", r.status, r.raw)
		}
	})
	t.Run("WrongAudienceIs401", func(t *testing.T) {
		tok := google.Token(t, oidctest.Claims{Audience: "https://another-service.example", Email: backendSA})
		r := f.do(t, "GET", "/v1/rooms/support-42", tok, "")
		if r.status != 401 || errCode(r) != presence.EUnauthenticated || r.header.Get("WWW-Authenticate") == "" {
			t.Fatalf("wrong audience: %d %s", r.status, r.raw)
		}
	})
	t.Run("ForgedSignatureIs401", func(t *testing.T) {
		tok := google.ForeignToken(t, oidctest.Claims{Audience: serviceAudience, Email: backendSA})
		if r := f.do(t, "GET", "/v1/rooms/support-42", tok, ""); r.status != 401 {
			t.Fatalf("forged: %d %s", r.status, r.raw)
		}
	})
	// A service only reads: a join with its token is refused and writes
	// nothing (the revision does not move).
	t.Run("NoOtherAction", func(t *testing.T) {
		before := f.do(t, "GET", "/v1/rooms/support-42", listed, "")
		for _, action := range []string{"join", "heartbeat", "leave", "state", "typing", "receipts"} {
			r := f.do(t, "POST", "/v1/rooms/support-42/"+action, listed, `{"sessionId":"svc","generation":1}`)
			if r.status != 403 || errCode(r) != presence.EForbidden {
				t.Errorf("%s with a service token: %d %s, want 403", action, r.status, r.raw)
			}
		}
		after := f.do(t, "GET", "/v1/rooms/support-42", listed, "")
		if before.body["revision"] != after.body["revision"] || len(after.body["participants"].([]any)) != 1 {
			t.Fatalf("refused actions changed the room: %s then %s", before.raw, after.raw)
		}
	})
}

// App Check proves an app on a device; a backend has none, and its
// Google-signed token stands instead. Users still need App Check.
func TestAPI_ServiceReadsNeedNoAppCheck(t *testing.T) {
	google := oidctest.NewGoogle(t)
	f := mustOpenServiceAPI(t, google, func(o *httpapi.Options) {
		o.AppCheckMode, o.AppCheck = httpapi.AppCheckEnforce, appcheck.NewVerifier(emulatortest.AuthProjectID(), time.Now)
	})
	ada := emulatortest.SignUp(t)
	if r := f.do(t, "POST", "/v1/rooms/ac/join", ada.IDToken, `{"sessionId":"tab"}`); r.status != 401 || errCode(r) != "app_check_failed" {
		t.Fatalf("a user without App Check: %d %s, want 401 app_check_failed", r.status, r.raw)
	}
	tok := google.Token(t, oidctest.Claims{Audience: serviceAudience, Email: backendSA})
	if r := f.do(t, "GET", "/v1/rooms/ac", tok, ""); r.status != 404 || errCode(r) != presence.ENotFound {
		t.Fatalf("service read under App Check enforcement: %d %s, want the room's 404", r.status, r.raw)
	}
}

// Without service reads configured, a Google ID token is just a token the
// Firebase verifier refuses.
func TestAPI_ServiceReadsOff(t *testing.T) {
	google := oidctest.NewGoogle(t)
	f := MustOpenAPI(t)
	tok := google.Token(t, oidctest.Claims{Audience: serviceAudience, Email: backendSA})
	if r := f.do(t, "GET", "/v1/rooms/any", tok, ""); r.status != 401 || errCode(r) != presence.EUnauthenticated {
		t.Fatalf("service token with service reads off: %d %s, want 401", r.status, r.raw)
	}
}
