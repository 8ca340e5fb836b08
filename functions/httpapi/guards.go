package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// AppCheckHeader carries the Firebase App Check token, as the Firebase
// client SDKs name it.
const AppCheckHeader = "X-Firebase-AppCheck"

// AppCheckMode says what the API does with requests that lack a valid App
// Check token.
type AppCheckMode string

const (
	// AppCheckOff ignores the header; nothing is verified. The default,
	// since there is no App Check emulator for local runs.
	AppCheckOff AppCheckMode = "off"
	// AppCheckMonitor serves every request, and logs and counts those
	// without a valid token: the step before enforcing.
	AppCheckMonitor AppCheckMode = "monitor"
	// AppCheckEnforce refuses them with 401 app_check_failed.
	AppCheckEnforce AppCheckMode = "enforce"
)

// ParseAppCheckMode reads "off", "monitor" or "enforce".
func ParseAppCheckMode(s string) (AppCheckMode, error) {
	switch m := AppCheckMode(s); m {
	case AppCheckOff, AppCheckMonitor, AppCheckEnforce:
		return m, nil
	}
	return "", fmt.Errorf("unknown App Check mode %q (use off, monitor or enforce)", s)
}

// AppCheckVerifier checks a Firebase App Check token.
type AppCheckVerifier interface {
	// VerifyAppCheckToken returns nil for a valid token of this project.
	// Returns EUnauthenticated for a token that is not valid (malformed,
	// expired, foreign); EUnavailable when it could not be checked.
	VerifyAppCheckToken(ctx context.Context, token string) error
}

// RateLimiter admits a user's requests at a bounded rate.
type RateLimiter interface {
	// Allow takes one request from uid's allowance; when there is none
	// left it returns false and how long until there is.
	Allow(uid string) (ok bool, retryAfter time.Duration)
}

// Why a request has no valid App Check token: the values of the log field
// "appCheck", which the Terraform log-based metric counts by.
const (
	appCheckMissing    = "missing"    // no header
	appCheckInvalid    = "invalid"    // a token that did not verify
	appCheckUnverified = "unverified" // the key set could not be fetched
)

// checkAppCheck runs before authentication. App Check says which app sent
// the request, not which user, so it needs nothing from the ID token; and
// it is the cheaper check (a local signature check against keys cached for
// hours), so in enforce mode traffic from outside the registered apps is
// refused before it can drive the ID-token path (revocation checks ask
// Firebase Auth). Only the per-address limit comes before it; the per-user
// limit, keyed by uid, comes after authentication.
func (h *Handler) checkAppCheck(r *http.Request, action string) error {
	if h.appCheckMode == AppCheckOff || h.appCheckMode == "" {
		return nil
	}
	ctx := r.Context()
	token := r.Header.Get(AppCheckHeader)
	var reason string
	var err error
	switch {
	case token == "":
		reason = appCheckMissing
		err = errorf(eAppCheckFailed, "an "+AppCheckHeader+" header with a Firebase App Check token is required")
	default:
		if err = h.appCheck.VerifyAppCheckToken(ctx, token); err == nil {
			return nil
		}
		reason = appCheckInvalid
		if presence.ErrorCode(err) != presence.EUnauthenticated {
			reason = appCheckUnverified
		}
	}
	// One line per such request, whatever the mode: the log-based metric
	// roomlease/app_check_failures counts them by reason and mode. The
	// token itself is never logged.
	attrs := []any{"component", "api", "appCheck", reason, "appCheckMode", string(h.appCheckMode), "action", action}
	if reason == appCheckUnverified {
		attrs = append(attrs, "error", err.Error())
	} else if reason == appCheckInvalid {
		attrs = append(attrs, "detail", presence.ErrorMessage(err))
	}
	h.log.WarnContext(ctx, "request without a valid App Check token", attrs...)
	switch {
	case h.appCheckMode == AppCheckMonitor:
		return nil
	case reason == appCheckInvalid:
		// The verifier's message says what is wrong (expired, another
		// project), never the token.
		return errorf(eAppCheckFailed, presence.ErrorMessage(err))
	default:
		// Missing: the error built above. Unverified: 503, retry later,
		// as when ID tokens cannot be checked (fail closed).
		return err
	}
}

// checkRate takes one request from uid's allowance. Refused requests get
// 429 with Retry-After (see writeError), before anything is read or
// written.
func (h *Handler) checkRate(r *http.Request, uid, action string) error {
	if h.limiter == nil {
		return nil
	}
	return h.limit(r, h.limiter, uid, action, "this user")
}

// checkStateRate takes one state update from the user's allowance for
// them: a state change costs a read for every listener in the room, so it
// has a budget of its own, well below the requests' (see Options), which
// joins and away heartbeats share (changeAllowance). A state update holds
// no lease, so it is refused up front, before anything is read.
func (h *Handler) checkStateRate(r *http.Request, uid string) error {
	if h.stateLimiter == nil {
		return nil
	}
	return h.limit(r, h.stateLimiter, uid, "state", "this user's state updates")
}

// changeAllowance is the user's allowance of chosen changes for one
// request, from the same budget as their state updates: the store asks it
// only when the request would change what the roster shows at the
// client's choice (a join's new state, name or mode, an away toggle), so
// that every such change counts, whichever request carries it. A refusal
// is remembered in wait, for the reply. Nil when there is no state limit.
func (h *Handler) changeAllowance(r *http.Request, uid, action string, wait *time.Duration) presence.Allowance {
	if h.stateLimiter == nil {
		return nil
	}
	return func() bool {
		ok, w := h.stateLimiter.Allow(uid)
		if !ok {
			*wait = w
			h.log.DebugContext(r.Context(), "change held", "component", "api", "action", action,
				"limit", "this user's state updates", "retryAfterSeconds", retryAfterSeconds(w))
		}
		return ok
	}
}

// checkAddress takes one request from the client address's allowance. It is
// the first gate, before App Check and the ID token: a limit keyed by uid
// comes after the token is verified and the user looked up, and anonymous
// sign-in makes uids free, so only a key the client cannot mint bounds what
// reaches verification (see clientKey).
func (h *Handler) checkAddress(r *http.Request, action string) error {
	if h.ipLimiter == nil {
		return nil
	}
	return h.limit(r, h.ipLimiter, clientKey(r), action, "this address")
}

func (h *Handler) limit(r *http.Request, lim RateLimiter, key, action, whose string) error {
	ok, wait := lim.Allow(key)
	if ok {
		return nil
	}
	secs := retryAfterSeconds(wait)
	h.log.DebugContext(r.Context(), "rate limited", "component", "api", "action", action, "limit", whose, "retryAfterSeconds", secs)
	return &presence.Error{Code: presence.ERateLimited, RetryAfter: wait,
		Message: fmt.Sprintf("too many requests from %s; retry in %d s", whose, secs)}
}
