package client

import (
	"sync"
	"time"
)

// Clock is the time source of a Session: Now for request times, After for
// the heartbeat schedule. Tests supply one they control; nothing in this
// package calls time.Now or time.After directly.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// serverClock estimates the server's clock from lease ends: the server set
// leaseExpiresAt to its own now + the lease length, at some moment between
// sending the request and receiving the answer. The midpoint is the guess;
// the sample with the shortest round trip (in the last minute) wins.
//
// A heartbeat that finds most of its lease left does not renew it and
// answers the lease end of an earlier renewal: that answer says what the
// server's clock read then, not now. Such a time is never later than the
// latest already sampled (that renewal's own answer, or a later one), so
// samples that do not move the server's time forward are ignored. (If the
// renewal's answer was lost, the retry that follows within half a second
// may be sampled; it is off by no more than that delay.)
type serverClock struct {
	mu     sync.Mutex
	offset time.Duration
	rtt    time.Duration
	at     time.Time
	ok     bool
	latest time.Time // the latest server time sampled
}

func (c *serverClock) sample(serverTime, sent, received time.Time) {
	rtt := received.Sub(sent)
	if rtt < 0 {
		rtt = 0
	}
	offset := serverTime.Sub(sent.Add(rtt / 2))
	c.mu.Lock()
	defer c.mu.Unlock()
	if !serverTime.After(c.latest) {
		return
	}
	c.latest = serverTime
	if !c.ok || received.Sub(c.at) > time.Minute || rtt <= c.rtt*3/2 {
		c.offset, c.rtt, c.at, c.ok = offset, rtt, received, true
	}
}

func (c *serverClock) get() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}
