package firestoredb

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/firestore/apiv1/firestorepb"

	"github.com/roomlease/roomlease/functions/presence"
)

// The room's revision and roster size, without a room-wide document that
// every join and leave writes.
//
// This file describes the revision shards, where rooms created before
// presence.Room.RevisionOnEntries keep both. Rooms created since keep them
// on their entries and departure records alone (entryrevision.go); what
// follows about the shards' counts applies to the older rooms only.
//
// The revision is spread over RevisionShards documents under
// rooms/{roomId}/rosterRevisions. A visible change adds one to the shard of
// the user it concerns, inside its own transaction, as a blind increment:
// the transaction does not read the shard, so it takes no lock on it that
// another user's change would wait for or deadlock with. The revision is
// the sum of the shards (one aggregation read); it rises by exactly one per
// visible change.
//
// The roster's size rides on the same writes: a change that adds a roster
// entry also adds one to its shard's `entries`, one that removes an entry
// takes one off, in the transaction that adds or removes the entry. So the
// sum of `entries` over the shards is the number of entries, at any
// snapshot, for a room whose every entry was counted (EntriesCounted: a
// room created by a version that counts). A join reads that sum, O(shards)
// whatever the roster's size, instead of a count() of the entries, which
// reads one index entry per participant (O(N) per join, O(N²) per crowd).
//
// Exact at the cap. A join far from the cap (more than ExactCapMargin
// places left, judged by the sum read beside its transaction) cannot take
// the room over the cap, whatever else commits meanwhile, unless more than
// ExactCapMargin joins race at once. A join within the margin reads every
// shard inside its transaction. Every entry added or removed writes a
// shard in the transaction that adds or removes it, so such a join's reads
// conflict with every concurrent change of the roster's size: Firestore
// either commits that change before the join's reads, or makes one of the
// two wait or retry. The sum the join saw is therefore the size at its
// commit, and two joins racing for the last place cannot both see it free
// (each read the shard the other writes): one is admitted, the other
// refused (TestJoin_CapRace forces this on two clients). Joins
// near the cap take turns; joins of different users far from it still
// write only their own documents and their shard by blind increment.

// What listeners add up. Listening to the shards costs every listener a
// read per visible change on top of the entry or record that change wrote,
// so in a room created by this version (presence.Room.ChangesCarried) the
// documents listeners read anyway carry the revision too: every visible
// change adds one to the shard (above) and, in the same commit, one to the
// `changes` of the document it writes for listeners:
//   - a join, state update, away toggle or session-count change: the
//     user's entry (changedEntry);
//   - a departure (leave, expiry, eviction): the user's departure record,
//     which takes over the entry's changes and adds its own (DepartureOf);
//   - a user who comes back: the new entry takes over the record's changes
//     (the join reads and deletes the record);
//   - the sweeper folds records nobody shows any more into the retired
//     count (fold.go), one write per room and batch.
// Each moves changes from one document to another inside one transaction,
// so at every commit the shards' sum equals the sum of `changes` over the
// entries and the records of this lifetime (roomOpenedAt equal to the
// room's createdAt) plus the retired count; TestModel checks it after
// every step. A user has an entry or a record, never both, at any commit,
// but a listener receives the roster and the records through two
// listeners, so it takes per user the larger of the two counts (the newer
// one) and adds the retired count, which sits among the records (RetiredDoc)
// so that a fold's deletions and its count arrive together
// (clients/js/src/revision.js). It reads the revision at a cost of one
// document per visible change: the entry or the record. Deleting a
// document costs listeners no read.

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
//
// It also takes the removed entry off the shard's count of entries. In a
// room that keeps its revision on its entries (entryrevision.go) the
// change is counted on the document its caller writes, and only a
// departure's mark is staged, on the user's own document.
func (s *Store) countChange(tx *txn, now time.Time, src revisionSource, uid string, entryRemoved *time.Time) error {
	roomID := src.roomID
	if src.onEntries() {
		if entryRemoved == nil {
			return nil
		}
		return s.markDeparture(tx, now, roomID, uid, *entryRemoved)
	}
	fields := s.changeFields(now, roomID)
	shard := s.revisionShard(roomID, uid)
	if entryRemoved != nil {
		fields[FieldMayBeEmptyAt] = now
		fields[FieldDepartedAt] = *entryRemoved
		fields[FieldMarkShard] = markShardOf(shard)
		fields[FieldEntries] = firestore.Increment(-1)
	}
	return tx.set(shard, fields, firestore.MergeAll)
}

// countJoin stages, in tx, the +1 of a join's visible change, and, when
// the join adds uid's roster entry, that entry on the shard's count; in a
// room that keeps its revision on its entries, nothing: the entry the join
// writes carries both.
func (s *Store) countJoin(tx *txn, now time.Time, src revisionSource, uid string, addsEntry bool) error {
	if src.onEntries() {
		return nil
	}
	roomID := src.roomID
	fields := s.changeFields(now, roomID)
	if addsEntry {
		fields[FieldEntries] = firestore.Increment(1)
	}
	return tx.set(s.revisionShard(roomID, uid), fields, firestore.MergeAll)
}

