package firestoredb

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// maxAttempts bounds transaction retries under contention: Firestore aborts
// all but one of the transactions that contend for a document, and the
// client retries the others with backoff.
const maxAttempts = 30

// txn is one attempt of a Firestore transaction. It counts what the attempt
// reads and stages, so that call sites never count by hand.
type txn struct {
	tx     *firestore.Transaction
	ops    *opMeter
	writes int // staged in this attempt; billed only if it commits
	// events are the outbox records staged in this attempt (outbox.go):
	// those of the attempt that commits are published after the commit.
	events []presence.OutboxEvent
}

// transact runs f as one Firestore transaction, every attempt with a fresh
// `now`, and maps its error for op.
//
// Firestore locks what a transaction reads until it commits, so everything f
// decides from its reads holds at commit; a conflicting transaction makes
// one of them retry, and f runs again from scratch. Nothing in this process
// orders transactions: with many instances, only Firestore can, and the
// layout keeps transactions of different users in one room from touching a
// common document (see revision.go), so they have nothing to wait for.
//
// After a commit, the events the committed attempt staged are published
// (outbox.go); a retried attempt's never are, and publishing never turns
// the commit into an error.
//
// A failure names how many attempts ran and for how long (wall time), so
// that a request that timed out tells a transaction retried under
// contention (many attempts) from one that waited on a lock or a starved
// emulator (one attempt that took the whole deadline).
func (s *Store) transact(ctx context.Context, op string, f func(tx *txn, now time.Time) error, opts ...firestore.TransactionOption) error {
	return s.transactAfter(ctx, op, nil, f, opts...)
}

// transactAfter is transact whose attempts wait for ready to be closed (nil:
// no wait) before they run f: the transaction is begun meanwhile.
// Beginning takes a round trip but no lock (a transaction locks what it
// reads, and f has read nothing yet), so work that must come before the
// reads can overlap it instead of preceding it. f's now is taken after the
// wait. Firestore expires a transaction left idle for 60 s; what ready
// waits for must end well before (a join's judgement runs under its
// request's deadline, 20 s through the API, and its snapshot under 10 s).
func (s *Store) transactAfter(ctx context.Context, op string, ready <-chan struct{}, f func(tx *txn, now time.Time) error, opts ...firestore.TransactionOption) error {
	var last *txn
	attempts, started := 0, time.Now()
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		attempts++
		if ready != nil {
			s.pause(hookAttemptWaits)
			select {
			case <-ready:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		last = &txn{tx: tx, ops: &s.ops}
		return f(last, s.now())
	}, append([]firestore.TransactionOption{firestore.MaxAttempts(maxAttempts)}, opts...)...)
	if err == nil && last != nil {
		s.ops.write(last.writes)
		s.publishCommitted(ctx, last.events)
	}
	if err != nil {
		op = fmt.Sprintf("%s (%d attempts in %v)", op, attempts, time.Since(started).Round(time.Millisecond))
	}
	return storeError(op, err)
}

// getAll reads refs in one round trip. Missing documents come back as
// snapshots whose Exists() is false.
func (t *txn) getAll(refs ...*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error) {
	snaps, err := t.tx.GetAll(refs)
	t.ops.lookup(len(refs))
	return snaps, err
}

// query runs q inside the transaction, so that what it found (or did not
// find) is part of what the transaction decides on.
func (t *txn) query(q firestore.Query) ([]*firestore.DocumentSnapshot, error) {
	snaps, err := t.tx.Documents(q).GetAll()
	t.ops.read(len(snaps))
	return snaps, err
}

func (t *txn) set(ref *firestore.DocumentRef, data any, opts ...firestore.SetOption) error {
	t.writes++
	return t.tx.Set(ref, data, opts...)
}

func (t *txn) create(ref *firestore.DocumentRef, data any) error {
	t.writes++
	return t.tx.Create(ref, data)
}

func (t *txn) update(ref *firestore.DocumentRef, updates []firestore.Update, preconds ...firestore.Precondition) error {
	t.writes++
	return t.tx.Update(ref, updates, preconds...)
}

func (t *txn) delete(ref *firestore.DocumentRef, preconds ...firestore.Precondition) error {
	t.writes++
	return t.tx.Delete(ref, preconds...)
}
