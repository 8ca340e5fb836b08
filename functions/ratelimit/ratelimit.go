// Package ratelimit keeps one token bucket per key (a user's uid, a client
// address) in this process, with bounded memory. It is a cost and fairness
// guard for one instance, not a correctness mechanism: N instances admit up
// to N times the rate, and a restarted instance forgets every bucket.
// Nothing in roomlease relies on a request being limited.
package ratelimit

import (
	"container/list"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Config sizes the buckets.
type Config struct {
	// Rate is the sustained number of requests per second per key.
	Rate float64
	// Burst is how many requests a key may make at once after being idle.
	Burst int
	// MaxKeys caps how many keys are tracked. At the cap, the key seen
	// longest ago is forgotten to make room (it starts again with a full
	// bucket if it comes back).
	MaxKeys int
}

// Validate checks c; the messages name the field.
func (c Config) Validate() error {
	switch {
	case !(c.Rate > 0) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("rate %v must be a positive number of requests per second", c.Rate)
	case c.Burst < 1:
		return fmt.Errorf("burst %d must be at least 1", c.Burst)
	case c.MaxKeys < 1:
		return fmt.Errorf("max keys %d must be at least 1", c.MaxKeys)
	}
	return nil
}

// Limiter admits or refuses requests per key. It is safe for concurrent use.
type Limiter struct {
	cfg Config
	now func() time.Time
	// refill is how long an unused bucket takes to fill up from empty.
	// A bucket idle that long is indistinguishable from a new one, so it
	// can be dropped without changing any answer.
	refill time.Duration

	mu sync.Mutex
	// byKey and recent hold the same entries; recent is ordered by last
	// use, most recent at the front, so idle entries collect at the back.
	byKey  map[string]*list.Element
	recent *list.List
}

type entry struct {
	key      string
	lim      *rate.Limiter
	lastSeen time.Time
}

// New returns a Limiter; now is its clock (time.Now in production).
func New(cfg Config, now func() time.Time) (*Limiter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	refill := time.Duration(float64(cfg.Burst) / cfg.Rate * float64(time.Second))
	return &Limiter{cfg: cfg, now: now, refill: refill, byKey: map[string]*list.Element{}, recent: list.New()}, nil
}

// Allow takes one token from key's bucket. When the bucket is empty it
// takes nothing and returns false with how long until a token is there.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropIdle(now)
	var e *entry
	if el, found := l.byKey[key]; found {
		e = el.Value.(*entry)
		l.recent.MoveToFront(el)
	} else {
		if l.recent.Len() >= l.cfg.MaxKeys {
			l.remove(l.recent.Back())
		}
		e = &entry{key: key, lim: rate.NewLimiter(rate.Limit(l.cfg.Rate), l.cfg.Burst)}
		l.byKey[key] = l.recent.PushFront(e)
	}
	e.lastSeen = now
	// AllowN consumes nothing when it refuses, so a client that keeps
	// retrying too early does not push its own next token further away.
	if e.lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - e.lim.TokensAt(now)
	return false, time.Duration(missing / l.cfg.Rate * float64(time.Second))
}

// Len is the number of keys tracked now.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recent.Len()
}

// dropIdle forgets the buckets that have refilled completely. They sit at
// the back of recent, so this stops at the first one still in use: each
// call costs at most the entries it drops, plus one.
func (l *Limiter) dropIdle(now time.Time) {
	for el := l.recent.Back(); el != nil; el = l.recent.Back() {
		if now.Sub(el.Value.(*entry).lastSeen) < l.refill {
			return
		}
		l.remove(el)
	}
}

func (l *Limiter) remove(el *list.Element) {
	delete(l.byKey, el.Value.(*entry).key)
	l.recent.Remove(el)
}
