package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// Session holds one lease in one room and keeps it alive until it ends:
// by Leave or LeaveRoom, by Close, when the context it was started with
// ends (it leaves first), or when the server refuses the user. Done and
// Err say when and why. Its methods are safe for concurrent use.
type Session struct {
	c      *Client
	ctx    context.Context // JoinRoom's: every heartbeat and rejoin runs on it
	roomID string
	opts   SessionOptions

	mu     sync.Mutex
	joined Joined // the latest join, with LeaseExpiresAt moved by heartbeats
	// and its intervals by heartbeats that answered the away mode
	away  bool            // what every heartbeat and rejoin says
	state json.RawMessage // the last state set, sent again with a rejoin
	why   error           // why the session ends; set once, with beatMu held too

	beatMu   sync.Mutex // one heartbeat, rejoin or leave at a time
	wake     chan struct{}
	stop     chan struct{} // closed by Close and LeaveRoom
	stopOnce sync.Once
	loopDone chan struct{} // closed when the heartbeat loop has returned
	done     chan struct{} // closed when the session has ended (Done)
	doneOnce sync.Once
}

// JoinRoom joins roomID and starts heartbeating in a goroutine. ctx bounds
// the join and is the session's lifetime: every heartbeat and rejoin runs
// on it (with its values), and when it ends the session stops, leaves the
// room (best effort, on a context without ctx's cancellation, bounded by
// the request timeout) and ends, with Err reporting ctx's cause. Pass a
// context that lives as long as the session should, not one with a
// deadline meant for the join alone.
//
// Returns the join's errors (see Join).
func (c *Client) JoinRoom(ctx context.Context, roomID string, opts SessionOptions) (*Session, error) {
	if opts.SessionID == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		opts.SessionID = hex.EncodeToString(b)
	}
	var state json.RawMessage
	if opts.State != nil {
		raw, err := json.Marshal(opts.State)
		if err != nil {
			return nil, err
		}
		state = raw
	}
	j, err := c.join(ctx, roomID, joinBody{SessionID: opts.SessionID, DisplayName: opts.DisplayName, State: state, Away: opts.Away})
	if err != nil {
		return nil, err
	}
	s := &Session{c: c, ctx: ctx, roomID: roomID, opts: opts, joined: j, away: opts.Away, state: state,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), loopDone: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s, nil
}

// Done is closed when the session has ended: it left (Leave, LeaveRoom,
// or its context ended and the leave that followed was answered or gave
// up), it was closed, or the server refused the user.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is nil until Done is closed; then it says why the session ended:
// ErrLeft after Leave or LeaveRoom, ErrClosed after Close, the context's
// cause when the context JoinRoom was given ended (context.Canceled,
// context.DeadlineExceeded, or what context.WithCancelCause was given),
// or the *APIError matching ErrPermissionDenied when the server refused
// the user. The first reason wins.
func (s *Session) Err() error {
	select {
	case <-s.done:
	default:
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// ending records why the session ends unless a reason was recorded
// before, and reports whether this one was first. The caller holds
// beatMu, so no heartbeat or rejoin is in flight, and none starts after
// (Beat refuses once a reason is recorded): a rejoin can never follow the
// leave that ends the session.
func (s *Session) ending(why error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.why != nil {
		return false
	}
	s.why = why
	return true
}

func (s *Session) ended() { s.doneOnce.Do(func() { close(s.done) }) }

func (s *Session) endingErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// RoomID is the room this session is in.
func (s *Session) RoomID() string { return s.roomID }

// SessionID is the session id every join of this session uses.
func (s *Session) SessionID() string { return s.opts.SessionID }

// Joined returns the latest join answer, its LeaseExpiresAt moved on by
// the heartbeats since.
func (s *Session) Joined() Joined {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.joined
}

// Generation is the generation the session currently holds.
func (s *Session) Generation() int64 { return s.Joined().Generation }

func (s *Session) emit(e Event) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(e)
	}
}

