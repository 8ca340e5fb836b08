package measure

import (
	"sync"
	"time"
)

// manualClock is a clock that moves only when the benchmark says so, for
// measuring what a lease's life costs without waiting it out. (The tests'
// internal/testclock is the same idea, and stays a test helper.)
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

// benchStart is the instant a manual clock starts at: fixed, so that runs
// compare.
var benchStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newManualClock(start time.Time) *manualClock { return &manualClock{now: start} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
