package client

import (
	"testing"
	"time"
)

// A heartbeat that does not renew answers the lease end of an earlier
// renewal; read as "the server's now", it would put the server's clock
// behind by the time since that renewal. The clock ignores it.
func TestServerClock_IgnoresAnswersThatDoNotMoveServerTimeForward(t *testing.T) {
	var c serverClock
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	skew := 3 * time.Second // the server runs 3 s ahead of this device
	c.sample(t0.Add(skew), t0, t0.Add(100*time.Millisecond))
	want := c.get()

	// 5 s later a skipping heartbeat answers the lease end set at t0, with
	// a faster round trip, which would otherwise win.
	later := t0.Add(5 * time.Second)
	c.sample(t0.Add(skew), later, later.Add(10*time.Millisecond))
	if got := c.get(); got != want {
		t.Fatalf("offset %v after a non-renewing answer, want %v kept", got, want)
	}

	// A renewal 5 s later is a fresh sample, and its faster round trip wins.
	c.sample(later.Add(skew).Add(5*time.Millisecond), later, later.Add(10*time.Millisecond))
	if got := c.get(); got != skew {
		t.Fatalf("offset %v after a renewal, want %v", got, skew)
	}
}
