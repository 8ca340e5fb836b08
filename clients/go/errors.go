package client

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Sentinel errors, one per code in the API's error table (README.md, "The
// API"). Check them with errors.Is; an *APIError carries the details.
var (
	ErrInvalidArgument      = errors.New("roomlease: invalid_argument")       // 400: malformed request; fix the caller
	ErrUnauthenticated      = errors.New("roomlease: unauthenticated")        // 401: missing, expired or foreign token
	ErrPermissionDenied     = errors.New("roomlease: permission_denied")      // 403: the room's policy refuses; a receipt from someone not on the roster
	ErrRoomNotFound         = errors.New("roomlease: room_not_found")         // 404: no such room, or not a participant of it (one answer)
	ErrNotFound             = errors.New("roomlease: not_found")              // 404: no such endpoint (a wrong base URL)
	ErrMethodNotAllowed     = errors.New("roomlease: method_not_allowed")     // 405
	ErrStaleGeneration      = errors.New("roomlease: stale_generation")       // 409: the lease is gone or superseded; join again
	ErrRoomFull             = errors.New("roomlease: room_full")              // 409: the room is at its cap
	ErrPayloadTooLarge      = errors.New("roomlease: payload_too_large")      // 413
	ErrUnsupportedMediaType = errors.New("roomlease: unsupported_media_type") // 415
	ErrUnavailable          = errors.New("roomlease: unavailable")            // 503: retry with backoff
	ErrInternal             = errors.New("roomlease: internal")               // 500: a server fault
	ErrAppCheckFailed       = errors.New("roomlease: app_check_failed")       // 401: App Check enforced; no valid App Check token (see WithAppCheck)
	ErrRateLimited          = errors.New("roomlease: rate_limited")           // 429: too many requests from this user; retry after APIError.RetryAfter
	ErrClientTooOld         = errors.New("roomlease: client_too_old")         // 426: the server no longer serves this client version; upgrade
)

// The per-user caps: sentinels of their own, so that a client can tell them
// from room_full (another 409) and show what the user can do.
var (
	ErrTooManySessions = errors.New("roomlease: too_many_sessions") // 409: the user holds the most live sessions allowed in the room; leave one (close a tab)
	ErrTooManyRooms    = errors.New("roomlease: too_many_rooms")    // 409: the user is in the most rooms allowed at once; leave one
)

// Errors of this client rather than answers of the API.
var (
	// ErrTimeout: a request got no answer within its bound (WithRequestTimeout,
	// or a heartbeat's share of its lease); the error matches
	// context.DeadlineExceeded too. The request may still have reached the
	// server: retrying is safe (a heartbeat renews the same lease; a join
	// issues a generation that supersedes any the lost answer carried).
	ErrTimeout = errors.New("roomlease client: no answer in time")
	// ErrLeft: the session ended with Leave or LeaveRoom (Session.Err).
	ErrLeft = errors.New("roomlease client: the session left the room")
	// ErrClosed: the session ended with Close, without leaving (Session.Err).
	ErrClosed = errors.New("roomlease client: the session was closed")
)

var sentinels = map[string]error{
	"invalid_argument":       ErrInvalidArgument,
	"unauthenticated":        ErrUnauthenticated,
	"permission_denied":      ErrPermissionDenied,
	"room_not_found":         ErrRoomNotFound,
	"not_found":              ErrNotFound,
	"method_not_allowed":     ErrMethodNotAllowed,
	"stale_generation":       ErrStaleGeneration,
	"room_full":              ErrRoomFull,
	"payload_too_large":      ErrPayloadTooLarge,
	"unsupported_media_type": ErrUnsupportedMediaType,
	"unavailable":            ErrUnavailable,
	"internal":               ErrInternal,
	"app_check_failed":       ErrAppCheckFailed,
	"client_too_old":         ErrClientTooOld,
	"rate_limited":           ErrRateLimited,
	"too_many_sessions":      ErrTooManySessions,
	"too_many_rooms":         ErrTooManyRooms,
}

// APIError is an error answer of the API: its status, code and message.
type APIError struct {
	Status  int
	Code    string
	Message string
	// RetryAfter is the answer's Retry-After (a 429 always has one; a 503
	// may): do not send the request again sooner. Zero when absent.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	return fmt.Sprintf("roomlease: %d %s: %s", e.Status, e.Code, e.Message)
}

// Unwrap returns the sentinel for e's code, so errors.Is(err, ErrRoomFull)
// works; nil for a code this client does not know.
func (e *APIError) Unwrap() error { return sentinels[e.Code] }

// Retryable reports whether the same request may succeed later unchanged:
// the server was unavailable or faulted, or the user was over the rate
// limit (then wait RetryAfter first).
func (e *APIError) Retryable() bool { return e.Status >= 500 || e.Status == http.StatusTooManyRequests }

// retryAfter reads a Retry-After header: seconds, or an HTTP date
// relative to now. Anything else is treated as absent.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if n, err := strconv.Atoi(h); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