// loop heartbeats when the server said to renew (renewAt; see nextBeat),
// and after a failure sooner, with backoff inside the lease left, unless
// the server's Retry-After says otherwise. It runs until Close or
// LeaveRoom stop it, the session's context ends (then it leaves), or the
// server refuses the user.
func (s *Session) loop() {
	defer close(s.loopDone)
	failures := 0
	var notBefore time.Duration // the last answer's Retry-After
	for {
		// Checked before the select too: a select picks at random among
		// ready cases, and a beat on an ended context only fails.
		if s.ctx.Err() != nil {
			s.leaveOnCancel()
			return
		}
		delay := s.nextBeat()
		if failures > 0 {
			delay = s.retryDelay(failures)
			// The server said when to come back (429, or a 503 with
			// Retry-After): sooner would only be refused again. This may
			// be later than the regular interval, even past the lease end;
			// the next beat then rejoins.
			delay = max(delay, notBefore)
		}
		select {
		case <-s.stop:
			return
		case <-s.ctx.Done():
			s.leaveOnCancel()
			return
		case <-s.wake:
		case <-s.c.clock.After(delay):
		}
		err := s.Beat(s.ctx)
		if s.ctx.Err() != nil {
			continue // ended meanwhile: leave, above
		}
		notBefore = 0
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			notBefore = apiErr.RetryAfter
		}
		switch {
		case err == nil:
			failures = 0
		case errors.Is(err, ErrPermissionDenied):
			s.emit(Event{Kind: Stopped, Generation: s.Generation(), Err: err})
			s.beatMu.Lock()
			s.ending(err)
			s.beatMu.Unlock()
			s.ended()
			return
		default:
			failures++
			s.emit(Event{Kind: Failed, Generation: s.Generation(), Err: err})
		}
	}
}

// leaveOnCancel ends the session because its context ended: it leaves
// first, best effort, so that others see the user go now rather than when
// the lease runs out. The leave runs on a context with the session
// context's values but not its cancellation, bounded by the request
// timeout (DefaultRequestTimeout if the client has none).
func (s *Session) leaveOnCancel() {
	s.beatMu.Lock()
	defer s.beatMu.Unlock()
	defer s.ended()
	if !s.ending(context.Cause(s.ctx)) {
		return
	}
	bound := s.c.timeout
	if bound <= 0 {
		bound = DefaultRequestTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), bound)
	defer cancel()
	j := s.Joined()
	_, err := s.c.LeaveRoom(ctx, s.roomID, s.opts.SessionID, j.Generation)
	s.emit(Event{Kind: Left, Generation: j.Generation, Err: err})
}

// Beat heartbeats now, and joins again if the server answers 409: call it
// when the process suspects its lease lapsed (after a pause, a network
// change). The heartbeat loop uses it too, on the session's context. The
// heartbeat waits at most half the lease it has left (see
// WithRequestTimeout); the rejoin, the request timeout.
//
// Returns the reason the session ended (see Err), sending nothing, once it
// is ending.
func (s *Session) Beat(ctx context.Context) error {
	s.beatMu.Lock()
	defer s.beatMu.Unlock()
	if why := s.endingErr(); why != nil {
		return why
	}
	s.mu.Lock()
	j, away := s.joined, s.away
	s.mu.Unlock()
	hctx, cancel := context.WithTimeoutCause(ctx, s.heartbeatTimeout(j), ErrTimeout)
	beat, err := s.c.Renew(hctx, s.roomID, s.opts.SessionID, j.Generation, j.Lease(), away, j.LeaseToken)
	cancel()
	if err == nil {
		s.mu.Lock()
		if s.joined.Generation == j.Generation {
			s.renewed(beat)
			// An away session holds a longer lease and beats less often:
			// the reply says both for the mode the session is now in.
			if beat.LeaseSeconds > 0 && beat.HeartbeatSeconds > 0 {
				s.joined.LeaseSeconds, s.joined.HeartbeatSeconds = beat.LeaseSeconds, beat.HeartbeatSeconds
			}
		}
		s.mu.Unlock()
		s.emit(Event{Kind: Renewed, Generation: j.Generation, LeaseExpiresAt: beat.LeaseExpiresAt})
		return nil
	}
	if !errors.Is(err, ErrStaleGeneration) {
		return err
	}
	// The lease ended or a newer join superseded it: join again with the
	// same session id, the mode and the last state set (an expired entry
	// took the state with it). Retrying the old generation would never
	// succeed.
	s.mu.Lock()
	body := joinBody{SessionID: s.opts.SessionID, DisplayName: s.opts.DisplayName, State: s.state, Away: s.away}
	s.mu.Unlock()
	nj, err := s.c.join(ctx, s.roomID, body)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.joined = nj
	s.mu.Unlock()
	s.emit(Event{Kind: Rejoined, Generation: nj.Generation, LeaseExpiresAt: nj.LeaseExpiresAt})
	return nil
}

// renewed records a lease answer for the current generation: its end,
// when to renew, and the token for that renewal. Called with s.mu held.
func (s *Session) renewed(b Beat) {
	s.joined.LeaseExpiresAt, s.joined.RenewAt = b.LeaseExpiresAt, b.RenewAt
	if b.LeaseToken != "" {
		s.joined.LeaseToken = b.LeaseToken
	}
}

