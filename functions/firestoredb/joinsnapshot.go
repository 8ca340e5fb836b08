package firestoredb

import (
	"context"
	"fmt"
	"time"

	"github.com/roomlease/roomlease/functions/steptime"
)

// The snapshot of size and revision a join into a room that keeps its
// revision on its entries waits for, shared by an instance's joins.

// joinCounts takes, for a join into an active room that keeps its
// revision on its entries, the room's revision from one snapshot read
// beside the join's transaction (counts, begun by startEntrySnapshot).
// A new user's join takes it from the snapshot that judges its claim
// instead (claimedCounts), with the size.
//
// Why the reply may be that revision plus the join's change: the snapshot
// is taken after the request arrived, so it is at least every revision a
// client could have seen before asking; and the join's change commits after
// it (the join waits for the snapshot before it decides), on top of every
// change committed by then (the revision never goes down within a lifetime:
// changes only move between documents), so the revision right after the
// join is at least the snapshot's plus one. A reply of exactly that is a
// revision that counts the join and is never above what listeners see
// after it. One snapshot instead of a second read of both sums after the
// commit: the roster is aggregated once per join.
func (s *Store) joinCounts(counts *pendingCounts) (*int64, error) {
	t, err := counts.totals()
	if err != nil {
		return nil, err
	}
	return &t.revision, nil
}

// pendingCounts is an entry snapshot under way (startEntrySnapshot).
type pendingCounts struct {
	done chan struct{}
	t    entryTotals
	err  error
}

// startEntrySnapshot begins entrySnapshot for src in the background, timed
// as the join's size step. A claim's snapshot (claimedAt not zero: the
// claim's update time) counts the room's claims on places too (claims.go),
// and is read at a time at or after claimedAt when the store can
// (readat.go), in one round trip instead of a transaction's three.
//
// An instance's joins into one room share snapshots (entrySnapshots), but
// only one begun after the join arrived, or, with claims, one read at its
// claim's time or later: that is all joinCounts's and the claims'
// arguments ask of the snapshot, and a shared one is as good as the
// join's own.
// Without sharing, a crowd of N aggregated a roster of up to N entries N
// times, O(N²) index entries, which on the emulator took most of both
// cores; now each instance aggregates about once per snapshot's length
// whatever the crowd. The sharing only makes an instance cheaper: every
// instance still takes its own snapshots.
func (s *Store) startEntrySnapshot(ctx context.Context, src revisionSource, claimedAt time.Time) *pendingCounts {
	c := &pendingCounts{done: make(chan struct{})}
	withClaims := !claimedAt.IsZero()
	atClaim := withClaims && s.aggsAt != nil
	go func() {
		defer close(c.done)
		began := time.Now()
		key := fmt.Sprintf("%s/%d/%t", src.roomID, src.lifetime.UnixNano(), withClaims)
		// A read at a claim's time is as good for every claim written
		// before it, so the instance's claims share one at the latest of
		// their times (memo.Next.DoAt); the others ignore the time.
		c.t, c.err = s.entrySnapshots.DoAt(ctx, key, claimedAt, func(at time.Time) (entryTotals, error) {
			// Not this join's deadline: the others wait on the call too.
			readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
			defer cancel()
			if atClaim {
				// Failed, the read-only transaction is as good (begun
				// now, after every caller's claim), only slower: the
				// join does not fail for want of the faster read.
				if t, err := s.claimSnapshotAt(readCtx, src, at); err == nil {
					return t, nil
				}
			}
			return s.entrySnapshot(readCtx, src, withClaims)
		})
		steptime.Since(ctx, stepJoinSize, began)
	}()
	return c
}

// entryTotals is what one entry snapshot reads: the revision, the number
// of entries and, when asked, the number of claims on places.
type entryTotals struct {
	revision int64
	entries  int
	claims   int
}

// totals returns the snapshot once it has been read; it may be called
// again.
func (c *pendingCounts) totals() (entryTotals, error) {
	<-c.done
	return c.t, c.err
}

// wait waits for the snapshot, for a defer.
func (c *pendingCounts) wait() { <-c.done }
