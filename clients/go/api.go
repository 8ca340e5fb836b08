package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Joined is the answer to a join: the lease this session now holds.
type Joined struct {
	RoomID         string    `json:"roomId"`
	ParticipantID  string    `json:"participantId"`
	SessionID      string    `json:"sessionId"`
	Generation     int64     `json:"generation"`
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
	// LeaseSeconds and HeartbeatSeconds are the server's settings: heartbeat
	// at that interval, and the lease lasts that long after each renewal.
	LeaseSeconds     float64 `json:"leaseSeconds"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	// Revision is the room's revision after the join: ordered, not counted.
	Revision int64 `json:"revision"`
	// Database is the Firestore database that holds the room's roster:
	// a service that listens to rosters opens this one
	// (firestore.NewClientWithDatabase), not necessarily "(default)".
	Database string `json:"database"`
	// RenewAt is when to heartbeat next (server time): a heartbeat then
	// renews the lease. Zero from a server that does not say; then
	// heartbeat every HeartbeatSeconds.
	RenewAt time.Time `json:"renewAt"`
	// LeaseToken is what to send with the next heartbeat or typing
	// signal (Renew): a heartbeat that carries it costs the server no
	// read. Opaque; empty when the server issues none.
	LeaseToken string `json:"leaseToken"`
	// Held says the join kept the stored state, name and mode, the user's
	// state budget being spent: it joined all the same. Send them again
	// after RetryAfterSeconds.
	Held              bool `json:"held"`
	RetryAfterSeconds int  `json:"retryAfterSeconds"`
}

// Heartbeat returns the interval the server asks for.
func (j Joined) Heartbeat() time.Duration { return seconds(j.HeartbeatSeconds) }

// Lease returns the lease length.
func (j Joined) Lease() time.Duration { return seconds(j.LeaseSeconds) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// ServerConfig is what GET /v1/config tells every client: the Firestore
// project and database whose documents to listen to, and the timings the
// server hands out on join.
type ServerConfig struct {
	ProjectID        string  `json:"projectId"`
	Database         string  `json:"database"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
}

// Config reads the server's configuration. The endpoint needs no token;
// the client's token goes along all the same, and the server ignores it.
func (c *Client) Config(ctx context.Context) (ServerConfig, error) {
	var out ServerConfig
	_, _, err := c.call(ctx, http.MethodGet, "/v1/config", nil, &out)
	return out, err
}

// Participant is a live roster entry as the room read reports it.
type Participant struct {
	ParticipantID string `json:"participantId"`
	DisplayName   string `json:"displayName"`
	// PhotoURL is the picture of the user's verified token, if it has one.
	PhotoURL string `json:"photoURL,omitempty"`
	// State is the user's state object, {} when none was set.
	State json.RawMessage `json:"state"`
	// Away is true when every live session of the user is away.
	Away         bool      `json:"away"`
	SessionCount int       `json:"sessionCount"`
	JoinedAt     time.Time `json:"joinedAt"`
}

// Departure is a user who left the roster recently: for the server's
// ROOMLEASE_RECENTLY_LEFT after leaving, unless they are back on the roster.
type Departure struct {
	ParticipantID string    `json:"participantId"`
	DisplayName   string    `json:"displayName"`
	PhotoURL      string    `json:"photoURL,omitempty"`
	LeftAt        time.Time `json:"leftAt"`
	// Reason is "left", "expired" or "evicted".
	Reason string `json:"reason"`
}

// RoomSnapshot is a consistent read of a room: its live roster and the
// revision that roster reflects.
type RoomSnapshot struct {
	RoomID       string        `json:"roomId"`
	State        string        `json:"state"`
	Revision     int64         `json:"revision"`
	Participants []Participant `json:"participants"`
	RecentlyLeft []Departure   `json:"recentlyLeft"`
}

type sessionBody struct {
	SessionID  string `json:"sessionId"`
	Generation int64  `json:"generation"`
}

// Join joins roomID with sessionID, creating the room if needed. Each join
// issues a new generation for the session; an older generation's
// heartbeats then fail with ErrStaleGeneration. A nil displayName keeps the
// name on the roster.
//
// Returns ErrInvalidArgument for a bad id, ErrPermissionDenied when the
// room's policy refuses the user, ErrRoomFull at the cap.
func (c *Client) Join(ctx context.Context, roomID, sessionID string, displayName *string) (Joined, error) {
	return c.join(ctx, roomID, joinBody{SessionID: sessionID, DisplayName: displayName})
}

