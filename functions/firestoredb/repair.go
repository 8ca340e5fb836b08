package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// RepairEmptyActive finds up to limit rooms marked active whose roster is
// empty (a missed event can leave one behind) and marks them
// suspected_empty, after checking inside a transaction that the roster is
// really empty. It returns how many it repaired.
func (s *Store) RepairEmptyActive(ctx context.Context, limit int) (int, error) {
	snaps, err := s.queryAll(ctx, s.client.Collection(RoomsCollection).
		Where(FieldState, "==", string(presence.StateActive)).
		Where(FieldParticipantCount, "<=", 0).Limit(limit))
	if err != nil {
		return 0, storeError("listing empty active rooms", err)
	}
	repaired := 0
	for _, snap := range snaps {
		ref := snap.Ref
		err := s.transact(ctx, "repairing an empty active room", ref.ID, func(tx *txn, now time.Time) error {
			got, err := tx.getAll(ref)
			if err != nil {
				return err
			}
			room, err := decodeRoom(got[0], ref.ID)
			if err != nil || room == nil || room.State != presence.StateActive || room.ParticipantCount > 0 {
				return err
			}
			entries, err := tx.query(ref.Collection(ParticipantsCollection).Limit(1))
			if err != nil || len(entries) > 0 {
				return err
			}
			repaired++
			return tx.set(ref, roomToRecord(s.settings.Suspect(now, *room)))
		})
		if err != nil {
			return repaired, err
		}
	}
	return repaired, nil
}
