package client

import (
	"errors"
	"fmt"
)

// Sentinel errors, one per code in the API's error table (README.md, "The
// API"). Check them with errors.Is; an *APIError carries the details.
var (
	ErrInvalidArgument      = errors.New("roomlease: invalid_argument")       // 400: malformed request; fix the caller
	ErrUnauthenticated      = errors.New("roomlease: unauthenticated")        // 401: missing, expired or foreign token
	ErrPermissionDenied     = errors.New("roomlease: permission_denied")      // 403: the room's policy refuses, or not a participant
	ErrRoomNotFound         = errors.New("roomlease: room_not_found")         // 404: no such room
	ErrNotFound             = errors.New("roomlease: not_found")              // 404: no such endpoint (a wrong base URL)
	ErrMethodNotAllowed     = errors.New("roomlease: method_not_allowed")     // 405
	ErrStaleGeneration      = errors.New("roomlease: stale_generation")       // 409: the lease is gone or superseded; join again
	ErrRoomFull             = errors.New("roomlease: room_full")              // 409: the room is at its cap
	ErrPayloadTooLarge      = errors.New("roomlease: payload_too_large")      // 413
	ErrUnsupportedMediaType = errors.New("roomlease: unsupported_media_type") // 415
	ErrUnavailable          = errors.New("roomlease: unavailable")            // 503: retry with backoff
	ErrInternal             = errors.New("roomlease: internal")               // 500: a server fault
)

// The per-user caps: sentinels of their own, so that a client can tell them
// from room_full (another 409) and show what the user can do.
var (
	ErrTooManySessions = errors.New("roomlease: too_many_sessions") // 409: the user holds the most live sessions allowed in the room; leave one (close a tab)
	ErrTooManyRooms    = errors.New("roomlease: too_many_rooms")    // 409: the user is in the most rooms allowed at once; leave one
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

	"too_many_sessions": ErrTooManySessions,
	"too_many_rooms":    ErrTooManyRooms,
}

// APIError is an error answer of the API: its status, code and message.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("roomlease: %d %s: %s", e.Status, e.Code, e.Message)
}

// Unwrap returns the sentinel for e's code, so errors.Is(err, ErrRoomFull)
// works; nil for a code this client does not know.
func (e *APIError) Unwrap() error { return sentinels[e.Code] }

// Retryable reports whether the same request may succeed later unchanged:
// the server was unavailable or faulted.
func (e *APIError) Retryable() bool { return e.Status >= 500 }
