package presence

import (
	"errors"
	"fmt"
	"time"
)

// Error codes: the one vocabulary of failures. The HTTP adapter maps each to a
// status in exactly one table; anything else is an internal error.
const (
	EInvalid         = "invalid_argument"  // malformed input; nothing was written
	EUnauthenticated = "unauthenticated"   // no valid identity
	EForbidden       = "permission_denied" // identity known, action not allowed
	ENotFound        = "room_not_found"    // the room does not exist, or the caller may not know whether it does
	EStaleGeneration = "stale_generation"  // the session's generation moved on, or the session is gone
	ERoomFull        = "room_full"         // the room is at its participant cap
	ETooManySessions = "too_many_sessions" // the user holds the most live sessions allowed in this room
	ETooManyRooms    = "too_many_rooms"    // the user is in the most rooms allowed at once
	ERateLimited     = "rate_limited"      // over a request or lookup budget; retry after Error.RetryAfter
	ETooLarge        = "payload_too_large" // a body, or a part of it, over its size limit; nothing was written
	EUnavailable     = "unavailable"       // a dependency failed; retry later
	EInternal        = "internal"          // a bug or an unexpected fault
)

// Error is a failure a client can act on: a code from the list above, a
// message that is safe to show and, for a refusal that will pass by itself
// (ERateLimited), how long to wait before trying again.
type Error struct {
	Code       string
	Message    string
	RetryAfter time.Duration // 0: not said
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, or EInternal when err carries none.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the client-safe message of err. Errors that are not
// *Error may carry infrastructure details, so they get a generic text.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