type joinBody struct {
	SessionID   string          `json:"sessionId"`
	DisplayName *string         `json:"displayName,omitempty"`
	State       json.RawMessage `json:"state,omitempty"`
	Away        bool            `json:"away,omitempty"`
}

func (c *Client) join(ctx context.Context, roomID string, body joinBody) (Joined, error) {
	var out Joined
	sent, received, err := c.call(ctx, http.MethodPost, roomPath(roomID, "join"), body, &out)
	if err == nil {
		c.server.sample(out.LeaseExpiresAt.Add(-out.Lease()), sent, received)
	}
	return out, err
}

// Heartbeat renews the lease of sessionID at generation and returns its new
// end (server time).
//
// Returns ErrStaleGeneration when the session is gone, superseded or its
// lease has ended: join again.
func (c *Client) Heartbeat(ctx context.Context, roomID, sessionID string, generation int64, lease time.Duration) (time.Time, error) {
	var out struct {
		LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
	}
	sent, received, err := c.call(ctx, http.MethodPost, roomPath(roomID, "heartbeat"), sessionBody{sessionID, generation}, &out)
	if err == nil && lease > 0 {
		c.server.sample(out.LeaseExpiresAt.Add(-lease), sent, received)
	}
	return out.LeaseExpiresAt, err
}

