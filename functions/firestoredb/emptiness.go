package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// settleEmptiness runs after a departure that removed a roster entry has
// committed (a leave, an expiry, or the sweeper's re-check of one): if the
// roster is now empty, the room enters its grace, with the grace counted
// from departedAt. It returns the room as it stands afterwards (nil if gone)
// and what was decided.
//
// Exactly once across instances: the transaction reads the room and queries
// the roster, and Firestore locks both until it commits, so two last
// departures checking at once serialise: the first makes the transition,
// the second finds it made (and moves the grace to its own departure if that
// came later). A join that adds an entry meanwhile either commits first, and
// is counted, or waits. Since every departure checks after its own commit,
// the last one to commit always finds the roster as empty as it is.
func (s *Store) settleEmptiness(ctx context.Context, roomID string, departedAt time.Time) (*presence.Room, presence.Emptiness, error) {
	// A cheap look first, without locks: in a crowd leaving, only the last
	// few departures find nobody left and need the transaction.
	n, err := s.countEntries(ctx, roomID, nil)
	if err != nil {
		return nil, presence.StillOccupied, storeError("checking for an empty room", err)
	}
	if n > 0 {
		return nil, presence.StillOccupied, nil
	}
	var room *presence.Room
	var decided presence.Emptiness
	roomRef := s.room(roomID)
	err = s.transact(ctx, "checking for an empty room", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(roomRef)
		if err != nil {
			return err
		}
		if room, err = decodeRoom(snaps[0], roomID); err != nil {
			return err
		}
		entries, err := tx.query(roomRef.Collection(ParticipantsCollection).Limit(1))
		if err != nil {
			return err
		}
		next, e := s.settings.PlanEmptiness(now, room, len(entries), departedAt)
		decided = e
		if e != presence.BecameEmpty && e != presence.LaterDeparture {
			return nil
		}
		room = &next
		return tx.set(roomRef, roomToRecord(next))
	})
	return room, decided, err
}
