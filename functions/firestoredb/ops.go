package firestoredb

import (
	"context"
	"sync/atomic"

	"cloud.google.com/go/firestore"
)

// OpCounts are Firestore document reads and writes: the units Firestore
// bills. A lookup of a missing document and a query with no result each
// count as one read, as Firestore bills them. Reads of a transaction attempt
// that was aborted and retried count too (they are billed); writes count
// once, when their transaction commits.
type OpCounts struct {
	Reads  int64
	Writes int64
}

// Sub returns the operations between an earlier reading and this one.
func (c OpCounts) Sub(earlier OpCounts) OpCounts {
	return OpCounts{Reads: c.Reads - earlier.Reads, Writes: c.Writes - earlier.Writes}
}

// Ops returns the operations this Store has performed so far.
func (s *Store) Ops() OpCounts {
	return OpCounts{Reads: s.ops.reads.Load(), Writes: s.ops.writes.Load()}
}

// opMeter counts operations. Only the helpers in this file, in txn.go and
// the aggregation in revision.go touch it: no call site counts by hand.
type opMeter struct {
	reads, writes atomic.Int64
	// lookups counts round trips that read documents by name (a
	// BatchGetDocuments each), billed or not: what a join's first reads
	// save (firstreads.go).
	lookups atomic.Int64
}

// read counts a lookup or query that returned n documents.
func (m *opMeter) read(n int) { m.reads.Add(int64(max(n, 1))) }

// lookup counts a round trip that read n documents by name.
func (m *opMeter) lookup(n int) {
	m.lookups.Add(1)
	m.read(n)
}

// aggregation counts an aggregation query that matched n index entries:
// one read per batch of up to 1 000, at least one, as Firestore bills it.
func (m *opMeter) aggregation(matched int64) { m.reads.Add(max(1, (matched+999)/1000)) }

func (m *opMeter) write(n int) { m.writes.Add(int64(n)) }

// The non-transactional operations, counted. The sweeper's listings and the
// operator's control documents use these; anything that decides on what it
// read goes through transact instead.

func (s *Store) queryAll(ctx context.Context, q firestore.Query) ([]*firestore.DocumentSnapshot, error) {
	snaps, err := q.Documents(ctx).GetAll()
	s.ops.read(len(snaps))
	return snaps, err
}

// getAll reads refs in one round trip, outside any transaction.
func (s *Store) getAll(ctx context.Context, refs ...*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error) {
	snaps, err := s.client.GetAll(ctx, refs)
	s.ops.lookup(len(refs))
	return snaps, err
}

func (s *Store) getDoc(ctx context.Context, ref *firestore.DocumentRef) (*firestore.DocumentSnapshot, error) {
	snap, err := ref.Get(ctx)
	s.ops.lookup(1)
	return snap, err
}

func (s *Store) setDoc(ctx context.Context, ref *firestore.DocumentRef, data any, opts ...firestore.SetOption) error {
	_, err := ref.Set(ctx, data, opts...)
	if err == nil {
		s.ops.write(1)
	}
	return err
}

func (s *Store) updateDoc(ctx context.Context, ref *firestore.DocumentRef, updates []firestore.Update) error {
	_, err := ref.Update(ctx, updates)
	if err == nil {
		s.ops.write(1)
	}
	return err
}

func (s *Store) deleteDoc(ctx context.Context, ref *firestore.DocumentRef, preconds ...firestore.Precondition) error {
	_, err := ref.Delete(ctx, preconds...)
	if err == nil {
		s.ops.write(1)
	}
	return err
}
