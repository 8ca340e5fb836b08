package httpapi_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/httpapi"
)

// CORS as browsers and caches need it, with one allowed origin.
func TestAPI_CORS(t *testing.T) {
	f, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) { o.AllowedOrigins = []string{"https://app.example"} })
	varies := func(r response) bool {
		for _, v := range r.header.Values("Vary") {
			for _, part := range strings.Split(v, ",") {
				if strings.TrimSpace(part) == "Origin" {
					return true
				}
			}
		}
		return false
	}

	t.Run("AllowedOrigin", func(t *testing.T) {
		r := f.do(t, "GET", "/v1/config", "", "", "Origin", "https://app.example")
		if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example" || !varies(r) ||
			!strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "Retry-After") {
			t.Fatalf("GET from the allowed origin: %d %v", r.status, r.header)
		}
	})
	// An answer without CORS headers must say it depends on Origin too, or
	// a shared cache may hand it to the allowed origin, whose browser then
	// refuses it.
	t.Run("VaryOnEveryAnswer", func(t *testing.T) {
		for _, origin := range []string{"https://evil.example", ""} {
			r := f.do(t, "GET", "/v1/config", "", "", "Origin", origin)
			if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" || !varies(r) {
				t.Fatalf("GET with Origin %q: %d, Allow-Origin %q, Vary %q; want no Allow-Origin and Vary: Origin",
					origin, r.status, r.header.Get("Access-Control-Allow-Origin"), r.header.Values("Vary"))
			}
		}
	})
	t.Run("PreflightNamesTheMethodAsked", func(t *testing.T) {
		r := f.do(t, "OPTIONS", "/v1/rooms/x/join", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
		if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example" || r.header.Get("Access-Control-Allow-Methods") != "POST" {
			t.Fatalf("preflight for POST: %d %v", r.status, r.header)
		}
	})
	// A preflight is approved for what the endpoint takes, not for any
	// method it names.
	t.Run("PreflightForAMethodTheEndpointDoesNotTake", func(t *testing.T) {
		for path, method := range map[string]string{"/v1/rooms/x/join": "DELETE", "/v1/rooms/x/heartbeat": "GET", "/v1/config": "POST"} {
			r := f.do(t, "OPTIONS", path, "", "", "Origin", "https://app.example", "Access-Control-Request-Method", method)
			if r.header.Get("Access-Control-Allow-Origin") != "" || r.header.Get("Access-Control-Allow-Methods") != "" {
				t.Fatalf("preflight for %s %s approved: %d %v", method, path, r.status, r.header)
			}
		}
	})
	t.Run("PreflightForAHeaderNotAllowed", func(t *testing.T) {
		r := f.do(t, "OPTIONS", "/v1/rooms/x/join", "", "", "Origin", "https://app.example",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,x-something-else")
		if r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("preflight for an unknown header approved: %v", r.header)
		}
	})
	t.Run("PreflightFromAnotherOrigin", func(t *testing.T) {
		r := f.do(t, "OPTIONS", "/v1/rooms/x/join", "", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
		if r.header.Get("Access-Control-Allow-Origin") != "" || !varies(r) {
			t.Fatalf("preflight from another origin: %d %v", r.status, r.header)
		}
	})
	// OPTIONS is not an endpoint: a path with none is 404, and OPTIONS
	// that is no preflight is a method the endpoint does not take.
	t.Run("OptionsIsNoWildcard", func(t *testing.T) {
		r := f.do(t, "OPTIONS", "/v1/nothing/here", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
		if r.status != 404 || errCode(r) != "not_found" {
			t.Fatalf("preflight to a path with no endpoint: %d %s", r.status, r.raw)
		}
		r = f.do(t, "OPTIONS", "/v1/rooms/x/join", "", "")
		if r.status != 405 || errCode(r) != "method_not_allowed" {
			t.Fatalf("OPTIONS without Access-Control-Request-Method: %d %s", r.status, r.raw)
		}
	})
	t.Run("NoOriginsAllowed", func(t *testing.T) {
		none, _ := mustOpenGuardedAPI(t, func(o *httpapi.Options) { o.AllowedOrigins = nil })
		r := none.do(t, "GET", "/v1/config", "", "", "Origin", "https://app.example")
		if r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("no allowed origins, yet Allow-Origin %q", r.header.Get("Access-Control-Allow-Origin"))
		}
	})
}
