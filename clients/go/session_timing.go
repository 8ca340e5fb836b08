package client

import "time"

// When a Session's heartbeats go out and how long each waits: all of it
// against the lease the server granted, on the estimated server clock
// (clock.go), never on the machine's clock alone.

// renewMargin is how long after renewAt (by the estimated server clock) a
// heartbeat goes out, jitter aside: an estimate a little off must not
// bring it before renewAt, where the server would only read and answer
// without renewing.
const renewMargin = 250 * time.Millisecond

// A heartbeat waits at most half the lease it has left, but never less
// than this: a round trip on a poor network can take most of a second.
const minHeartbeatTimeout = time.Second

// nextBeat is how long to wait for the next heartbeat: until the server's
// renewAt, plus renewMargin and up to as much again of jitter (which
// spreads a room's heartbeats apart), but never later than half the
// renewal window (lease end − renewAt) before the lease's end, so that a
// failed heartbeat is retried inside it. From a server
// that gives no renewAt, every heartbeat interval, shortened by the jitter.
func (s *Session) nextBeat() time.Duration {
	j := s.Joined()
	if j.RenewAt.IsZero() {
		hb := j.Heartbeat()
		return time.Duration(float64(hb) * (1 - s.c.jitter*s.c.rand()))
	}
	now := s.c.ServerNow()
	d := j.RenewAt.Sub(now) + renewMargin + time.Duration(float64(renewMargin)*s.c.jitter*s.c.rand())
	return max(0, min(d, j.LeaseExpiresAt.Sub(now)-j.LeaseExpiresAt.Sub(j.RenewAt)/2))
}

// retryDelay is how long to wait after failures heartbeats in a row:
// backoff from half a second, at most the heartbeat interval, and at most
// a third of the lease left, so that the retries still fit inside it.
func (s *Session) retryDelay(failures int) time.Duration {
	j := s.Joined()
	backoff := min(500*time.Millisecond<<min(failures-1, 10), j.Heartbeat())
	if left := j.LeaseExpiresAt.Sub(s.c.ServerNow()); left > 0 {
		backoff = min(backoff, max(100*time.Millisecond, left/3))
	}
	return time.Duration(float64(backoff) * (0.5 + s.c.rand()/2))
}

// heartbeatTimeout is how long a heartbeat of j waits for its answer:
// half the lease it has left by the client's own accounting (on the
// estimated server clock), at least minHeartbeatTimeout, at most the
// request timeout. The server renews only once half the lease is gone, so
// the heartbeat that renews may find as little as half the lease minus
// one interval left (2.5 s of 15 s by default): waiting the full request
// timeout could outlive the lease instead of leaving room for a retry.
func (s *Session) heartbeatTimeout(j Joined) time.Duration {
	d := max(minHeartbeatTimeout, j.LeaseExpiresAt.Sub(s.c.ServerNow())/2)
	if s.c.timeout > 0 {
		d = min(d, s.c.timeout)
	}
	return d
}
