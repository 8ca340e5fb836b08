package client_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/roomlease/roomlease/client"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// manualClock tells the real time (the server runs on it) but fires the
// heartbeat schedule only when the test says: a process that was
// suspended, or one whose schedule the test inspects.
type manualClock struct {
	mu      sync.Mutex
	pending []chan time.Time
	asked   []time.Duration
	waiting chan struct{}
}

func newManualClock() *manualClock { return &manualClock{waiting: make(chan struct{}, 100)} }

func (c *manualClock) Now() time.Time { return time.Now() }

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.pending = append(c.pending, ch)
	c.asked = append(c.asked, d)
	c.mu.Unlock()
	c.waiting <- struct{}{}
	return ch
}

// waitAsked waits until the session has asked for its n-th timer.
func (c *manualClock) waitAsked(t *testing.T, n int) time.Duration {
	t.Helper()
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
			t.Fatalf("the session never asked for timer %d", n)
		}
	}
}

// fire lets every pending timer go off.
func (c *manualClock) fire() {
	c.mu.Lock()
	p := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, ch := range p {
		ch <- time.Now()
	}
}

func newClient(t *testing.T, base string, opts ...client.Option) (*client.Client, emulatortest.User) {
	t.Helper()
	user := emulatortest.SignUp(t)
	c, err := client.New(base, client.StaticToken(user.IDToken), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, user
}

func roomName(t *testing.T) string { return fmt.Sprintf("client-%d", time.Now().UnixNano()) }

func ptr(s string) *string { return &s }

// eventually polls cond until it holds or limit passes.
func eventually(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: still not %s", limit, what)
		}
	}
}

func names(snap client.RoomSnapshot) []string {
	var out []string
	for _, p := range snap.Participants {
		out = append(out, p.DisplayName)
	}
	return out
}
