package httpapi

import (
	"net/http"

	"github.com/rs/cors"
)

// corsPolicy lets browser clients on the allowed origins call the API. Auth
// is a bearer token, not a cookie, so allowing an origin grants it nothing
// a script there could not already do with the user's token.
//
// github.com/rs/cors does the protocol: every answer says Vary: Origin,
// whichever origin asked (a cache must not hand one origin's answer to
// another), and a preflight is answered only for a method and headers
// that are allowed. There is one policy per method an endpoint takes, so
// that a preflight asking for DELETE on a POST endpoint is not approved;
// which endpoint exists is the router's to say (ServeHTTP), so a
// preflight to a path that does not exist gets the 404 its request would.
type corsPolicy struct {
	get, post *cors.Cors
}

func newCORSPolicy(origins []string) corsPolicy {
	base := cors.Options{
		AllowedOrigins: origins,
		AllowedHeaders: []string{"Authorization", "Content-Type", AppCheckHeader, ClientHeader},
		// Retry-After is not a CORS-safelisted response header: without
		// this, a browser client could not read it from a 429.
		ExposedHeaders: []string{"Retry-After", ClientSupportHeader},
		MaxAge:         600,
	}
	if len(origins) == 0 {
		// rs/cors reads an empty list as "any origin"; here it is none.
		base.AllowOriginFunc = func(string) bool { return false }
	}
	get, post := base, base
	get.AllowedMethods = []string{http.MethodGet, http.MethodHead}
	post.AllowedMethods = []string{http.MethodPost}
	return corsPolicy{get: cors.New(get), post: cors.New(post)}
}

// isPreflight reports whether r is a CORS preflight: an OPTIONS request
// naming the method it asks for. Any other OPTIONS request is routed as
// any request is, and gets the 405 or 404 that its path gives it.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// apply answers a preflight for an endpoint that takes method (with 204),
// or sets the CORS headers of an actual request.
func (p corsPolicy) apply(w http.ResponseWriter, r *http.Request, method string) {
	if method == http.MethodPost {
		p.post.HandlerFunc(w, r)
	} else {
		p.get.HandlerFunc(w, r)
	}
}