// Wake asks the heartbeat loop to heartbeat now instead of at its next tick.
func (s *Session) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Close stops heartbeating without leaving: the lease ends by itself.
// The session ends with ErrClosed, unless it had ended before.
func (s *Session) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.loopDone
	s.beatMu.Lock()
	s.ending(ErrClosed)
	s.beatMu.Unlock()
	s.ended()
}

// LeaveRoom stops heartbeating and leaves; see LeaveResult. The session
// ends with ErrLeft, unless it had ended before (the leave is sent all the
// same: after Close, it is how to leave).
func (s *Session) LeaveRoom(ctx context.Context) (LeaveResult, error) {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.loopDone
	// Holding beatMu: a heartbeat or rejoin in flight (Beat called by the
	// application) may still move the generation, and none may start
	// after the leave.
	s.beatMu.Lock()
	defer s.beatMu.Unlock()
	defer s.ended()
	s.ending(ErrLeft)
	return s.c.LeaveRoom(ctx, s.roomID, s.opts.SessionID, s.Generation())
}

// Leave stops heartbeating and leaves. removed is false when the lease had
// already ended or been superseded (not an error).
func (s *Session) Leave(ctx context.Context) (removed bool, err error) {
	res, err := s.LeaveRoom(ctx)
	return res.Removed, err
}

// SetTyping sets or clears the typing signal under the current generation.
// On ErrStaleGeneration the heartbeat loop is woken to rejoin; typing is
// best effort and never replayed.
//
// It carries the session's lease token, so that the server can fence the
// signal without reading the session; it then renews the lease, and the
// next heartbeat moves back accordingly.
func (s *Session) SetTyping(ctx context.Context, typing bool) error {
	j := s.Joined()
	beat, err := s.c.typing(ctx, s.roomID, s.opts.SessionID, j.Generation, typing, j.LeaseToken)
	if errors.Is(err, ErrStaleGeneration) {
		s.Wake()
	}
	if err == nil && !beat.LeaseExpiresAt.IsZero() {
		s.mu.Lock()
		if s.joined.Generation == j.Generation && beat.LeaseExpiresAt.After(s.joined.LeaseExpiresAt) {
			s.renewed(beat)
		}
		s.mu.Unlock()
	}
	return err
}

// SetAway says whether the user is away from this session (a hidden
// window, a backgrounded app) and heartbeats at once to tell the server:
// from then on every heartbeat and rejoin says so, and the session adopts
// the lease and interval the reply gives for that mode, so an away session
// beats less often and still keeps its lease.
//
// Returns Beat's errors; the mode is kept all the same, and the next
// heartbeat carries it.
func (s *Session) SetAway(ctx context.Context, away bool) error {
	s.mu.Lock()
	s.away = away
	s.mu.Unlock()
	return s.Beat(ctx)
}

// Away reports the mode the session's heartbeats carry.
func (s *Session) Away() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.away
}

// SetState replaces this user's state in the room (see Client.SetState)
// under the session's generation, and keeps it to send again with a
// rejoin. On ErrStaleGeneration it rejoins, as a heartbeat does, with
// this state, so the state is on the roster all the same.
//
// Returns Client.SetState's errors other than a stale generation, and a
// failed rejoin's; a refused state (too large, too fast) is not kept.
func (s *Session) SetState(ctx context.Context, state any) (StateResult, error) {
	raw, err := json.Marshal(state)
	if err != nil {
		return StateResult{}, err
	}
	res, err := s.c.SetState(ctx, s.roomID, s.opts.SessionID, s.Generation(), json.RawMessage(raw))
	if err == nil {
		s.keepState(raw)
		return res, nil
	}
	if !errors.Is(err, ErrStaleGeneration) {
		return res, err
	}
	// The lease ended or another join superseded this one: rejoin, then
	// set the state under the new generation (the rejoin may have beaten
	// and found the lease alive after all, under another generation).
	if err := s.Beat(ctx); err != nil {
		return StateResult{}, err
	}
	res, err = s.c.SetState(ctx, s.roomID, s.opts.SessionID, s.Generation(), json.RawMessage(raw))
	if err == nil {
		s.keepState(raw)
	}
	return res, err
}

func (s *Session) keepState(raw json.RawMessage) {
	s.mu.Lock()
	s.state = raw
	s.mu.Unlock()
}

// MarkRead records the read position (see Client.MarkRead).
func (s *Session) MarkRead(ctx context.Context, seq int64) (int64, error) {
	return s.c.MarkRead(ctx, s.roomID, seq)
}

// Room reads the room's live roster (see Client.Room).
func (s *Session) Room(ctx context.Context) (RoomSnapshot, error) {
	return s.c.Room(ctx, s.roomID)
}
