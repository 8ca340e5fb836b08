package events

import (
	"context"
	"sync"
)

// Deduper remembers which events were handled. Seen reports whether id
// was marked before; Mark records it once the event was handled (a
// failed handling is not marked, so its redelivery is handled again).
type Deduper interface {
	Seen(ctx context.Context, id string) (bool, error)
	Mark(ctx context.Context, id string) error
}

// MemoryDeduper remembers the last Size ids marked, in this process only
// (see the package doc). Safe for concurrent use.
type MemoryDeduper struct {
	Size int // default 10 000

	mu    sync.Mutex
	seen  map[string]bool
	order []string // ring of the ids in seen, oldest at next
	next  int
}

// Seen reports whether id was marked among the last Size ids.
func (d *MemoryDeduper) Seen(_ context.Context, id string) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen[id], nil
}

// Mark records id, forgetting the oldest id once Size are held.
func (d *MemoryDeduper) Mark(_ context.Context, id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		size := d.Size
		if size <= 0 {
			size = 10000
		}
		d.seen, d.order = map[string]bool{}, make([]string, size)
	}
	if d.seen[id] {
		return nil
	}
	if old := d.order[d.next]; old != "" {
		delete(d.seen, old)
	}
	d.order[d.next], d.seen[id] = id, true
	d.next = (d.next + 1) % len(d.order)
	return nil
}
