// Package httpapi is roomlease's HTTP face: routing, the gates in front of
// every room action (the per-address rate limit, App Check, authentication,
// the per-user rate limit; guards.go), strict decoding, and the one table
// that maps errors to statuses. Handlers are thin: decode, call the presence
// store (which validates the request), encode.
package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/steptime"
)

// TokenVerifier turns a Firebase ID token into a uid. It returns
// EUnauthenticated for tokens that are not valid.
type TokenVerifier interface {
	VerifyIDToken(ctx context.Context, idToken string) (presence.Identity, error)
}

// RequestTimeout bounds the work done for one request.
const RequestTimeout = 20 * time.Second

// Options configure a Handler.
type Options struct {
	Store    presence.Store
	Tokens   TokenVerifier
	Settings presence.Settings // told to clients on join
	// ProjectID and Database name the Firestore database the store uses:
	// clients listen there, and learn it from GET /v1/config and the join
	// reply. Database "" is "(default)".
	ProjectID      string
	Database       string
	AllowedOrigins []string // CORS; "*" allows any origin
	Logger         *slog.Logger
	// AppCheckMode says what happens to requests without a valid App
	// Check token (default off); AppCheck verifies tokens and is only
	// used when the mode is not off.
	AppCheckMode AppCheckMode
	AppCheck     AppCheckVerifier
	// RateLimiter, if set, limits each user's requests (per instance).
	RateLimiter RateLimiter
	// IPRateLimiter, if set, limits each client address's requests (per
	// instance), before any other gate (see clientKey for the address).
	IPRateLimiter RateLimiter
	// StateRateLimiter, if set, limits each user's chosen changes (per
	// instance), on top of RateLimiter: state updates, and a join's new
	// state, name or mode and an away toggle that change the roster
	// (presence.Allowance). Every visible change is read by every listener
	// in the room.
	StateRateLimiter RateLimiter
	// AllowClientNames lets a client's displayName win over the name its
	// ID token carries (ROOMLEASE_CLIENT_NAMES=allow); by default the
	// token's name is shown (presence.ShownName).
	AllowClientNames bool
	// MinClientVersions refuses clients older than these (426
	// client_too_old); nil serves every version (clientversion.go).
	MinClientVersions MinClientVersions
	// Emulators, on a local server, are told to clients in GET
	// /v1/config; the zero value (a deployment) tells nothing.
	Emulators Emulators
	// ServiceTokens and ServiceRosters, both set or neither, let the
	// listed backend services read any room's roster with a Google ID
	// token (service.go); nil: only members read rosters.
	ServiceTokens  ServiceTokenVerifier
	ServiceRosters ServiceRosterReader
	// ServerTiming answers room requests with a Server-Timing header: how
	// long the gates and each store step took (servertiming.go).
	ServerTiming bool
}

// Handler serves the client API.
type Handler struct {
	store    presence.Store
	tokens   TokenVerifier
	settings presence.Settings
	project  string
	database string
	cors     corsPolicy
	log      *slog.Logger

	appCheckMode AppCheckMode
	appCheck     AppCheckVerifier
	limiter      RateLimiter
	ipLimiter    RateLimiter

	allowClientNames bool
	stateLimiter     RateLimiter
	minClients       MinClientVersions
	emulators        *emulatorsResponse

	services       ServiceTokenVerifier
	serviceRosters ServiceRosterReader
	serverTiming   bool
}

