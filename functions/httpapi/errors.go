package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

// Codes that exist only at the HTTP layer.
const (
	eNotFound         = "not_found"
	eMethodNotAllowed = "method_not_allowed"
	eTooLarge         = "payload_too_large"
	eMediaType        = "unsupported_media_type"
	eAppCheckFailed   = "app_check_failed" // App Check enforced, and the token is missing or not valid
	eRateLimited      = "rate_limited"     // the user is over the per-instance request rate
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
	presence.EUnavailable:     http.StatusServiceUnavailable,
	presence.EInternal:        http.StatusInternalServerError,
	eNotFound:                 http.StatusNotFound,
	eMethodNotAllowed:         http.StatusMethodNotAllowed,
	eTooLarge:                 http.StatusRequestEntityTooLarge,
	eMediaType:                http.StatusUnsupportedMediaType,
	eAppCheckFailed:           http.StatusUnauthorized,
	eRateLimited:              http.StatusTooManyRequests,
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
	// The caller hung up (a closing tab's last request): nobody reads the
	// answer and nothing failed here, so it is not logged as a fault.
	callerGone := errors.Is(r.Context().Err(), context.Canceled)
	if status >= 500 && !callerGone {
		h.log.ErrorContext(r.Context(), "request failed",
			"httpRequest", map[string]any{"requestMethod": r.Method, "requestUrl": r.URL.Path, "status": status},
			"code", code, "error", err.Error())
		if code == presence.EInternal {
			message = "internal error"
		}
	}
	httpjson.WriteError(w, status, code, message)
}

// errorf builds an HTTP-layer error; it travels as a *presence.Error so that
// one writeError handles both.
func errorf(code, msg string) error { return &presence.Error{Code: code, Message: msg} }
