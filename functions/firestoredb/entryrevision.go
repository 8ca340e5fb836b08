package firestoredb

import (
	"context"
	"errors"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Where the revision is kept.
//
// A room created by this version (presence.Room.RevisionOnEntries) keeps
// its revision and its size on its entries and departure records alone:
// the revision is the sum of `changes` over the entries and records of the
// lifetime (roomOpenedAt equal to the room's createdAt) plus the retired
// count, and the size is the number of entries. Listeners already add the
// revision up that way (revision.go, "What listeners add up"); the server
// now does too, and no visible change writes a revision shard.
//
// Why: the shards were the one document that joins of different users
// still wrote in common (a blind increment of one of RevisionShards), and
// the emulator queues transactions that share both a read (the room) and a
// blind-written document far longer than either alone (BENCHMARKS.md, "The
// revision off the shards"). With the revision on the entries, every join
// writes only its own user's documents. (That alone did not bring a crowd
// into one room down to the floor: its joins still share the room's and
// the policy's reads, and now aggregate the roster twice.)
//
// What it costs: the revision is read with two aggregations (the entries'
// sum, the records' sum with the retired count among them), two reads
// instead of one, and the size with a count() of the entries, one read
// per thousand entries. A join far from the cap counts beside its
// transaction; near the cap (ExactCapMargin) it counts in it, which locks
// the roster's range: an entry added concurrently either committed before
// the count or waits, so two joins racing for the last place cannot both
// see it free.
//
// A departure still marks the room for the emptiness repair
// (FieldMayBeEmptyAt), on a document of its own user among the shards
// (DepartureMarkPrefix), so that departures too write nothing in common.
//
// Rooms created before keep the shards until their next lifetime: every
// request that counts a change learns which kind it is in from the room,
// or from the entry it writes (presence.Participant.RevisionOnEntries).

// revisionSource says where one room lifetime's revision is kept: on the
// shards (lifetime zero) or on the entries and records of lifetime.
type revisionSource struct {
	roomID   string
	lifetime time.Time
}

func (r revisionSource) onEntries() bool { return !r.lifetime.IsZero() }

// roomRevision is where room keeps its revision.
func roomRevision(room presence.Room) revisionSource {
	if room.RevisionOnEntries {
		return revisionSource{roomID: room.ID, lifetime: room.CreatedAt}
	}
	return revisionSource{roomID: room.ID}
}

// entryRevision is where the room of entry p keeps its revision: every
// entry of a room that keeps it on its entries says so, and carries the
// lifetime.
func entryRevision(p presence.Participant) revisionSource {
	if p.RevisionOnEntries {
		return revisionSource{roomID: p.RoomID, lifetime: p.OpenedAt}
	}
	return revisionSource{roomID: p.RoomID}
}

// entryRevisionOf is entryRevision for an entry as read, which may be
// missing (nil): then the room is taken to keep its shards, which only an
// entry can tell otherwise.
func entryRevisionOf(roomID string, p *presence.Participant) revisionSource {
	if p == nil {
		return revisionSource{roomID: roomID}
	}
	return entryRevision(*p)
}

// entryCounts returns the revision and the number of entries of src's
// lifetime, read in tx when tx is not nil (a read-only transaction: the
// aggregations would lock the roster's range in a read-write one), and
// otherwise at one snapshot of its own (entrySnapshot). The records' sum
// takes in the retired count, which the fold keeps among them with the
// lifetime's stamp (fold.go).
//
// The two aggregations are sent at once: within one read-only transaction
// both read the same snapshot whatever order they run in, so waiting for
// one before sending the other would only add a round trip to every join.
func (s *Store) entryCounts(ctx context.Context, src revisionSource, tx *txn) (revision int64, entries int, err error) {
	if tx == nil {
		t, err := s.entrySnapshot(ctx, src, false)
		return t.revision, t.entries, err
	}
	var onRecords map[string]int64
	var recordsErr error
	recordsDone := make(chan struct{})
	go func() {
		defer close(recordsDone)
		s.pause(hookBeforeRecordsSum)
		onRecords, recordsErr = s.aggregateIn(ctx, s.lifetimeRecords(src), tx, "records", recordsTotals)
	}()
	onEntries, err := s.aggregateIn(ctx, s.lifetimeEntries(src), tx, "entries", entriesTotals)
	s.pause(hookAfterEntriesSum)
	<-recordsDone
	if err == nil {
		err = recordsErr
	}
	if err != nil {
		return 0, 0, err
	}
	return onEntries["revision"] + onRecords["revision"], int(onEntries["entries"]), nil
}

// lifetimeEntries and lifetimeRecords are the roster entries and the departure records
// of src's lifetime, which its revision is summed over.
func (s *Store) lifetimeEntries(src revisionSource) firestore.Query {
	return s.room(src.roomID).Collection(ParticipantsCollection).Where(FieldRoomOpenedAt, "==", src.lifetime)
}

func (s *Store) lifetimeRecords(src revisionSource) firestore.Query {
	return s.room(src.roomID).Collection(RecentlyLeftCollection).Where(FieldRoomOpenedAt, "==", src.lifetime)
}

// entrySnapshot is entryCounts read at one snapshot, outside any other
// transaction: a read-only transaction of its own, with the room's claims
// on places counted in it when withClaims (claims.go). Its aggregations
// read several collections, and a departure moves a user's changes from
// one to another in one commit; read apart, the entries' sum could come
// from before that commit and the records' from after it, counting the
// user's changes twice, a revision no snapshot ever had (too high, where
// clients only tolerate too low). A read-only transaction takes no lock,
// so no change of the roster waits for it.
func (s *Store) entrySnapshot(ctx context.Context, src revisionSource, withClaims bool) (entryTotals, error) {
	var t entryTotals
	err := s.transact(ctx, "reading the revision", func(tx *txn, _ time.Time) error {
		var err error
		t, err = s.entryTotalsIn(ctx, src, tx, withClaims)
		return err
	}, firestore.ReadOnly)
	return t, err
}

// entryTotalsIn is entryCounts in tx (a read-only transaction), with the
// room's claims counted beside when withClaims, all at one snapshot.
func (s *Store) entryTotalsIn(ctx context.Context, src revisionSource, tx *txn, withClaims bool) (entryTotals, error) {
	var t entryTotals
	claimsDone := make(chan error, 1)
	if withClaims {
		go func() {
			var err error
			t.claims, err = s.countClaims(ctx, src.roomID, tx)
			claimsDone <- err
		}()
	} else {
		claimsDone <- nil
	}
	var err error
	t.revision, t.entries, err = s.entryCounts(ctx, src, tx)
	return t, errors.Join(err, <-claimsDone)
}

// markDeparture stages, for a departure in a room that keeps its revision
// on its entries, the user's own mark for the sweeper's emptiness repair
// (see countChange): a blind write of a document only this user's
// departures write.
func (s *Store) markDeparture(tx *txn, now time.Time, roomID, uid string, departedAt time.Time) error {
	ref := s.revisionShards(roomID).Doc(DepartureMarkPrefix + uid)
	return tx.set(ref, map[string]any{
		FieldRoomID: roomID, FieldMayBeEmptyAt: now, FieldDepartedAt: departedAt, FieldMarkShard: markShardOf(ref),
		FieldExpireAt: now.Add(s.settings.RecordHorizon),
	}, firestore.MergeAll)
}

// roomCounts returns room's revision and number of entries, read in tx (a
// read-only one) when tx is not nil: from its entries and records, or from
// its shards, with a count() of the entries where the shards did not count
// them (EntriesCounted).
func (s *Store) roomCounts(ctx context.Context, room presence.Room, tx *txn) (int64, int, error) {
	if room.RevisionOnEntries {
		return s.entryCounts(ctx, roomRevision(room), tx)
	}
	q := s.revisionShards(room.ID).NewAggregationQuery().WithSum(FieldChanges, "revision")
	if room.EntriesCounted {
		q = q.WithSum(FieldEntries, "entries")
	}
	sums, err := s.aggregateAll(ctx, q, tx, "", "revision", "entries")
	if err != nil || room.EntriesCounted {
		return sums["revision"], int(sums["entries"]), err
	}
	n, err := s.countIndex(ctx, room.ID, tx)
	return sums["revision"], n, err
}
