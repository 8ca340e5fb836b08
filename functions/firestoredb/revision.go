package firestoredb

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/firestore/apiv1/firestorepb"
)

// The room's revision and roster size, without a room-wide document that
// every join and leave writes.
//
// The revision is spread over RevisionShards documents under
// rooms/{roomId}/rosterRevisions. A visible change adds one to the shard of
// the user it concerns, inside its own transaction, as a blind increment:
// the transaction does not read the shard, so it takes no lock on it that
// another user's change would wait for or deadlock with. The revision is
// the sum of the shards (one aggregation read); it rises by exactly one per
// visible change. The roster's size is a count() of the entries, also one
// read per thousand entries, and exact by construction.

func (s *Store) revisionShards(roomID string) *firestore.CollectionRef {
	return s.room(roomID).Collection(RevisionsCollection)
}

// revisionShard is uid's shard: all changes concerning one user land on one
// document, and different users spread over all of them.
func (s *Store) revisionShard(roomID, uid string) *firestore.DocumentRef {
	h := fnv.New32a()
	h.Write([]byte(uid))
	return s.revisionShards(roomID).Doc(strconv.Itoa(int(h.Sum32() % uint32(s.settings.RevisionShards))))
}

// countChange stages, in tx, the +1 that a visible change of uid's entry
// adds to the room's revision. entryRemoved also marks the room for the
// sweeper's emptiness re-check, with the departure's time (see
// FieldMayBeEmptyAt).
func (s *Store) countChange(tx *txn, now time.Time, roomID, uid string, entryRemoved *time.Time) error {
	fields := map[string]any{
		FieldRoomID:   roomID,
		FieldChanges:  firestore.Increment(1),
		FieldExpireAt: now.Add(s.settings.RecordHorizon),
	}
	if entryRemoved != nil {
		fields[FieldMayBeEmptyAt] = now
		fields[FieldDepartedAt] = *entryRemoved
	}
	return tx.set(s.revisionShard(roomID, uid), fields, firestore.MergeAll)
}

// refreshShards stages, in tx, blind merges that set every revision shard's
// expireAt (and roomId) to expireAt. A shard that does not exist yet is
// created without changes, which counts as zero.
func (s *Store) refreshShards(tx *txn, roomID string, expireAt time.Time) error {
	for k := range s.settings.RevisionShards {
		shard := s.revisionShards(roomID).Doc(strconv.Itoa(k))
		if err := tx.set(shard, map[string]any{FieldRoomID: roomID, FieldExpireAt: expireAt}, firestore.MergeAll); err != nil {
			return err
		}
	}
	return nil
}

// readRevision returns the room's revision: the sum of its shards, read in
// tx when tx is not nil.
func (s *Store) readRevision(ctx context.Context, roomID string, tx *txn) (int64, error) {
	q := s.revisionShards(roomID).NewAggregationQuery().WithSum(FieldChanges, "revision")
	return s.aggregate(ctx, q, tx, "revision")
}

// countEntries returns how many roster entries the room has, live or
// awaiting expiry, counted in tx when tx is not nil: then a join that adds an
// entry before this transaction commits waits for it (Firestore locks the
// range a transactional query read).
func (s *Store) countEntries(ctx context.Context, roomID string, tx *txn) (int, error) {
	q := s.room(roomID).Collection(ParticipantsCollection).NewAggregationQuery().WithCount("entries")
	n, err := s.aggregate(ctx, q, tx, "entries")
	return int(n), err
}

// aggregate runs q (in tx, when given) and returns its one integer result.
// Firestore bills an aggregation as one read per 1 000 index entries
// scanned, at least one; rosters are below that, so it counts as one.
func (s *Store) aggregate(ctx context.Context, q *firestore.AggregationQuery, tx *txn, alias string) (int64, error) {
	if tx != nil {
		q = q.Transaction(tx.tx)
	}
	res, err := q.Get(ctx)
	s.ops.read(1)
	if err != nil {
		return 0, err
	}
	v, ok := res[alias].(*firestorepb.Value)
	if !ok {
		return 0, fmt.Errorf("aggregation %s: unexpected result %T", alias, res[alias])
	}
	switch x := v.GetValueType().(type) {
	case *firestorepb.Value_IntegerValue:
		return x.IntegerValue, nil
	case *firestorepb.Value_DoubleValue:
		return int64(x.DoubleValue), nil
	case *firestorepb.Value_NullValue:
		return 0, nil
	}
	return 0, fmt.Errorf("aggregation %s: unexpected value %v", alias, v)
}
