package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Roster reads req.RoomID's live roster for the participant req.CallerID.
//
// The room document, the roster entries and the room's live sessions are read
// in one read-only transaction, so the revision reported is the one the
// listed entries reflect. Liveness is judged against one `now`: entries whose
// every lease has ended are left out even before the sweeper removes them.
//
// Returns EInvalid for malformed ids, ENotFound if the room does not exist
// and EForbidden if the caller is not a live participant of it.
func (s *Store) Roster(ctx context.Context, req presence.RosterRequest) (presence.Roster, error) {
	if err := req.Validate(); err != nil {
		return presence.Roster{}, err
	}
	var roster presence.Roster
	err := s.transact(ctx, "roster", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.room(req.RoomID))
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], req.RoomID)
		if err != nil {
			return err
		}
		if room == nil {
			return presence.Errorf(presence.ENotFound, "room %q does not exist", req.RoomID)
		}

		entrySnaps, err := tx.query(s.room(req.RoomID).Collection(ParticipantsCollection).Query)
		if err != nil {
			return err
		}
		entries := make([]presence.Participant, 0, len(entrySnaps))
		for _, snap := range entrySnaps {
			p, err := decodeParticipant(snap, req.RoomID, snap.Ref.ID)
			if err != nil {
				return err
			}
			entries = append(entries, *p)
		}

		// Only sessions whose lease is still running: reads cost what is
		// live, not what awaits the sweeper.
		sessionSnaps, err := tx.query(s.client.CollectionGroup(SessionsCollection).
			Where(FieldRoomID, "==", req.RoomID).
			Where(FieldLeaseExpiresAt, ">", now))
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

		revision, err := s.readRevision(ctx, req.RoomID, tx)
		if err != nil {
			return err
		}
		roster = presence.LiveRoster(now, *room, revision, entries, sessions)
		if !roster.Includes(req.CallerID) {
			return presence.Errorf(presence.EForbidden, "only live participants may read this room's roster")
		}
		return nil
	}, firestore.ReadOnly)
	return roster, err
}
