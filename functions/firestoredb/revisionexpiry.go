package firestoredb

import (
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// refreshRevisionExpiry stages, in tx, the blind merges that keep what
// room's revision and its repair marks still need alive until expireAt
// (see presence.Settings.ShardsExpiry): the start of a grace
// (writeRoomAt), the teardown's repair of an occupied room and the
// heartbeats' daily refresh (refreshExpiry).
//
// An older room counts on every shard: all of them, and the retired
// count (refreshShards). A room that keeps its revision on its entries
// (entryrevision.go) counts on no shard, so only two documents:
//   - the retired count (RetiredDoc), which carries the folded departures'
//     changes of the revision;
//   - shard "0", which carries the room's own emptiness-repair mark
//     (FieldMayBeEmptyAt, FieldDepartedAt): a creation's or a revival's
//     (stepRoom) and the sweeper's markAgain, which rewrites the mark but
//     not the shard's expireAt, so a pending mark must not sit on a shard
//     about to expire. A shard "0" that does not exist yet is created with
//     roomId and expireAt only, which marks nothing.
//
// The departures' own marks (DepartureMarkPrefix) are left alone: each is
// written with its mark and an expireAt RecordHorizon after it
// (markDeparture), the repair looks at it repairSettle after the mark,
// and only a sweeper down for the whole horizon would find it gone.
// Refreshing them would mean listing them, one per user who ever left.
func (s *Store) refreshRevisionExpiry(tx *txn, room presence.Room, expireAt time.Time) error {
	if !room.RevisionOnEntries {
		return s.refreshShards(tx, room.ID, expireAt)
	}
	for _, ref := range []*firestore.DocumentRef{s.retiredRef(room.ID), s.revisionShards(room.ID).Doc("0")} {
		if err := tx.set(ref, map[string]any{FieldRoomID: room.ID, FieldExpireAt: expireAt}, firestore.MergeAll); err != nil {
			return err
		}
	}
	return nil
}