// Beat is the answer to a heartbeat that said whether the session is away.
type Beat struct {
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
	// RenewAt and LeaseToken: when to heartbeat next, and what to send
	// with it (see Joined).
	RenewAt    time.Time `json:"renewAt"`
	LeaseToken string    `json:"leaseToken"`
	// Away is the session's mode now; LeaseSeconds and HeartbeatSeconds are
	// the lease and interval that go with it (an away session's are longer).
	Away             bool    `json:"away"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
}

// HeartbeatAway renews the lease of sessionID at generation as Heartbeat
// does, and sets whether the session is away. A change of it is a visible
// change (the roster entry's away, when it flips for the user); the same
// value as before writes nothing more than a heartbeat.
//
// Returns ErrStaleGeneration when the session is gone, superseded or its
// lease has ended: join again.
func (c *Client) HeartbeatAway(ctx context.Context, roomID, sessionID string, generation int64, lease time.Duration, away bool) (Beat, error) {
	return c.Renew(ctx, roomID, sessionID, generation, lease, away, "")
}

// Renew is HeartbeatAway with the lease token the session was last given
// (Joined.LeaseToken, Beat.LeaseToken; "" for none): with it, the server
// renews without reading the session. A token the server cannot use
// changes nothing but that: the answer is the same.
func (c *Client) Renew(ctx context.Context, roomID, sessionID string, generation int64, lease time.Duration, away bool, token string) (Beat, error) {
	body := struct {
		SessionID  string `json:"sessionId"`
		Generation int64  `json:"generation"`
		Away       bool   `json:"away"`
		LeaseToken string `json:"leaseToken,omitempty"`
	}{sessionID, generation, away, token}
	var out Beat
	sent, received, err := c.call(ctx, http.MethodPost, roomPath(roomID, "heartbeat"), body, &out)
	// A change of mode gives a fresh lease of the new mode's length, which
	// the reply states: sampling with the old one would put the server's
	// clock off by the difference (minutes, from present to away).
	if out.LeaseSeconds > 0 {
		lease = out.Lease()
	}
	if err == nil && lease > 0 {
		c.server.sample(out.LeaseExpiresAt.Add(-lease), sent, received)
	}
	return out, err
}

// Lease returns the lease length of the session's mode.
func (b Beat) Lease() time.Duration { return seconds(b.LeaseSeconds) }

// StateResult is the answer to SetState: the stored state and the room's
// revision after it.
type StateResult struct {
	State    json.RawMessage `json:"state"`
	Revision int64           `json:"revision"`
}

// SetState replaces this user's state in roomID with state, a value that
// marshals to a JSON object (a json.RawMessage is sent as is). State is per
// user: the last writer among the user's sessions wins. It never renews a
// lease.
//
// Returns ErrStaleGeneration unless the session holds generation and a
// live lease, ErrPayloadTooLarge or ErrInvalidArgument for a state over the
// server's size or depth limit (nothing is written), ErrRateLimited when
// the user updates faster than the server allows.
func (c *Client) SetState(ctx context.Context, roomID, sessionID string, generation int64, state any) (StateResult, error) {
	raw, err := json.Marshal(state)
	if err != nil {
		return StateResult{}, err
	}
	body := struct {
		SessionID  string          `json:"sessionId"`
		Generation int64           `json:"generation"`
		State      json.RawMessage `json:"state"`
	}{sessionID, generation, raw}
	var out StateResult
	_, _, err = c.call(ctx, http.MethodPost, roomPath(roomID, "state"), body, &out)
	return out, err
}

// LeaveResult is what a leave did.
type LeaveResult struct {
	// Removed is false when there was nothing to remove (the lease had
	// ended, or a newer join superseded it): that is not an error.
	Removed bool
	// CleanupAfter, when not zero, says that this leave emptied the room:
	// the room is due for teardown at about that time unless someone joins
	// first. An estimate to count down from: having left, the caller can
	// no longer read the room (non-participants learn nothing about it).
	CleanupAfter time.Time
}

// LeaveRoom ends the lease of sessionID at generation.
func (c *Client) LeaveRoom(ctx context.Context, roomID, sessionID string, generation int64) (LeaveResult, error) {
	var out struct {
		Removed      bool      `json:"removed"`
		CleanupAfter time.Time `json:"cleanupAfter"`
	}
	_, _, err := c.call(ctx, http.MethodPost, roomPath(roomID, "leave"), sessionBody{sessionID, generation}, &out)
	return LeaveResult{Removed: out.Removed, CleanupAfter: out.CleanupAfter}, err
}

// Leave is LeaveRoom for callers that need only whether something was
// removed.
func (c *Client) Leave(ctx context.Context, roomID, sessionID string, generation int64) (removed bool, err error) {
	res, err := c.LeaveRoom(ctx, roomID, sessionID, generation)
	return res.Removed, err
}

// Room reads roomID's live roster.
//
// Returns ErrRoomNotFound unless the caller is a live participant: the
// server answers the same whether the room exists or not, so after a
// Leave this error says nothing about the room (it may be in its grace,
// revived, or torn down).
func (c *Client) Room(ctx context.Context, roomID string) (RoomSnapshot, error) {
	var out RoomSnapshot
	_, _, err := c.call(ctx, http.MethodGet, roomPath(roomID, ""), nil, &out)
	return out, err
}

// SetTyping sets or clears this user's typing signal; it lapses by itself
// after the server's typing expiry unless renewed.
//
// Returns ErrStaleGeneration unless the session holds generation and a live lease.
func (c *Client) SetTyping(ctx context.Context, roomID, sessionID string, generation int64, typing bool) error {
	_, err := c.typing(ctx, roomID, sessionID, generation, typing, "")
	return err
}

// typing is SetTyping with a lease token: sent with one, the answer is the
// lease (renewed when the server could fence the signal by the token);
// without, a zero Beat.
func (c *Client) typing(ctx context.Context, roomID, sessionID string, generation int64, typing bool, token string) (Beat, error) {
	body := struct {
		SessionID  string `json:"sessionId"`
		Generation int64  `json:"generation"`
		Typing     bool   `json:"typing"`
		LeaseToken string `json:"leaseToken,omitempty"`
	}{sessionID, generation, typing, token}
	var out Beat
	var into any
	if token != "" {
		into = &out // 200 with the lease; without a token, 204
	}
	_, _, err := c.call(ctx, http.MethodPost, roomPath(roomID, "typing"), body, into)
	return out, err
}

// MarkRead records that this user has read up to seq and returns the
// stored position: the maximum ever received, so retries are harmless.
//
// Returns ErrPermissionDenied unless the user is on the room's roster.
func (c *Client) MarkRead(ctx context.Context, roomID string, seq int64) (int64, error) {
	var out struct {
		LastReadSeq int64 `json:"lastReadSeq"`
	}
	_, _, err := c.call(ctx, http.MethodPost, roomPath(roomID, "receipts"), struct {
		LastReadSeq int64 `json:"lastReadSeq"`
	}{seq}, &out)
	return out.LastReadSeq, err
}
