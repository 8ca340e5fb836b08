// Package clienttest holds what tests of code built on the roomlease Go
// client need: a clock whose timers fire when the test says, so that a
// session's heartbeat schedule can be inspected and driven without sleeps.
package clienttest

import (
	"sync"
	"testing"
	"time"
)

// ManualClock tells the real time (a server the test talks to runs on it)
// but fires the timers a Session asks for only when the test calls Fire:
// a process that was suspended, or one whose schedule the test inspects.
// Pass it to client.WithClock. It is safe for concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	pending []chan time.Time
	asked   []time.Duration
	waiting chan struct{} // a token per timer asked for, to wake WaitAsked
}

// NewManualClock returns a clock with no timers pending.
func NewManualClock() *ManualClock { return &ManualClock{waiting: make(chan struct{}, 1)} }

// Now is the real time.
func (c *ManualClock) Now() time.Time { return time.Now() }

// After records a timer of d, which fires at the next Fire.
func (c *ManualClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.pending = append(c.pending, ch)
	c.asked = append(c.asked, d)
	c.mu.Unlock()
	select {
	case c.waiting <- struct{}{}:
	default: // a wake-up is pending already; WaitAsked counts the timers itself
	}
	return ch
}

// WaitAsked waits until the n-th timer (counting from 1) has been asked
// for, and returns its duration; it fails tb if that has not happened
// within 20 seconds.
func (c *ManualClock) WaitAsked(tb testing.TB, n int) time.Duration {
	tb.Helper()
	deadline := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		if len(c.asked) >= n {
			d := c.asked[n-1]
			c.mu.Unlock()
			return d
		}
		c.mu.Unlock()
		select {
		case <-c.waiting:
		case <-deadline:
			tb.Fatalf("timer %d was never asked for", n)
			return 0
		}
	}
}

// Fire lets every pending timer go off.
func (c *ManualClock) Fire() {
	c.mu.Lock()
	p := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, ch := range p {
		ch <- time.Now()
	}
}
