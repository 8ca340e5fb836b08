package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

func TestParseVersion_OrdersAsSemver(t *testing.T) {
	ordered := []string{"0.1.0-rc.1", "0.1.0", "0.1.1", "0.2.0", "0.10.0", "1.0.0-alpha", "1.0.0-beta", "1.0.0", "2.0.0"}
	for i := range ordered {
		for j := range ordered {
			a, err := httpapi.ParseVersion(ordered[i])
			if err != nil {
				t.Fatal(err)
			}
			b, _ := httpapi.ParseVersion(ordered[j])
			if got, want := a.Less(b), i < j; got != want {
				t.Errorf("%s < %s = %v, want %v", ordered[i], ordered[j], got, want)
			}
		}
	}
	if v, err := httpapi.ParseVersion("1.2.3+build.7"); err != nil || v.String() != "1.2.3" {
		t.Errorf("build metadata: got %v, %v; want 1.2.3", v, err)
	}
	for _, bad := range []string{"", "1", "1.2", "1.2.3.4", "v1.2.3", "1.02.3", "1.2.-3", "1.2.3-", "a.b.c"} {
		if _, err := httpapi.ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted it", bad)
		}
	}
}

func TestParseMinClientVersions(t *testing.T) {
	m, err := httpapi.ParseMinClientVersions(" js/0.2.0, go/1.0.0-rc.1")
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m["js"].String() != "0.2.0" || m["go"].String() != "1.0.0-rc.1" {
		t.Errorf("got %v", m)
	}
	if m, err := httpapi.ParseMinClientVersions(""); err != nil || len(m) != 0 {
		t.Errorf("empty: %v, %v; want no minimum", m, err)
	}
	for _, bad := range []string{"0.2.0", "js", "js/", "JS/0.2.0", "js/0.2", "js/0.2.0,js/0.3.0", "js/0.2.0,"} {
		if _, err := httpapi.ParseMinClientVersions(bad); err == nil {
			t.Errorf("ParseMinClientVersions(%q) accepted it", bad)
		}
	}
}

// Through the handler: the reply says whether the client is served, a
// client below its kind's minimum gets 426 before anything is read or
// written (no token is even needed to learn it), and everyone else is
// served as before.
func TestAPI_ClientVersions(t *testing.T) {
	mins, err := httpapi.ParseMinClientVersions("js/0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	f := mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) { o.MinClientVersions = mins })
	ada := emulatortest.SignUp(t)

	for _, tc := range []struct {
		name, header string
		status       int
		support      string
	}{
		{"CurrentJS", "js/0.2.0", 200, "supported"},
		{"NewerJS", "js/1.0.0", 200, "supported"},
		{"KindWithoutMinimum", "go/0.0.1", 200, "supported"},
		{"NoHeader", "", 200, "unknown"},
		{"Unreadable", "js 0.2", 200, "unknown"},
		{"OlderJS", "js/0.1.9", 426, "unsupported; minimum=0.2.0"},
		{"PreReleaseOfTheMinimum", "js/0.2.0-rc.1", 426, "unsupported; minimum=0.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			room := "client-version-" + strings.ToLower(tc.name)
			r := f.do(t, "POST", "/v1/rooms/"+room+"/join", ada.IDToken, `{"sessionId":"s1"}`, httpapi.ClientHeader, tc.header)
			if r.status != tc.status {
				t.Fatalf("join with %s %q: %d %s, want %d", httpapi.ClientHeader, tc.header, r.status, r.raw, tc.status)
			}
			if got := r.header.Get(httpapi.ClientSupportHeader); got != tc.support {
				t.Errorf("%s = %q, want %q", httpapi.ClientSupportHeader, got, tc.support)
			}
			if tc.status == http.StatusUpgradeRequired {
				if errCode(r) != "client_too_old" {
					t.Errorf("code = %q, want client_too_old (%s)", errCode(r), r.raw)
				}
				if roomExists(t, f.client, room) {
					t.Error("a refused client's join wrote the room")
				}
			}
		})
	}

	t.Run("ConfigTellsAnOldClientToo", func(t *testing.T) {
		r := f.do(t, "GET", "/v1/config", "", "", httpapi.ClientHeader, "js/0.1.0")
		if r.status != http.StatusUpgradeRequired || errCode(r) != "client_too_old" {
			t.Fatalf("GET /v1/config from an old client: %d %s", r.status, r.raw)
		}
	})
	t.Run("HealthzIsNoClients", func(t *testing.T) {
		if r := f.do(t, "GET", "/healthz", "", "", httpapi.ClientHeader, "js/0.1.0"); r.status != 200 {
			t.Fatalf("healthz: %d %s", r.status, r.raw)
		}
	})
	t.Run("BrowsersMaySendAndReadTheHeaders", func(t *testing.T) {
		pre := f.do(t, "OPTIONS", "/v1/rooms/x/join", "", "", "Origin", "https://app.example.com",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type,roomlease-client")
		if !strings.Contains(strings.ToLower(pre.header.Get("Access-Control-Allow-Headers")), strings.ToLower(httpapi.ClientHeader)) {
			t.Errorf("preflight allows %q, not %s", pre.header.Get("Access-Control-Allow-Headers"), httpapi.ClientHeader)
		}
		r := f.do(t, "GET", "/v1/config", "", "", "Origin", "https://app.example.com", httpapi.ClientHeader, "js/0.2.0")
		if !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), httpapi.ClientSupportHeader) {
			t.Errorf("Access-Control-Expose-Headers = %q: a browser could not read %s", r.header.Get("Access-Control-Expose-Headers"), httpapi.ClientSupportHeader)
		}
	})
}

// With no minimum (the default) every client is served, old or not.
func TestAPI_ClientVersions_NoMinimumServesAll(t *testing.T) {
	f := MustOpenAPI(t)
	r := f.do(t, "GET", "/v1/config", "", "", httpapi.ClientHeader, "js/0.0.1")
	if r.status != 200 || r.header.Get(httpapi.ClientSupportHeader) != "supported" {
		t.Fatalf("no minimum: %d %q %s", r.status, r.header.Get(httpapi.ClientSupportHeader), r.raw)
	}
}
