// Package memo remembers recent answers of an expensive lookup, per
// instance: a bounded map whose least recently used entries go first
// (github.com/hashicorp/golang-lru), and a way to make
// concurrent lookups of one key share a single call.
//
// A memo only ever makes one instance cheaper. It is never what makes the
// system correct: another instance has its own, and every answer it holds
// may be as old as its caller allows. Freshness is the caller's to judge
// (the values carry their own times), because callers differ in what they
// may serve once an answer is old: the auth package serves a last good
// answer for a while when a lookup fails, the presence store never does.
package memo

import (
	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"
)

// Cache holds up to a fixed number of values by key, dropping the least
// recently used first. It is safe for concurrent use.
type Cache[V any] struct {
	// lru has no TTL: its expiry reads the wall clock and, in v2.0.7,
	// starts a goroutine per cache that never ends, while every caller
	// here judges age itself, on its own injected clock.
	lru   *expirable.LRU[string, V]
	calls singleflight.Group
}

// New returns a cache that holds at most size values (at least one).
func New[V any](size int) *Cache[V] {
	return &Cache[V]{lru: expirable.NewLRU[string, V](max(size, 1), nil, 0)}
}

// Get returns the value stored for key, if any, and makes it the most
// recently used: an entry in use is the last to go.
func (c *Cache[V]) Get(key string) (V, bool) {
	return c.lru.Get(key)
}

// Put stores v for key, dropping the least recently used value when the
// cache is full: memory stays bounded whatever the number of keys seen.
func (c *Cache[V]) Put(key string, v V) {
	c.lru.Add(key, v)
}

// Len is how many values the cache holds.
func (c *Cache[V]) Len() int {
	return c.lru.Len()
}

// Once calls fetch for key, unless a call for the same key is already in
// flight: then it waits for that call and returns its result. So a burst of
// requests that all find an entry stale costs one lookup, not one each. It
// does not store the result; the caller decides what is worth keeping.
func (c *Cache[V]) Once(key string, fetch func() (V, error)) (V, error) {
	v, err, _ := c.calls.Do(key, func() (any, error) { return fetch() })
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}
