package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Roster reads req.RoomID's live roster for the participant req.CallerID.
//
// Everything is read in one read-only transaction, so the revision reported
// is the one the listed entries reflect, and liveness is judged against one
// `now`: entries whose every lease has ended are left out even before the
// sweeper removes them. The caller is checked first:
//
//  1. The room document and the caller's own roster entry, in one lookup.
//  2. The caller's own live sessions (one is enough).
//  3. Only then the roster entries, the room's live sessions and the
//     revision shards.
//
// Anyone who is not a live participant stops at step 1 or 2 with
// presence.NotVisible, whether the room is active, empty or absent: an
// outsider learns nothing and costs two reads, not the roster.
//
// Returns EInvalid for malformed ids and ENotFound (presence.NotVisible)
// unless the caller is a live participant of the room.
func (s *Store) Roster(ctx context.Context, req presence.RosterRequest) (presence.Roster, error) {
	if err := req.Validate(); err != nil {
		return presence.Roster{}, err
	}
	var roster presence.Roster
	err := s.transact(ctx, "roster", func(tx *txn, now time.Time) error {
		room, err := s.readRosterCaller(tx, now, req)
		if err != nil {
			return err
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
		sessions, err := s.liveSessions(tx, s.client.CollectionGroup(SessionsCollection).
			Where(FieldRoomID, "==", req.RoomID).
			Where(FieldLeaseExpiresAt, ">", now))
		if err != nil {
			return err
		}

		revision, err := s.readRevision(ctx, req.RoomID, tx)
		if err != nil {
			return err
		}
		roster = presence.LiveRoster(now, *room, revision, entries, sessions)
		if !roster.Includes(req.CallerID) {
			// Not after step 2 in the same snapshot; kept so that no path
			// answers an outsider anything else.
			return presence.NotVisible()
		}
		return nil
	}, firestore.ReadOnly)
	return roster, err
}

// readRosterCaller makes steps 1 and 2 of Roster: it returns the room if
// req.CallerID is a live participant of it, and presence.NotVisible
// otherwise.
func (s *Store) readRosterCaller(tx *txn, now time.Time, req presence.RosterRequest) (*presence.Room, error) {
	snaps, err := tx.getAll(s.room(req.RoomID), s.participant(req.RoomID, req.CallerID))
	if err != nil {
		return nil, err
	}
	room, err := decodeRoom(snaps[0], req.RoomID)
	if err != nil {
		return nil, err
	}
	entry, err := decodeParticipant(snaps[1], req.RoomID, req.CallerID)
	if err != nil {
		return nil, err
	}
	if room == nil || entry == nil {
		return nil, presence.CheckReader(now, room, entry, nil)
	}
	own, err := s.liveSessions(tx, s.participant(req.RoomID, req.CallerID).Collection(SessionsCollection).
		Where(FieldLeaseExpiresAt, ">", now).Limit(1))
	if err != nil {
		return nil, err
	}
	return room, presence.CheckReader(now, room, entry, own)
}

// liveSessions runs a query for sessions in tx and decodes what it finds.
func (s *Store) liveSessions(tx *txn, q firestore.Query) ([]presence.Session, error) {
	snaps, err := tx.query(q)
	if err != nil {
		return nil, err
	}
	sessions := make([]presence.Session, 0, len(snaps))
	for _, snap := range snaps {
		sess, err := decodeSession(snap)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, *sess)
	}
	return sessions, nil
}