func (s *Store) changeFields(now time.Time, roomID string) map[string]any {
	return map[string]any{
		FieldRoomID:   roomID,
		FieldChanges:  firestore.Increment(1),
		FieldExpireAt: now.Add(s.settings.RecordHorizon),
	}
}

// refreshShards stages, in tx, blind merges that set every revision shard's
// expireAt (and roomId) to expireAt, and the retired count's. A shard that
// does not exist yet is created without changes, which counts as zero.
func (s *Store) refreshShards(tx *txn, roomID string, expireAt time.Time) error {
	for _, ref := range s.shardsAndRetired(roomID) {
		if err := tx.set(ref, map[string]any{FieldRoomID: roomID, FieldExpireAt: expireAt}, firestore.MergeAll); err != nil {
			return err
		}
	}
	return nil
}

// shardsAndRetired names every revision shard of roomID and its retired
// count.
func (s *Store) shardsAndRetired(roomID string) []*firestore.DocumentRef {
	refs := []*firestore.DocumentRef{s.retiredRef(roomID)}
	for k := range s.settings.RevisionShards {
		refs = append(refs, s.revisionShards(roomID).Doc(strconv.Itoa(k)))
	}
	return refs
}

// changedEntry is the record of entry p after a visible change of it: it
// carries one change more (see "What listeners add up" above). Every
// writer of a visible change to an entry writes it through here, beside
// its countChange or countJoin.
func changedEntry(p presence.Participant) participantRecord {
	p.Changes++
	return participantToRecord(p)
}

// readRevision returns the revision of src's room lifetime, read in tx
// when tx is not nil: the sum of its shards, or of its entries and records
// (entryrevision.go).
func (s *Store) readRevision(ctx context.Context, src revisionSource, tx *txn) (int64, error) {
	if src.onEntries() {
		rev, _, err := s.entryCounts(ctx, src, tx)
		return rev, err
	}
	q := s.revisionShards(src.roomID).NewAggregationQuery().WithSum(FieldChanges, "revision")
	return s.aggregate(ctx, q, tx, "revision")
}

// joinRosterSize returns, for a join that would add an entry to room, how
// many entries the room has (live or awaiting expiry), exact at the cap
// (see above): the shards' sum beside the transaction, and, near the cap,
// every shard read in tx. A room whose entries were not all counted on its
// shards (created before they were) is counted with count(): beside the
// transaction, and again in it near the cap (a transactional query locks
// the range it read, so joins near the cap take turns). For the older rooms
// only: a room that keeps its revision on its entries is counted by the
// join's snapshot (joinCounts).
func (s *Store) joinRosterSize(ctx context.Context, tx *txn, room presence.Room, p *presence.Policy) (int, error) {
	if !room.EntriesCounted {
		n, err := s.countIndex(ctx, room.ID, nil)
		if err != nil || !s.settings.CountExactly(n, p) {
			return n, err
		}
		return s.countIndex(ctx, room.ID, tx)
	}
	n, err := s.shardEntries(ctx, room.ID)
	if err != nil || !s.settings.CountExactly(n, p) {
		return n, err
	}
	return s.shardEntriesIn(tx, room.ID)
}

// countEntries tells whether the room's roster is empty, for the
// emptiness check after a departure: 0 exactly when it has no entry, else
// a positive count. The shards' sum answers alone when it is above
// ExactCapMargin: in a crowd leaving, every departure but the last few
// stops at that one read instead of counting the roster. At or below it,
// count() decides, over at most a few dozen entries. Why the sum may be
// trusted that far: in a room that counts (EntriesCounted) it is the size;
// in an older room the shards counted only entries added and removed since
// the upgrade, so the sum is at most the size, and a positive sum still
// means someone is there. A room that keeps its revision on its entries
// (src.onEntries) has no shard that counts an entry, so count() decides at
// once. A caller that cannot tell the kind passes the shards' source: in
// such a room their sum is 0, and count() decides one read later.
func (s *Store) countEntries(ctx context.Context, src revisionSource) (int, error) {
	if !src.onEntries() {
		n, err := s.shardEntries(ctx, src.roomID)
		if err != nil || n > presence.ExactCapMargin {
			return n, err
		}
	}
	return s.countIndex(ctx, src.roomID, nil)
}

