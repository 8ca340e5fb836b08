package firestoredb

import (
	"context"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Roster reads roomID's live roster for the participant callerID.
//
// The room document, the roster entries and the room's live sessions are read
// in one read-only transaction, so the revision reported is the one the
// listed entries reflect. Liveness is judged against one `now`: entries whose
// every lease has ended are left out even before the sweeper removes them.
//
// Returns ENotFound if the room does not exist and EForbidden if callerID is
// not a live participant of it.
func (s *Store) Roster(ctx context.Context, roomID, callerID string) (presence.Roster, error) {
	if err := presence.ValidateRoomID(roomID); err != nil {
		return presence.Roster{}, err
	}
	if err := presence.ValidateParticipantID(callerID); err != nil {
		return presence.Roster{}, err
	}
	var roster presence.Roster
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		now := s.now()
		snaps, err := s.getAll(tx, s.room(roomID))
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], roomID)
		if err != nil {
			return err
		}
		if room == nil {
			return presence.Errorf(presence.ENotFound, "room %q does not exist", roomID)
		}

		entrySnaps, err := tx.Documents(s.room(roomID).Collection(ParticipantsCollection)).GetAll()
		s.ops.read(len(entrySnaps))
		if err != nil {
			return err
		}
		entries := make([]presence.Participant, 0, len(entrySnaps))
		for _, snap := range entrySnaps {
			p, err := decodeParticipant(snap, roomID, snap.Ref.ID)
			if err != nil {
				return err
			}
			entries = append(entries, *p)
		}

		// Only sessions whose lease is still running: reads cost what is
		// live, not what awaits the sweeper.
		live := s.client.CollectionGroup(SessionsCollection).
			Where(FieldRoomID, "==", roomID).
			Where(FieldLeaseExpiresAt, ">", now)
		sessionSnaps, err := tx.Documents(live).GetAll()
		s.ops.read(len(sessionSnaps))
		if err != nil {
			return err
		}
		sessions := make([]presence.Session, 0, len(sessionSnaps))
		for _, snap := range sessionSnaps {
			sess, err := decodeSession(snap)
			if err != nil {
				return err
			}
			sessions = append(sessions, *sess)
		}

		roster = presence.LiveRoster(now, *room, entries, sessions)
		if !roster.Includes(callerID) {
			return presence.Errorf(presence.EForbidden, "only live participants may read this room's roster")
		}
		return nil
	}, firestore.ReadOnly, firestore.MaxAttempts(maxAttempts))
	return roster, storeError("roster", err)
}
