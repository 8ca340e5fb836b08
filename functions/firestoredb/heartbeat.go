package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Heartbeat renews the lease of ref's session and returns its new deadline.
//
// It reads and writes the session document only: never the room, never a
// roster entry, so a heartbeat costs one read and one write and wakes no
// listener. Because the read and the write are one transaction, a sweeper
// expiring the same session either commits first (and we answer
// EStaleGeneration) or waits for our renewal and then finds the lease live.
//
// Returns EStaleGeneration if the session is gone, has another generation or
// its lease has ended.
func (s *Store) Heartbeat(ctx context.Context, ref presence.SessionRef) (time.Time, error) {
	if err := ref.Validate(); err != nil {
		return time.Time{}, err
	}
	sessionRef := s.session(ref.RoomID, ref.ParticipantID, ref.SessionID)
	var deadline time.Time
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		now := s.now()
		snaps, err := s.getAll(tx, sessionRef)
		if err != nil {
			return err
		}
		stored, err := decodeSession(snaps[0])
		if err != nil {
			return err
		}
		renewed, err := s.settings.Renew(now, stored, ref)
		if err != nil {
			return err
		}
		// Update, not Set: only the two lease fields change, and the update
		// fails rather than recreating the document if it vanished.
		err = tx.Update(sessionRef, []firestore.Update{
			{Path: FieldLeaseExpiresAt, Value: renewed.LeaseExpiresAt},
			{Path: FieldExpireAt, Value: renewed.ExpireAt},
		})
		if err != nil {
			return err
		}
		s.ops.write(1)
		deadline = renewed.LeaseExpiresAt
		return nil
	}, firestore.MaxAttempts(maxAttempts))
	return deadline, storeError("heartbeat", err)
}
