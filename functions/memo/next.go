package memo

import (
	"context"
	"sync"
)

// Next shares a read among callers that each need one taken after they
// asked: a snapshot that must not be older than the request waiting on it.
// Once cannot give that promise: a caller that joins a call already in
// flight gets an answer read before it arrived.
//
// So Next runs at most one call per key at a time, and a caller never joins
// it. A caller joins the call that starts next, which every caller
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
	waiting *nextCall[V]
}

type nextCall[V any] struct {
	fetch func() (V, error)
	done  chan struct{}
	v     V
	err   error
	// callers is how many callers share the call (for tests: the way to
	// know that callers have arrived).
	callers int
}

// Do returns the result of fetch for key, from a call that began after Do
// was called: its own, or one it shares with callers of the same key. The
// call runs whatever happens to ctx (others may share it), so fetch must
// bound itself; ctx bounds only how long this caller waits.
func (n *Next[V]) Do(ctx context.Context, key string, fetch func() (V, error)) (V, error) {
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
	if c == nil {
		c = &nextCall[V]{fetch: fetch, done: make(chan struct{})}
		k.waiting = c
		if !k.running {
			k.running = true
			go n.run(key, k)
		}
	}
	c.callers++
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
		k.waiting = nil
		n.mu.Unlock()
		c.v, c.err = c.fetch()
		close(c.done)
	}
}