// rosterOccupied is countEntries for the emptiness check after a
// departure, which asks only whether anyone is left: 0 exactly when the
// roster has no entry, else a positive number that may be below the size.
// Where countEntries would count the roster, it asks for one entry (a
// query with a limit of one): a crowd of N leaving a room made N counts of
// up to N entries, O(N²) index entries that on the emulator took a core,
// where a limited query reads one. Before the query, it reads the entry
// of a user this instance saw join (witnesses.go): found, that one read
// answers. Each reads at a snapshot taken after the departure committed,
// which is all settleEmptiness relies on.
func (s *Store) rosterOccupied(ctx context.Context, src revisionSource) (int, error) {
	if !src.onEntries() {
		n, err := s.shardEntries(ctx, src.roomID)
		if err != nil || n > presence.ExactCapMargin {
			return n, err
		}
	}
	if s.witnessedOccupied(ctx, src.roomID) {
		return 1, nil // at least one: all a caller may take from the answer
	}
	s.pause(hookBeforeOccupancyQuery)
	q := s.room(src.roomID).Collection(ParticipantsCollection).Select().Limit(1)
	snaps, err := q.Documents(ctx).GetAll()
	s.ops.read(max(len(snaps), 1)) // a query that finds nothing is billed one read
	if err == nil && len(snaps) > 0 {
		s.sawPresent(src.roomID, snaps[0].Ref.ID) // the next check reads this entry first
	}
	return len(snaps), err
}

// countIndex is a count() of the room's entries, in tx when tx is not nil:
// then a join that adds an entry before this transaction commits waits for
// it (Firestore locks the range a transactional query read). It reads an
// index entry per participant.
func (s *Store) countIndex(ctx context.Context, roomID string, tx *txn) (int, error) {
	q := s.room(roomID).Collection(ParticipantsCollection).NewAggregationQuery().WithCount("entries")
	res, err := s.aggregateAll(ctx, q, tx, "entries", "entries")
	return int(res["entries"]), err
}

// shardEntries is the sum of the shards' entry counts, read beside any
// transaction (one aggregation over RevisionShards documents).
func (s *Store) shardEntries(ctx context.Context, roomID string) (int, error) {
	q := s.revisionShards(roomID).NewAggregationQuery().WithSum(FieldEntries, "entries")
	n, err := s.aggregate(ctx, q, nil, "entries")
	return int(n), err
}

// shardEntriesIn reads every shard in tx, by name, and returns the sum of
// their entry counts. The reads lock the shards until the commit, so any
// entry added or removed concurrently (each writes its shard in its own
// transaction) either came before the read or waits for this transaction.
func (s *Store) shardEntriesIn(tx *txn, roomID string) (int, error) {
	refs := make([]*firestore.DocumentRef, s.settings.RevisionShards)
	for k := range refs {
		refs[k] = s.revisionShards(roomID).Doc(strconv.Itoa(k))
	}
	snaps, err := tx.getAll(refs...)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, snap := range snaps {
		rec, err := decode[revisionShardRecord](snap)
		if err != nil {
			return 0, err
		}
		if rec != nil {
			n += int(rec.Entries)
		}
	}
	return n, nil
}

// aggregate runs q (in tx, when given) and returns its one integer result,
// for a query over few documents (the shards): billed as one read.
func (s *Store) aggregate(ctx context.Context, q *firestore.AggregationQuery, tx *txn, alias string) (int64, error) {
	res, err := s.aggregateAll(ctx, q, tx, "", alias)
	return res[alias], err
}

// aggregateAll runs q (in tx, when given) and returns the integer results
// of those aliases that q computes: several aggregations over one snapshot.
// Firestore bills an aggregation one read per 1 000 index entries it
// matches, at least one, so a roster of 10 000 costs 10 reads: matchedBy
// names the alias of a count in q over the same documents, from which the
// bill is counted, or is "" for a query over few documents (billed one).
func (s *Store) aggregateAll(ctx context.Context, q *firestore.AggregationQuery, tx *txn, matchedBy string, aliases ...string) (map[string]int64, error) {
	if tx != nil {
		q = q.Transaction(tx.tx)
	}
	res, err := q.Get(ctx)
	if err != nil {
		s.ops.read(1)
		return nil, err
	}
	out, err := aggregationResults(res, aliases)
	s.ops.aggregation(out[matchedBy])
	return out, err
}

// aggregationResults decodes the integer results of aliases from res.
func aggregationResults(res firestore.AggregationResult, aliases []string) (map[string]int64, error) {
	out := make(map[string]int64, len(aliases))
	for _, alias := range aliases {
		raw, present := res[alias]
		if !present {
			continue
		}
		v, ok := raw.(*firestorepb.Value)
		if !ok {
			return nil, fmt.Errorf("aggregation %s: unexpected result %T", alias, raw)
		}
		switch x := v.GetValueType().(type) {
		case *firestorepb.Value_IntegerValue:
			out[alias] = x.IntegerValue
		case *firestorepb.Value_DoubleValue:
			out[alias] = int64(x.DoubleValue)
		case *firestorepb.Value_NullValue:
			out[alias] = 0
		default:
			return nil, fmt.Errorf("aggregation %s: unexpected value %v", alias, v)
		}
	}
	return out, nil
}
