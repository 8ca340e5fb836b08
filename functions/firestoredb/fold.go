package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Folding departure records. A departure record carries its user's changes
// (presence.Departure) for listeners' revision sum, so it may not simply
// expire: once nobody shows it any more, the sweeper deletes it and adds
// its changes to the room's retired count (RetiredDoc), in one transaction.
// Listeners then read the retired document once for a whole batch, in the
// same snapshot of the departure records as the deletions (it is one of
// them, RetiredDoc), and the records' deletion costs them no read
// (Firestore bills a listener for documents added or changed in its
// result set, not for deleted ones).

// maxFoldBatch bounds one fold's records: each is a delete, and a commit
// takes at most 500 writes.
const maxFoldBatch = 400

// departureRef is uid's departure record in roomID.
func (s *Store) departureRef(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(RecentlyLeftCollection).Doc(uid)
}

// retiredRef is the room's retired count (see RetiredDoc).
func (s *Store) retiredRef(roomID string) *firestore.DocumentRef {
	return s.departureRef(roomID, RetiredDoc)
}

// StaleDepartures lists up to limit departure records that a sweep at now
// may fold, grouped by room, oldest first.
func (s *Store) StaleDepartures(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.StaleDepartures], error) {
	q := s.byShard(s.client.CollectionGroup(RecentlyLeftCollection).Query, FieldLeftShard).
		Where(FieldLeftAt, "<", s.settings.DeparturesFoldedBefore(now)).
		OrderBy(FieldLeftAt, firestore.Asc)
	type stale struct{ room, uid string }
	found, err := listCandidates(ctx, s, "listing departures to fold", q, limit, func(snap *firestore.DocumentSnapshot) (stale, bool) {
		d, err := decodeDeparture(snap)
		if err != nil || d == nil || d.RoomID == "" || d.ParticipantID != snap.Ref.ID {
			return stale{}, false
		}
		return stale{d.RoomID, d.ParticipantID}, true
	})
	out := presence.Listing[presence.StaleDepartures]{Undecodable: found.Undecodable}
	at := map[string]int{}
	for _, f := range found.Items {
		i, seen := at[f.room]
		if !seen || len(out.Items[i].ParticipantIDs) == maxFoldBatch {
			i = len(out.Items)
			at[f.room] = i
			out.Items = append(out.Items, presence.StaleDepartures{RoomID: f.room})
		}
		out.Items[i].ParticipantIDs = append(out.Items[i].ParticipantIDs, f.uid)
	}
	return out, err
}

// FoldDepartures folds batch's records that are still stale into their
// room's retired count, and reports how many it folded.
//
// It reads the room and the records in its transaction:
//   - a user who comes back reads and deletes their record in their join,
//     so the join and the fold serialise: the changes go either into the
//     new entry or into the retired count, never both, never neither;
//   - a record of an earlier lifetime of the room (not yet purged) carries
//     changes of a revision that ended with that lifetime: it is deleted
//     without counting. The teardown that ends this lifetime deletes the
//     retired document in its commit, after reading the room: a fold that
//     read the room first commits first (the teardown's write waits for
//     its read), and its count goes with the teardown.
func (s *Store) FoldDepartures(ctx context.Context, batch presence.StaleDepartures) (int, error) {
	refs := []*firestore.DocumentRef{s.room(batch.RoomID)}
	for _, uid := range batch.ParticipantIDs {
		refs = append(refs, s.departureRef(batch.RoomID, uid))
	}
	folded := 0
	err := s.transact(ctx, "folding departures", func(tx *txn, now time.Time) error {
		folded = 0
		s.pause(hookBeforeFoldReads)
		snaps, err := tx.getAll(refs...)
		if err != nil {
			return err
		}
		s.pause(hookAfterFoldReads)
		room, err := decodeRoom(snaps[0], batch.RoomID)
		if err != nil {
			return err
		}
		var retired int64
		for _, snap := range snaps[1:] {
			d, err := decodeDeparture(snap)
			if err != nil {
				return err
			}
			if !s.settings.Folds(now, d) {
				continue
			}
			if err := tx.delete(snap.Ref); err != nil {
				return err
			}
			folded++
			if room != nil && d.OpenedAt.Equal(room.CreatedAt) {
				retired += d.Changes
			}
		}
		if retired == 0 {
			return nil
		}
		// The count twice: as `retired` for listeners, and as `changes`
		// stamped with the lifetime, so that the server's sum over the
		// records of the lifetime takes it in (entryrevision.go).
		return tx.set(s.retiredRef(batch.RoomID), map[string]any{
			FieldRoomID:       batch.RoomID,
			FieldRetired:      firestore.Increment(retired),
			FieldChanges:      firestore.Increment(retired),
			FieldRoomOpenedAt: room.CreatedAt,
			FieldExpireAt:     now.Add(s.settings.RecordHorizon),
		}, firestore.MergeAll)
	})
	return folded, err
}
