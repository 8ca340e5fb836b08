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

// maxEmptinessRounds bounds how often settleEmptiness's revive (step 3)
// re-reads a room whose version moved under it; each round that loses does
// so because another departure or a join changed the room, which settles
// within a few.
const maxEmptinessRounds = 5

// maxGraceMoves bounds how often one write follows a grace that moved
// under it: a departure's check (settleEmptiness, step 2) or a join's
// revive (stepRoomOnce). A crowd's last departures check the empty room
// at once, and each later than the grace moves it, once; every move makes
// the others' conditional writes lose, and each then reads the room again
// and, if its own departure is later still, moves it after. So the moves
// end with the departures, however many there are; the bound is for a
// fault, not for the churn.
const maxGraceMoves = 64

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
//     it). Read the room again, then count: if the room is still
//     suspected_empty and someone is there, revive it, computed from the
//     room just read and written on the condition that it is still that
//     version. Whatever moved the room meanwhile (the join reviving it, a
//     later departure moving the grace) makes the write fail, and step 3
//     looks again; the revive never overwrites what it did not read.
//
// If this request dies before step 3, the room is suspected_empty with a
// roster entry (and a session that renews), and later departures that
// stop at step 1's count (StillOccupied) leave it so. The teardown's check
// counts entries, so it finds such a room and repairs it to active; it
// never deletes it, whatever the leases look like at the sweeper's clock
// (docs/races.md, "A teardown under a lease at its edge"). A departure whose entry went after step 3's count
// marked its revision shard (FieldMayBeEmptyAt), so a room this revives
// while it empties again is re-checked by the sweeper's repair.
//
// No transaction holds a lock here, so a crowd's last departures do not
// wait for each other. src names the room and where it keeps its size
// (rosterOccupied), as the departed entry told.
func (s *Store) settleEmptiness(ctx context.Context, src revisionSource, departedAt time.Time) (*presence.Room, presence.Emptiness, error) {
	var written *presence.Room // set once step 2 has written the room
	var decided presence.Emptiness
	moves, rounds := 0, 0 // writes lost in step 2, and in step 3
	for moves < maxGraceMoves && rounds < maxEmptinessRounds {
		if written == nil {
			room, next, d, err := s.emptyRoom(ctx, src, departedAt)
			switch {
			case err != nil || d == presence.StillOccupied || d == presence.AlreadyEmpty:
				return room, d, err
			case next == nil:
				// The room moved on meanwhile, nearly always another
				// departure's grace (maxGraceMoves): look again.
				moves++
				continue
			}
			written, decided = next, d
		}
		rounds++
		// Step 3: the room first, then the count, so that an entry that
		// goes after the count also finds the room as read (and moves it,
		// failing the revive's condition) or leaves a repair mark.
		room, version, err := s.readRoom(ctx, src.roomID)
		if err != nil {
			return nil, presence.StillOccupied, err
		}
		if room == nil || room.State != presence.StateSuspectedEmpty {
			return room, presence.StillOccupied, nil // a join revived it, or it is gone
		}
		entries, err := s.rosterOccupied(ctx, src)
		if err != nil || entries == 0 {
			return room, decided, storeError("checking for an empty room", err)
		}
		s.pause(hookBeforeEmptinessRevive)
		revived := s.settings.Reactivate(s.now(), *room)
		switch err := s.writeRoomAt(ctx, revived, version); status.Code(err) {
		case codes.OK:
			return &revived, presence.StillOccupied, nil
		case codes.FailedPrecondition, codes.NotFound:
			continue // moved since the read: read it again
		default:
			return nil, presence.StillOccupied, storeError("reviving a room", err)
		}
	}
	return nil, presence.StillOccupied, presence.Errorf(presence.EUnavailable, "the room kept changing while checking it for emptiness")
}

// emptyRoom is steps 1 and 2 of settleEmptiness. It returns the room as it
// stands and what was decided, with next set to the room as written when
// this call made the transition or moved the grace; next is nil with
// BecameEmpty or LaterDeparture when the conditional write lost.
func (s *Store) emptyRoom(ctx context.Context, src revisionSource, departedAt time.Time) (room, next *presence.Room, decided presence.Emptiness, err error) {
	// The count first: in a crowd leaving, all but the last few departures
	// stop here, at one read.
	entries, err := s.rosterOccupied(ctx, src)
	if err != nil || entries > 0 {
		return nil, nil, presence.StillOccupied, storeError("checking for an empty room", err)
	}
	room, version, err := s.readRoom(ctx, src.roomID)
	if err != nil || room == nil {
		return nil, nil, presence.StillOccupied, err
	}
	planned, decided := s.settings.PlanEmptiness(s.now(), room, entries, departedAt)
	if decided == presence.StillOccupied || decided == presence.AlreadyEmpty {
		return room, nil, decided, nil
	}
	s.pause(hookBeforeEmptinessWrite)
	switch err := s.writeRoomAt(ctx, planned, version); status.Code(err) {
	case codes.OK:
		s.forgetActive(src.roomID) // this instance's next joins look first (roomlook.go)
		return &planned, &planned, decided, nil
	case codes.FailedPrecondition, codes.NotFound:
		return nil, nil, decided, nil
	default:
		return nil, nil, presence.StillOccupied, storeError("emptying a room", err)
	}
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
// version, refreshing the expireAt of the documents its revision keeps
// with it when due (see presence.Settings.ShardsExpiry,
// refreshRevisionExpiry). It reads nothing, so it holds no lock before it
// commits; the room's condition decides for the whole commit.
func (s *Store) writeRoomAt(ctx context.Context, room presence.Room, version time.Time) error {
	room, refresh := s.settings.ShardsExpiry(room)
	return s.transact(ctx, "writing a room", func(tx *txn, now time.Time) error {
		if err := tx.update(s.room(room.ID), roomUpdates(room), firestore.LastUpdateTime(version)); err != nil {
			return err
		}
		if refresh {
			return s.refreshRevisionExpiry(tx, room, room.RevisionExpireAt)
		}
		return nil
	})
}
