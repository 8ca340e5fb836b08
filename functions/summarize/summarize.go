// Package summarize is the one writer of large rooms' summaries: a loop
// that, about once a second, lists the rooms that have one and refreshes
// each (presence.Summary). The joins and leaves of those rooms never write
// a summary; they mark a room once, when it crosses its threshold, and
// this loop does the rest on its own cadence, so that a room's listeners
// read at most one document a second whatever the churn.
//
// Several summarizers may run at once (overlapping scheduled runs, several
// dev processes): the store writes each summary on the condition that it
// is still the version it read, so at most one refresh per room and
// period lands. Nothing here is needed for correctness of the roster; a
// summarizer that stops leaves summaries that say when they were taken
// (asOf), and listeners can tell.
package summarize

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// Store is what the summarizer needs of the presence store.
type Store interface {
	// SummarizedRooms returns up to limit ids of rooms with a summary to
	// keep: those marked large and those that opt in to public occupancy.
	SummarizedRooms(ctx context.Context, limit int) ([]string, error)
	// RefreshSummary refreshes a room's summary if the last one is at
	// least presence.SummaryEvery old, or removes it when the room is gone
	// or has shrunk; it reports whether it wrote. A refresh that lost to
	// another summarizer is no error.
	RefreshSummary(ctx context.Context, roomID string) (bool, error)
}

// MaxRooms bounds the rooms one pass refreshes; Parallel how many at once.
// ListEvery is how often the list of summarized rooms is read again: a
// room that has just become large gets its first summary within it, and a
// deployment without large rooms costs two reads per ListEvery.
const (
	MaxRooms  = 1000
	Parallel  = 8
	ListEvery = 15 * time.Second
)

// Summarizer refreshes summaries until its context ends.
type Summarizer struct {
	store Store
	sleep func(context.Context, time.Duration) error
	log   *slog.Logger
	// rooms is the list as last read, and passes until it is read again.
	// Guarded by mu: overlapping Sweep runs on one instance share the
	// summarizer.
	mu        sync.Mutex
	rooms     []string
	listAfter int
}

// New returns a summarizer on store; sleep waits between passes (tests
// pass one that advances a clock).
func New(store Store, sleep func(context.Context, time.Duration) error, log *slog.Logger) *Summarizer {
	if log == nil {
		log = slog.Default()
	}
	return &Summarizer{store: store, sleep: sleep, log: log}
}

// Run makes a pass every presence.SummaryEvery until ctx ends. A failed
// pass is logged and the next one comes on time: a summary late by a
// second is a summary, and the store's own retries cover the rest.
func (z *Summarizer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := z.Pass(ctx); err != nil && ctx.Err() == nil {
			z.log.WarnContext(ctx, "summary pass failed", "component", "summarizer", "error", err.Error())
		}
		if z.sleep(ctx, presence.SummaryEvery) != nil {
			return
		}
	}
}

// Pass refreshes every summarized room once and returns how many
// summaries it wrote; the first error, if any, after trying them all. It
// reads the list of rooms on its first call and then every
// ListEvery / SummaryEvery passes. Concurrent passes (overlapping runs)
// are safe: the store's conditional write keeps each summary to one
// refresh per period.
func (z *Summarizer) Pass(ctx context.Context) (int, error) {
	rooms, err := z.roomsToRefresh(ctx)
	if err != nil {
		return 0, err
	}
	var (
		mu      sync.Mutex
		wrote   int
		first   error
		wg      sync.WaitGroup
		workers = make(chan struct{}, Parallel)
	)
	for _, id := range rooms {
		wg.Add(1)
		workers <- struct{}{}
		go func() {
			defer func() { <-workers; wg.Done() }()
			ok, err := z.store.RefreshSummary(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			if ok {
				wrote++
			}
			if err != nil && first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	return wrote, first
}

// roomsToRefresh returns the list of summarized rooms, read again every
// ListEvery / SummaryEvery calls.
func (z *Summarizer) roomsToRefresh(ctx context.Context) ([]string, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.listAfter <= 0 {
		rooms, err := z.store.SummarizedRooms(ctx, MaxRooms)
		if err != nil {
			return nil, err
		}
		z.rooms, z.listAfter = rooms, int(ListEvery/presence.SummaryEvery)
	}
	z.listAfter--
	return z.rooms, nil
}
