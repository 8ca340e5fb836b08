package firestoredb

import (
	"context"

	"cloud.google.com/go/firestore"

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
func (s *Store) Leave(ctx context.Context, ref presence.SessionRef) (bool, error) {
	if err := ref.Validate(); err != nil {
		return false, err
	}
	var removed bool
	err := s.inRoomTurn(ctx, ref.RoomID, func() error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			now := s.now()
			st, err := s.readDeparture(tx, ref.RoomID, ref.ParticipantID, ref.SessionID)
			if err != nil {
				return err
			}
			plan := s.settings.PlanLeave(now, st, ref)
			removed = plan.Removed
			return s.applyDeparture(tx, ref.RoomID, ref.ParticipantID, ref.SessionID, plan)
		}, firestore.MaxAttempts(maxAttempts))
	})
	return removed, storeError("leave", err)
}

// readDeparture reads, inside tx, the documents that removing one session
// depends on.
func (s *Store) readDeparture(tx *firestore.Transaction, roomID, uid, sessionID string) (presence.DepartureState, error) {
	var st presence.DepartureState
	snaps, err := s.getAll(tx, s.room(roomID), s.participant(roomID, uid), s.session(roomID, uid, sessionID))
	if err != nil {
		return st, err
	}
	if st.Room, err = decodeRoom(snaps[0], roomID); err != nil {
		return st, err
	}
	if st.Participant, err = decodeParticipant(snaps[1], roomID, uid); err != nil {
		return st, err
	}
	st.Session, err = decodeSession(snaps[2])
	return st, err
}

// applyDeparture writes a departure plan inside tx. A plan that removes
// nothing writes nothing.
func (s *Store) applyDeparture(tx *firestore.Transaction, roomID, uid, sessionID string, plan presence.DeparturePlan) error {
	if !plan.Removed {
		return nil
	}
	if err := tx.Delete(s.session(roomID, uid, sessionID)); err != nil {
		return err
	}
	s.ops.write(1)
	switch {
	case plan.DeleteParticipant:
		if err := tx.Delete(s.participant(roomID, uid)); err != nil {
			return err
		}
		s.ops.write(1)
	case plan.WriteParticipant:
		if err := tx.Set(s.participant(roomID, uid), participantToRecord(plan.Participant)); err != nil {
			return err
		}
		s.ops.write(1)
	}
	if plan.WriteRoom {
		if err := tx.Set(s.room(roomID), roomToRecord(plan.Room)); err != nil {
			return err
		}
		s.ops.write(1)
	}
	return nil
}