// New returns the API handler. It panics if AppCheckMode is monitor or
// enforce without an AppCheck verifier: a wiring mistake, not a request's.
func New(o Options) *Handler {
	h := &Handler{store: o.Store, tokens: o.Tokens, settings: o.Settings, log: o.Logger, cors: newCORSPolicy(o.AllowedOrigins),
		project: o.ProjectID, database: o.Database,
		appCheckMode: o.AppCheckMode, appCheck: o.AppCheck, limiter: o.RateLimiter, ipLimiter: o.IPRateLimiter,
		allowClientNames: o.AllowClientNames, stateLimiter: o.StateRateLimiter, minClients: o.MinClientVersions,
		emulators: o.Emulators.response(),
		services:  o.ServiceTokens, serviceRosters: o.ServiceRosters,
		serverTiming: o.ServerTiming}
	if (h.services == nil) != (h.serviceRosters == nil) {
		panic("httpapi: ServiceTokens and ServiceRosters go together")
	}
	if h.database == "" {
		h.database = DefaultDatabase
	}
	if h.appCheckMode != "" && h.appCheckMode != AppCheckOff && h.appCheck == nil {
		panic("httpapi: App Check mode " + string(h.appCheckMode) + " needs an AppCheck verifier")
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h
}

// route is one endpoint: the handler for a room action.
type route struct {
	method string
	serve  func(h *Handler, w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error
}

var roomActions = map[string]route{
	"join":         {http.MethodPost, (*Handler).join},
	"heartbeat":    {http.MethodPost, (*Handler).heartbeat},
	"leave":        {http.MethodPost, (*Handler).leave},
	"typing":       {http.MethodPost, (*Handler).typing},
	"state":        {http.MethodPost, (*Handler).state},
	"receipts":     {http.MethodPost, (*Handler).receipts},
	"occupancy":    {http.MethodGet, (*Handler).occupancy},
	"participants": {http.MethodGet, (*Handler).participants},
	"":             {http.MethodGet, (*Handler).room},
}

// ServeHTTP routes by hand rather than with http.ServeMux so that every
// miss — unknown path, wrong method, undecodable room id — answers in the
// documented JSON error shape.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			h.log.ErrorContext(r.Context(), "panic serving request", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			h.writeError(w, r, fmt.Errorf("panic: %v", p))
		}
	}()
	segments := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	if isPreflight(r) {
		// Answered here, before any gate: a preflight carries no
		// credentials. A path with no endpoint gets its 404.
		method, ok := endpointMethod(segments)
		if !ok {
			h.writeError(w, r, errorf(eNotFound, "no such endpoint: "+r.URL.EscapedPath()))
			return
		}
		h.cors.apply(w, r, method) // 204
		return
	}
	// The request's own method: a browser sends no other after its
	// preflight, and a method no endpoint takes gets no CORS headers.
	h.cors.apply(w, r, r.Method)
	// Every API request says whether its client is still served; a health
	// check is no client's.
	if segments[0] == "v1" {
		if err := h.checkClient(w, r); err != nil {
			h.writeError(w, r, err)
			return
		}
	}
	switch {
	case len(segments) == 1 && segments[0] == "healthz":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.methodNotAllowed(w, r, http.MethodGet)
			return
		}
		httpjson.Write(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	case len(segments) == 2 && segments[0] == "v1" && segments[1] == "config":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.methodNotAllowed(w, r, http.MethodGet)
			return
		}
		h.config(w)
		return
	case len(segments) >= 3 && len(segments) <= 4 && segments[0] == "v1" && segments[1] == "rooms":
		action := ""
		if len(segments) == 4 {
			action = segments[3]
		}
		rt, ok := roomActions[action]
		if !ok {
			break
		}
		if r.Method != rt.method {
			h.methodNotAllowed(w, r, rt.method)
			return
		}
		// The room id is a path segment, decoded on its own so that an
		// escaped "/" stays inside it and is then refused by validation.
		roomID, err := url.PathUnescape(segments[2])
		if err != nil {
			h.writeError(w, r, errorf(presence.EInvalid, "roomId is not a valid path segment"))
			return
		}
		// A bound on the whole request: under heavy contention a
		// transaction would otherwise keep retrying; a prompt 503 lets the
		// client back off instead of hanging.
		ctx, cancel := context.WithTimeout(r.Context(), RequestTimeout)
		defer cancel()
		timing := &requestTiming{started: time.Now()}
		r = r.WithContext(context.WithValue(ctx, timingKey{}, timing))
		if h.serverTiming {
			w, r = withServerTiming(w, r)
		}
		// The order of the gates: the client address's rate, App Check
		// (which app), then the ID token (which user, which may cost a
		// lookup at Firebase Auth), then that user's rate. Each refuses
		// before anything is read or written.
		if err := h.checkAddress(r, actionName(action)); err != nil {
			h.writeError(w, r, err)
			return
		}
		// A backend service's Google ID token takes its own gates
		// (service.go); a token that only claims to be one fails there.
		if token, ok := h.serviceToken(r); ok {
			if err := h.serveService(w, r, action, roomID, token); err != nil {
				h.writeError(w, r, err)
			}
			return
		}
		if err := h.checkAppCheck(r, actionName(action)); err != nil {
			if presence.ErrorCode(err) == eAppCheckFailed {
				w.Header().Set("WWW-Authenticate", `Firebase-AppCheck realm="roomlease"`)
			}
			h.writeError(w, r, err)
			return
		}
		who, err := h.authenticate(r)
		if err != nil {
			// Only a 401 asks for credentials: a 429 from the lookup
			// budget or a 503 is no reason to sign in again.
			if presence.ErrorCode(err) == presence.EUnauthenticated {
				w.Header().Set("WWW-Authenticate", `Bearer realm="roomlease"`)
			}
			h.writeError(w, r, err)
			return
		}
		if err := h.checkRate(r, who.UID, actionName(action)); err != nil {
			h.writeError(w, r, err)
			return
		}
		timing.gatesDone = time.Now()
		steptime.Add(r.Context(), "gates", timing.gatesDone.Sub(timing.started))
		if err := rt.serve(h, w, r, roomID, who); err != nil {
			h.writeError(w, r, err)
		}
		return
	}
	h.writeError(w, r, errorf(eNotFound, "no such endpoint: "+r.Method+" "+r.URL.EscapedPath()))
}

// endpointMethod is the method the endpoint at segments takes, if there
// is one there: what a CORS preflight to that path may be approved for.
func endpointMethod(segments []string) (string, bool) {
	switch {
	case len(segments) == 1 && segments[0] == "healthz",
		len(segments) == 2 && segments[0] == "v1" && segments[1] == "config":
		return http.MethodGet, true
	case len(segments) >= 3 && len(segments) <= 4 && segments[0] == "v1" && segments[1] == "rooms":
		action := ""
		if len(segments) == 4 {
			action = segments[3]
		}
		rt, ok := roomActions[action]
		return rt.method, ok
	}
	return "", false
}

// actionName names a room action in logs ("read" for the GET), never
// with the room id.
func actionName(action string) string {
	if action == "" {
		return "read"
	}
	return action
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow+", OPTIONS")
	h.writeError(w, r, errorf(eMethodNotAllowed, r.Method+" is not allowed here; use "+allow))
}

// authenticate returns the caller's identity from "Authorization: Bearer
// <token>": the uid, and the name and picture the token carries.
func (h *Handler) authenticate(r *http.Request) (presence.Identity, error) {
	header := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(header, " ")
	if header == "" {
		return presence.Identity{}, errorf(presence.EUnauthenticated, "an Authorization: Bearer <Firebase ID token> header is required")
	}
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return presence.Identity{}, errorf(presence.EUnauthenticated, "the Authorization header must be \"Bearer <Firebase ID token>\"")
	}
	return h.tokens.VerifyIDToken(r.Context(), strings.TrimSpace(token))
}
