package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
)

// EventSeqsForTest reads roomID's event sequence numbers in a read-only
// transaction, as a roster snapshot for a service would.
func (s *Store) EventSeqsForTest(ctx context.Context, roomID string) (map[string]int64, error) {
	var seqs map[string]int64
	err := s.transact(ctx, "event seqs", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.room(roomID))
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], roomID)
		if err != nil || room == nil {
			return err
		}
		seqs, err = s.readEventSeqs(tx, roomID, room.CreatedAt)
		return err
	}, firestore.ReadOnly)
	return seqs, err
}
