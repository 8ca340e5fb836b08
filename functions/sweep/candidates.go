package sweep

import (
	"sync"
	"sync/atomic"

	"github.com/roomlease/roomlease/functions/presence"
)

// How a step acts on the candidates it listed: each on its own view of the
// pass, several at once, a failing one skipped unless too many fail.

// forItem is the pass as one candidate's act sees it: the same context,
// mode and time, and an empty report of its own.
func (p *pass) forItem() *pass {
	return &pass{ctx: p.ctx, cfg: p.cfg, log: p.log, mode: p.mode, share: p.share, now: p.now}
}

// itemFailed records a failed step on one candidate (one session, one room)
// and says whether the pass must stop. Each candidate is its own
// transaction that re-checks everything it acts on, so skipping one acts on
// nothing unverified; stopping at the first would let a single candidate
// that keeps failing (listed oldest first, so first on every pass) hold up
// every other room's cleanup. A pass whose time is up, or several failures
// in one pass, look like Firestore itself failing: then the pass stops and
// the run backs off.
func (p *pass) itemFailed(step string, err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.r.FailedSteps++
	failure := &stepError{step: step, err: err}
	if p.ctx.Err() != nil || p.r.FailedSteps >= maxItemFailures {
		p.r.Err = failure
		return true
	}
	p.r.ItemErr = failure
	// The full error names the candidate's documents: this line, not the
	// run's summary, is where it may appear (see failure.go).
	p.log.WarnContext(p.ctx, "sweep step failed; went on with the next candidate", "component", "sweeper",
		"error", failure.Error())
	return false
}

// skip reports listed documents that are not presence data: counted, logged
// with their path for an operator to look at, and otherwise left alone.
func (p *pass) skip(paths []string) {
	p.r.SkippedDocuments += len(paths)
	for _, path := range paths {
		p.log.WarnContext(p.ctx, "skipped a document that is not presence data", "component", "sweeper", "path", path)
	}
}

// eachCandidate is the shape of a step that lists candidates and acts on
// each (steps 2, 4, 5 and 7). A failed listing ends the pass as the failed
// step listing (fail closed: nothing is acted upon on a failed read); the
// documents that are not presence data are skipped; a listing as long as
// the batch means more work is waiting; and the candidates are acted on,
// up to Concurrency at once (forEach).
func eachCandidate[T any](p *pass, listing string, l presence.Listing[T], err error, item string, act func(*pass, T) error) error {
	if err != nil {
		return &stepError{step: listing, err: err}
	}
	p.skip(l.Undecodable)
	p.r.Backlog = p.r.Backlog || l.Len() == p.cfg.BatchSize
	return forEach(p, item, l.Items, p.cfg.Concurrency, act)
}

// forEach acts on the candidates, up to atOnce at a time, started in the
// order listed (oldest first); one whose act fails is the failed step item,
// skipped unless itemFailed ends the pass, and then no further candidate
// is started (those already started finish). Each act gets its own view of
// the pass (forItem), whose report is added to the pass's when it returns.
//
// Acting on candidates at once is safe because each act is a transaction
// that re-checks what it acts on: two sweepers' passes (overlapping runs)
// already act on the same candidates at once. With atOnce 1 the candidates
// are acted on strictly in turn, for steps whose acts share state.
func forEach[T any](p *pass, item string, candidates []T, atOnce int, act func(*pass, T) error) error {
	slots := make(chan struct{}, max(atOnce, 1))
	var (
		wg      sync.WaitGroup
		stopped atomic.Bool
	)
	for _, c := range candidates {
		slots <- struct{}{}
		// A slot is free only once the act before it has recorded its
		// failure, so with one slot nothing starts after a stopping one.
		if stopped.Load() {
			<-slots
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			ip := p.forItem()
			err := act(ip, c)
			p.mu.Lock()
			p.r.merge(ip.r)
			p.mu.Unlock()
			if err != nil && p.itemFailed(item, err) {
				stopped.Store(true)
			}
		}()
	}
	wg.Wait()
	if stopped.Load() {
		return errPassStopped
	}
	return nil
}
