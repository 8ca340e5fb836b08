package memo_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/memo"
)

// The promise Next exists for: a caller that arrives while a call is in
// flight never gets that call's answer, which may have been read before it
// asked. The callers that arrived meanwhile share the next call instead.
func TestNext_CallersArrivingDuringACallShareTheNextOne(t *testing.T) {
	var n memo.Next[int]
	ctx := context.Background()
	var mu sync.Mutex
	calls := 0
	release := make(chan struct{})
	fetch := func() (int, error) {
		mu.Lock()
		calls++
		call := calls
		mu.Unlock()
		if call == 1 {
			<-release
		}
		return call, nil
	}
	first := make(chan int)
	go func() {
		v, _ := n.Do(ctx, "room", fetch)
		first <- v
	}()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return calls == 1 })

	later := make(chan int, 2)
	for range 2 {
		go func() {
			v, _ := n.Do(ctx, "room", fetch)
			later <- v
		}()
	}
	waitFor(t, func() bool { return n.Waiting("room") == 2 })
	close(release)

	if v := <-first; v != 1 {
		t.Errorf("the first caller got call %d, want its own (1)", v)
	}
	for range 2 {
		if v := <-later; v != 2 {
			t.Errorf("a later caller got call %d, want 2: one begun after it asked", v)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 {
		t.Errorf("%d calls for three callers, want 2", calls)
	}
}

// A shared read at a time is given the latest of its callers' floors, so
// that none of them reads at a time before its own; a lone caller reads at
// its own.
func TestNext_ASharedReadAtATimeReadsAtTheLatestFloor(t *testing.T) {
	var n memo.Next[time.Time]
	h := holdReadAt(&n, base)

	// Two callers arrive while the first read is in flight, floors out of
	// order: they share the next read, at the later floor.
	floors := []time.Time{base.Add(3 * time.Microsecond), base.Add(time.Microsecond)}
	later := make(chan time.Time, len(floors))
	for _, f := range floors {
		go func() { later <- h.readAt(f) }()
	}
	waitFor(t, func() bool { return n.Waiting("room") == 2 })
	close(h.release)

	if v := <-h.first; !v.Equal(base) {
		t.Errorf("the lone first caller read at %v, want its own floor %v", v, base)
	}
	for range floors {
		if v := <-later; !v.Equal(floors[0]) {
			t.Errorf("a later caller's shared read was at %v, want the latest floor %v", v, floors[0])
		}
	}
}

// A caller whose floor is no later than the time of the read in flight
// shares that read; one whose floor is later waits for the next.
func TestNext_AReadInFlightAtALaterTimeServesAnEarlierFloor(t *testing.T) {
	var n memo.Next[time.Time]
	h := holdReadAt(&n, base)
	earlier, later := make(chan time.Time), make(chan time.Time)
	go func() { earlier <- h.readAt(base.Add(-time.Microsecond)) }()
	go func() { later <- h.readAt(base.Add(time.Microsecond)) }()
	waitFor(t, func() bool { return n.Waiting("room") == 1 && n.Sharing("room") == 2 })
	close(h.release)
	if v := <-h.first; !v.Equal(base) {
		t.Errorf("the first read was at %v, want %v", v, base)
	}
	if v := <-earlier; !v.Equal(base) {
		t.Errorf("the earlier floor got a read at %v, want the one in flight, at %v", v, base)
	}
	if v := <-later; !v.Equal(base.Add(time.Microsecond)) {
		t.Errorf("the later floor got a read at %v, want its own time", v)
	}
	if c := h.calls.Load(); c != 2 {
		t.Errorf("%d reads for three callers, want 2", c)
	}
}

var base = time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)

// heldRead is a read of n's key "room" at a time, the one at start held
// in flight until release is closed; every caller's read answers its time.
type heldRead struct {
	n       *memo.Next[time.Time]
	start   time.Time
	started chan struct{}
	release chan struct{}
	first   chan time.Time // the first caller's answer
	calls   atomic.Int32   // reads made
}

// holdReadAt starts a read at start and returns once it is in flight.
func holdReadAt(n *memo.Next[time.Time], start time.Time) *heldRead {
	h := &heldRead{n: n, start: start, started: make(chan struct{}), release: make(chan struct{}), first: make(chan time.Time, 1)}
	go func() { h.first <- h.readAt(start) }()
	<-h.started
	return h
}

func (h *heldRead) readAt(floor time.Time) time.Time {
	v, _ := h.n.DoAt(context.Background(), "room", floor, func(at time.Time) (time.Time, error) {
		h.calls.Add(1)
		if at.Equal(h.start) {
			close(h.started)
			<-h.release
		}
		return at, nil
	})
	return v
}

// Keys do not wait for each other, and a lone caller's call starts at once.
func TestNext_KeysAreIndependentAndErrorsPassThrough(t *testing.T) {
	var n memo.Next[int]
	ctx := context.Background()
	block := make(chan struct{})
	go n.Do(ctx, "a", func() (int, error) { <-block; return 0, nil })
	defer close(block)
	v, err := n.Do(ctx, "b", func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("Do(b) = %d, %v while a is in flight; want 7, nil", v, err)
	}
	down := errors.New("down")
	if _, err := n.Do(ctx, "c", func() (int, error) { return 0, down }); !errors.Is(err, down) {
		t.Errorf("Do(c) error = %v, want the call's error", err)
	}
}

// A caller that gives up stops waiting; the call it asked for still runs
// for the others.
func TestNext_ACallerStopsWaitingWhenItsContextEnds(t *testing.T) {
	var n memo.Next[int]
	release := make(chan struct{})
	ran := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := n.Do(ctx, "k", func() (int, error) { close(ran); <-release; return 1, nil })
		done <- err
	}()
	<-ran
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Do returned %v after its context ended, want context.Canceled", err)
	}
	close(release)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
