package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// Leave ends ref's session if its generation is still the stored one, and
// reports whether it removed anything. A leave for another generation, or
// for a session already gone, removes nothing and writes nothing: the leave
// of an old connection can never end the lease of a newer one.
//
// When the user's last session goes, the roster entry goes with it; when the
// roster becomes empty, the room becomes suspected_empty with its
// cleanupAfter set, for the sweeper to confirm later.
//
// Returns EInvalid for a malformed reference.
func (s *Store) Leave(ctx context.Context, ref presence.SessionRef) (bool, error) {
	if err := ref.Validate(); err != nil {
		return false, err
	}
	var removed bool
	err := s.transact(ctx, "leave", ref.RoomID, func(tx *txn, now time.Time) error {
		st, err := s.readDeparture(tx, ref.SessionKey)
		if err != nil {
			return err
		}
		plan := s.settings.PlanLeave(now, st, ref)
		removed = plan.Removed
		return s.applyDeparture(tx, ref.SessionKey, plan)
	})
	return removed, err
}

// readDeparture reads, inside tx, the documents that removing one session
// depends on.
func (s *Store) readDeparture(tx *txn, k presence.SessionKey) (presence.DepartureState, error) {
	var st presence.DepartureState
	snaps, err := tx.getAll(s.room(k.RoomID), s.participant(k.RoomID, k.ParticipantID), s.session(k))
	if err != nil {
		return st, err
	}
	if st.Room, err = decodeRoom(snaps[0], k.RoomID); err != nil {
		return st, err
	}
	if st.Participant, err = decodeParticipant(snaps[1], k.RoomID, k.ParticipantID); err != nil {
		return st, err
	}
	st.Session, err = decodeSession(snaps[2])
	return st, err
}

// applyDeparture writes a departure plan inside tx. A plan that removes
// nothing writes nothing.
func (s *Store) applyDeparture(tx *txn, k presence.SessionKey, plan presence.DeparturePlan) error {
	if !plan.Removed {
		return nil
	}
	if err := tx.delete(s.session(k)); err != nil {
		return err
	}
	switch {
	case plan.DeleteParticipant:
		if err := tx.delete(s.participant(k.RoomID, k.ParticipantID)); err != nil {
			return err
		}
	case plan.WriteParticipant:
		if err := tx.set(s.participant(k.RoomID, k.ParticipantID), participantToRecord(plan.Participant)); err != nil {
			return err
		}
	}
	if plan.WriteRoom {
		return tx.set(s.room(k.RoomID), roomToRecord(plan.Room))
	}
	return nil
}
