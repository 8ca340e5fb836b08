package sweep

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// A failed step's error carries what Firestore said, and Firestore names
// documents by path: rooms/{roomId}/participants/{uid}/... So the full text
// goes only to the server's own WARNING line beside the failure, for
// whoever debugs it, and what the sweeper reports (the summary line that
// log-based metrics and dashboards read, roomlease/sweepStatus, the Sweep
// response) carries only the redacted form: the step and a code.

// stepError is the failure of one named step of a pass.
type stepError struct {
	step string // a fixed phrase ("expiring a session"), never data
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// Redacted returns what of err may be reported: the step that failed and
// a code, the gRPC code when the failure carries one (the Firestore
// client's errors do), otherwise the presence error code. It never returns
// the error's text.
func Redacted(err error) string {
	if err == nil {
		return ""
	}
	step := "sweep step"
	var se *stepError
	if errors.As(err, &se) {
		step = se.step
	}
	return step + ": " + failureCode(err)
}

func failureCode(err error) string {
	if c := status.Code(err); c != codes.Unknown {
		return c.String()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded.String()
	case errors.Is(err, context.Canceled):
		return codes.Canceled.String()
	}
	return presence.ErrorCode(err)
}
