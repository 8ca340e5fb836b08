package memo

import (
	"context"
	"sync"
	"time"
)

// Next shares a read among callers that each need one taken after they
// asked: a snapshot that must not be older than the request waiting on it.
// Once cannot give that promise: a caller that joins a call already in
// flight gets an answer read before it arrived.
//
// So Next runs at most one call per key at a time, and a caller of Do
// never joins it (DoAt's callers may, when its time suits them). A caller joins the call that starts next, which every caller
// arriving while one is in flight shares; it starts as soon as the one in
// flight ends. A caller that finds none in flight starts its own at once,
// so a lone caller waits no longer than without Next, and a burst of N
// costs about (its length ÷ one call's) calls instead of N.
type Next[V any] struct {
	mu   sync.Mutex
	keys map[string]*nextKey[V]
}

// nextKey is one key's state: whether a call is in flight, and the call
// that will start after it, if anyone has asked for one.
type nextKey[V any] struct {
	running bool
	// inFlight is the call running, for DoAt's callers that its time
	// already suits.
	inFlight *nextCall[V]
	waiting  *nextCall[V]
}

type nextCall[V any] struct {
	fetch func(at time.Time) (V, error)
	// at is the latest of its callers' floors (DoAt): the call reads at
	// that time, which none of them may find too early.
	at   time.Time
	done chan struct{}
	v    V
	err  error
	// callers is how many callers share the call (for tests: the way to
	// know that callers have arrived).
	callers int
}

// Do returns the result of fetch for key, from a call that began after Do
// was called: its own, or one it shares with callers of the same key. The
// call runs whatever happens to ctx (others may share it), so fetch must
// bound itself; ctx bounds only how long this caller waits.
func (n *Next[V]) Do(ctx context.Context, key string, fetch func() (V, error)) (V, error) {
	return n.DoAt(ctx, key, time.Time{}, func(time.Time) (V, error) { return fetch() })
}

// DoAt is Do for reads taken at a time of the caller's choosing: each
// caller names the earliest time it may read at (floor), and the call it
// shares is given the latest of its callers' floors. A read at a given
// time is as good whenever it is made, so what a caller needs is a time
// no earlier than its floor, not a call begun after it asked: one whose
// floor is no later than the time of the call in flight joins that call
// (a claim whose write committed first but whose answer came last, say).
// Callers of one key pass the same kind of fetch: the first's runs.
func (n *Next[V]) DoAt(ctx context.Context, key string, floor time.Time, fetch func(at time.Time) (V, error)) (V, error) {
	n.mu.Lock()
	if n.keys == nil {
		n.keys = make(map[string]*nextKey[V])
	}
	k := n.keys[key]
	if k == nil {
		k = &nextKey[V]{}
		n.keys[key] = k
	}
	c := k.waiting
	if f := k.inFlight; !floor.IsZero() && f != nil && !f.at.IsZero() && !floor.After(f.at) {
		c = f
	} else if c == nil {
		c = &nextCall[V]{fetch: fetch, done: make(chan struct{})}
		k.waiting = c
		if !k.running {
			k.running = true
			go n.run(key, k)
		}
	}
	c.callers++
	if floor.After(c.at) {
		c.at = floor
	}
	n.mu.Unlock()
	select {
	case <-c.done:
		return c.v, c.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// run makes key's calls one after the other while callers keep asking,
// and forgets the key when none is waiting.
func (n *Next[V]) run(key string, k *nextKey[V]) {
	for {
		n.mu.Lock()
		c := k.waiting
		if c == nil {
			k.running = false
			delete(n.keys, key)
			n.mu.Unlock()
			return
		}
		// Taken off before it starts: whoever asks from now on waits for
		// the call after this one.
		k.waiting, k.inFlight = nil, c
		n.mu.Unlock()
		c.v, c.err = c.fetch(c.at)
		n.mu.Lock()
		k.inFlight = nil
		n.mu.Unlock()
		close(c.done)
	}
}
