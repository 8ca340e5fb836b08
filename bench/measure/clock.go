package measure

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// StoppedClock is a clock that moves only when the benchmark says so, for
// measuring what a lease's life costs without waiting it out. (The tests'
// internal/testclock is the same idea, and stays a test helper.)
type StoppedClock struct {
	mu  sync.Mutex
	now time.Time
}

// benchStart is the instant a manual clock starts at: fixed, so that runs
// compare.
var benchStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// NewStoppedClock returns a StoppedClock at start.
func NewStoppedClock(start time.Time) *StoppedClock { return &StoppedClock{now: start} }

func (c *StoppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *StoppedClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// RenewUntil sends ref's heartbeats as the clients schedule them: at each
// renewAt the store answers, starting from grant, with the lease token it
// gave, moving clock to each, until the next renewAt would be after end.
// away is the session's mode. It returns the heartbeats sent.
func RenewUntil(ctx context.Context, store *firestoredb.Store, clock *StoppedClock, ref presence.SessionRef, grant presence.Grant, end time.Time, away bool) (int64, error) {
	var sent int64
	for !grant.RenewAt.After(end) {
		clock.Advance(grant.RenewAt.Sub(clock.Now()))
		g, err := store.HeartbeatAway(ctx, presence.AwayRequest{SessionRef: ref, Away: away})
		if err != nil {
			return sent, fmt.Errorf("heartbeat %d: %w", sent+1, err)
		}
		grant, ref.Token = g, g.Token
		sent++
	}
	return sent, nil
}
