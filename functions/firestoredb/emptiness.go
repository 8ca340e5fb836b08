package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// settleTimeout bounds the emptiness check that follows a leave, which runs
// on even when the caller has gone.
const settleTimeout = 10 * time.Second

// maxEmptinessRounds bounds how often settleEmptiness re-reads a room whose
// version moved under it; each round that loses does so because another
// departure or a join changed the room, which settles within a few.
const maxEmptinessRounds = 5

// settleEmptiness runs after a departure that removed a roster entry has
// committed (a leave, an expiry, or the sweeper's re-check of one): if the
// roster is now empty, the room enters its grace, counted from departedAt.
// It returns the room as it stands afterwards (nil if gone) and what was
// decided.
//
//  1. Count the entries and read the room, without a transaction.
//  2. If the plan changes the room, write it on the condition that it is
//     still the version read: of several last departures checking at once,
//     exactly one makes the transition; the others find it made, and move
//     the grace to their own departure if that came later.
//  3. A join may have added an entry between the count and the write (it
//     reads the room but does not write it, so the condition cannot see
//     it). Count again: if someone is there, revive the room as a join in
//     the grace would. If this request dies before that, the room is
//     suspected_empty with a live lease, which the teardown's check finds
//     and repairs; it never deletes such a room.
//
// No transaction holds a lock here, so a crowd's last departures do not
// wait for each other.
func (s *Store) settleEmptiness(ctx context.Context, roomID string, departedAt time.Time) (*presence.Room, presence.Emptiness, error) {
	for range maxEmptinessRounds {
		// The count first: in a crowd leaving, all but the last few
		// departures stop here, at one read.
		entries, err := s.countEntries(ctx, roomID, nil)
		if err != nil || entries > 0 {
			return nil, presence.StillOccupied, storeError("checking for an empty room", err)
		}
		room, version, err := s.readRoom(ctx, roomID)
		if err != nil || room == nil {
			return nil, presence.StillOccupied, err
		}
		next, decided := s.settings.PlanEmptiness(s.now(), room, entries, departedAt)
		if decided == presence.StillOccupied || decided == presence.AlreadyEmpty {
			return room, decided, nil
		}
		switch err := s.writeRoomAt(ctx, next, version); status.Code(err) {
		case codes.OK:
		case codes.FailedPrecondition, codes.NotFound:
			continue // the room moved on meanwhile: look again
		default:
			return nil, presence.StillOccupied, storeError("emptying a room", err)
		}
		if entries, err = s.countEntries(ctx, roomID, nil); err != nil || entries == 0 {
			return &next, decided, storeError("checking for an empty room", err)
		}
		// Step 3: a join slipped in. Undo as a join in the grace would.
		revived := s.settings.Reactivate(s.now(), next)
		_, version, err = s.readRoom(ctx, roomID)
		if err == nil {
			err = s.writeRoomAt(ctx, revived, version)
		}
		if status.Code(err) == codes.FailedPrecondition {
			continue // the join revived it itself, or another check moved it
		}
		return &revived, presence.StillOccupied, storeError("reviving a room", err)
	}
	return nil, presence.StillOccupied, presence.Errorf(presence.EUnavailable, "the room kept changing while checking it for emptiness")
}

// readRoom reads the room document outside any transaction, with its
// version (update time) for a conditional write.
func (s *Store) readRoom(ctx context.Context, roomID string) (*presence.Room, time.Time, error) {
	snap, err := s.getDoc(ctx, s.room(roomID))
	if status.Code(err) == codes.NotFound {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, storeError("reading a room", err)
	}
	room, err := decodeRoom(snap, roomID)
	return room, snap.UpdateTime, err
}

// writeRoomAt replaces the room document with room if it is still at
// version: a single write that holds no lock before it commits.
func (s *Store) writeRoomAt(ctx context.Context, room presence.Room, version time.Time) error {
	_, err := s.room(room.ID).Update(ctx, roomUpdates(room), firestore.LastUpdateTime(version))
	if err == nil {
		s.ops.write(1)
	}
	return err
}
