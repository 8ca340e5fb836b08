package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Occupancy answers how many are in roomID for anyone signed in, when the
// room's policy opts in (presence.CheckOccupancyReader decides on the
// policy, read afresh, before anything of the room is read).
//
// The count and the revision come from one read-only transaction, so they
// belong to one snapshot: the count is the roster's size at that revision.
// In a room that counts its entries on the revision shards, both are
// aggregations over the shards (O(shards)); in an older room the count is a
// count() of the entries. An absent room (never created, or torn down)
// reads as 0 at revision 0: the policy, which outlives the room, already
// said that anyone may know.
//
// Returns EInvalid for a malformed room id, NotVisible for a room without
// the opt-in, EUnavailable when Firestore is unreachable.
func (s *Store) Occupancy(ctx context.Context, roomID string) (presence.Occupancy, error) {
	if err := presence.ValidateRoomID(roomID); err != nil {
		return presence.Occupancy{}, err
	}
	p, err := s.readPolicy(ctx, roomID)
	if err != nil {
		return presence.Occupancy{}, storeError("reading the room's policy", err)
	}
	if err := presence.CheckOccupancyReader(p); err != nil {
		return presence.Occupancy{}, err
	}
	var out presence.Occupancy
	err = s.transact(ctx, "reading a room's occupancy", func(tx *txn, now time.Time) error {
		out = presence.Occupancy{RoomID: roomID, AsOf: now}
		snaps, err := tx.getAll(s.room(roomID))
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], roomID)
		if err != nil || room == nil {
			return err
		}
		out.Revision, out.Count, err = s.roomCounts(ctx, *room, tx)
		return err
	}, firestore.ReadOnly)
	return out, err
}
