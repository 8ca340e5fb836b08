package httpapi

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

// Codes that exist only at the HTTP layer.
const (
	eNotFound         = "not_found"
	eMethodNotAllowed = "method_not_allowed"
	eMediaType        = "unsupported_media_type"
	eAppCheckFailed   = "app_check_failed" // App Check enforced, and the token is missing or not valid
)

// statusOf is the one table from error codes to HTTP statuses. A code that is
// not here is a server fault.
var statusOf = map[string]int{
	presence.EInvalid:         http.StatusBadRequest,
	presence.EUnauthenticated: http.StatusUnauthorized,
	presence.EForbidden:       http.StatusForbidden,
	presence.ENotFound:        http.StatusNotFound,
	presence.EStaleGeneration: http.StatusConflict,
	presence.ERoomFull:        http.StatusConflict,
	presence.ETooManySessions: http.StatusConflict,
	presence.ETooManyRooms:    http.StatusConflict,
	presence.ERateLimited:     http.StatusTooManyRequests,
	presence.EUnavailable:     http.StatusServiceUnavailable,
	presence.EInternal:        http.StatusInternalServerError,
	eNotFound:                 http.StatusNotFound,
	eMethodNotAllowed:         http.StatusMethodNotAllowed,
	presence.ETooLarge:        http.StatusRequestEntityTooLarge,
	eMediaType:                http.StatusUnsupportedMediaType,
	eAppCheckFailed:           http.StatusUnauthorized,
	eClientTooOld:             http.StatusUpgradeRequired,
}

// ErrorStatuses returns a copy of the one table from error codes to HTTP
// statuses: every code the API can answer with. Clients' tests check their
// own tables against it.
func ErrorStatuses() map[string]int {
	out := make(map[string]int, len(statusOf))
	for code, status := range statusOf {
		out[code] = status
	}
	return out
}

// writeError answers with err in the documented shape. Server faults are
// logged with their full text; the client sees only a generic message.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := presence.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		code, status = presence.EInternal, http.StatusInternalServerError
	}
	message := presence.ErrorMessage(err)
	var e *presence.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(e.RetryAfter)))
	}
	// The caller hung up (a closing tab's last request): nobody reads the
	// answer and nothing failed here, so it is not logged as a fault.
	callerGone := errors.Is(r.Context().Err(), context.Canceled)
	if status >= 500 && !callerGone {
		h.log.ErrorContext(r.Context(), "request failed",
			append([]any{"httpRequest", map[string]any{"requestMethod": r.Method, "requestUrl": r.URL.Path, "status": status},
				"code", code, "error", err.Error()}, timingOf(r)...)...)
		if code == presence.EInternal {
			message = "internal error"
		}
	}
	httpjson.WriteError(w, status, code, message)
}

// retryAfterSeconds is a wait in Retry-After's whole seconds, rounded up and
// at least 1: a client retrying after it finds what it waited for.
func retryAfterSeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// errorf builds an HTTP-layer error; it travels as a *presence.Error so that
// one writeError handles both.
func errorf(code, msg string) error { return &presence.Error{Code: code, Message: msg} }

// requestTiming is when a room request started and when it had passed its
// gates (address, App Check, token, rate), so that a request that fails
// for want of time says where the time went: the gates (a slow Firebase
// Auth lookup) or the store (whose error names its attempts).
type requestTiming struct {
	started, gatesDone time.Time
}

type timingKey struct{}

// timingOf returns the log attributes of r's timing: elapsedMs, and
// gatesMs once the gates were passed.
func timingOf(r *http.Request) []any {
	t, ok := r.Context().Value(timingKey{}).(*requestTiming)
	if !ok {
		return nil
	}
	attrs := []any{"elapsedMs", time.Since(t.started).Milliseconds()}
	if !t.gatesDone.IsZero() {
		attrs = append(attrs, "gatesMs", t.gatesDone.Sub(t.started).Milliseconds())
	}
	return attrs
}
