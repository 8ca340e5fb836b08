package client

import "time"

// What a Session tells its caller: the options it is started with, and
// the events of its lease (session.go).

// EventKind says what happened to a Session's lease.
type EventKind int

const (
	// Renewed: a heartbeat was accepted; LeaseExpiresAt is the lease end it
	// answered. The server renews only when at most ROOMLEASE_RENEW_WHEN_LEFT
	// of the lease is left, so with more left the end is the one already
	// held (a heartbeat that writes nothing costs the server less).
	Renewed EventKind = iota + 1
	// Rejoined: a heartbeat got 409 and the session joined again; Generation is the new one.
	Rejoined
	// Failed: a heartbeat or rejoin failed (Err, matching ErrTimeout when no
	// answer came in time); the session retries with backoff.
	Failed
	// Stopped: the server refused the user (Err is ErrPermissionDenied); heartbeats stopped.
	Stopped
	// Left: the context the session was started with ended, and the session
	// left the room; Err is the leave's error, if it failed (the lease then
	// ends by itself).
	Left
)

// Event reports a change of a Session's lease to SessionOptions.OnEvent.
type Event struct {
	Kind           EventKind
	Generation     int64
	LeaseExpiresAt time.Time
	Err            error
}

// SessionOptions configure JoinRoom.
type SessionOptions struct {
	// SessionID identifies this instance; default a random one. Keep it
	// across reconnects of the same instance, never share it between two
	// live instances (each join fences the other).
	SessionID string
	// DisplayName is sent with every join, including rejoins (a rejoin
	// after expiry creates the roster entry anew). nil keeps the name.
	DisplayName *string
	// State, if set, is the user's state to join with (see SetState): a
	// value that marshals to a JSON object.
	State any
	// Away starts the session away (see SetAway).
	Away bool
	// OnEvent, if set, is called while a heartbeat or rejoin holds the
	// session: keep it quick, and do not call Beat or Leave from it (they
	// wait for that heartbeat to finish).
	OnEvent func(Event)
}
