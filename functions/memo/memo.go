// Package memo remembers recent answers of an expensive lookup, per
// instance: a bounded map whose oldest entries go first, and a way to make
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
	"container/list"
	"sync"

	"golang.org/x/sync/singleflight"
)

// Cache holds up to a fixed number of values by key. It is safe for
// concurrent use.
type Cache[V any] struct {
	mu      sync.Mutex
	max     int
	entries map[string]*list.Element
	// order lists the entries least recently stored first: Put moves an
	// entry to the back, and an overfull cache drops from the front.
	order *list.List
	calls singleflight.Group
}

type entry[V any] struct {
	key   string
	value V
}

// New returns a cache that holds at most size values (at least one).
func New[V any](size int) *Cache[V] {
	return &Cache[V]{max: max(size, 1), entries: map[string]*list.Element{}, order: list.New()}
}

// Get returns the value stored for key, if any.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		return el.Value.(*entry[V]).value, true
	}
	var zero V
	return zero, false
}

// Put stores v for key, dropping the least recently stored value when the
// cache is full: memory stays bounded whatever the number of keys seen.
func (c *Cache[V]) Put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		el.Value.(*entry[V]).value = v
		c.order.MoveToBack(el)
		return
	}
	c.entries[key] = c.order.PushBack(&entry[V]{key: key, value: v})
	for c.order.Len() > c.max {
		oldest := c.order.Remove(c.order.Front()).(*entry[V])
		delete(c.entries, oldest.key)
	}
}

// Len is how many values the cache holds.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
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
