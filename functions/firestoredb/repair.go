package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// repairSettle is how long after a departure the sweeper leaves the room's
// emptiness to the departing request's own check before it checks itself.
const repairSettle = 5 * time.Second

// RepairEmptyActive re-checks the emptiness of rooms where an entry was
// removed (or the room was created or revived) after since and at least
// repairSettle ago, for when the request that should have made the check
// died after its commit. It looks at up to limit revision shards, oldest
// mark first, and reports through which mark it has looked, so that the
// next call can go on from there.
//
// A room found active with an empty roster enters its grace, counted from
// the departure that the mark records; every other room is left as it is.
func (s *Store) RepairEmptyActive(ctx context.Context, since time.Time, limit int) (presence.RepairReport, error) {
	until := s.now().Add(-repairSettle)
	rep := presence.RepairReport{Through: until}
	if !until.After(since) {
		rep.Through = since
		return rep, nil
	}
	snaps, err := s.queryAll(ctx, s.client.CollectionGroup(RevisionsCollection).
		Where(FieldMayBeEmptyAt, ">", since).
		Where(FieldMayBeEmptyAt, "<=", until).
		OrderBy(FieldMayBeEmptyAt, firestore.Asc).Limit(limit))
	if err != nil {
		return presence.RepairReport{Through: since}, storeError("listing rooms to re-check for emptiness", err)
	}
	latest := map[string]time.Time{} // per room, the latest departure marked
	for _, snap := range snaps {
		rec, err := decode[revisionShardRecord](snap)
		if err != nil || rec.MayBeEmptyAt == nil {
			return presence.RepairReport{Through: since}, storeError("listing rooms to re-check for emptiness", err)
		}
		if rec.MayBeEmptyAt.After(latest[rec.RoomID]) {
			latest[rec.RoomID] = *rec.MayBeEmptyAt
		}
	}
	if len(snaps) == limit {
		// A full page: more may wait beyond the last mark read.
		rec, _ := decode[revisionShardRecord](snaps[len(snaps)-1])
		rep.Through = *rec.MayBeEmptyAt
	}
	for roomID, departedAt := range latest {
		_, decided, err := s.settleEmptiness(ctx, roomID, departedAt)
		if err != nil {
			return presence.RepairReport{Through: since, Repaired: rep.Repaired}, err
		}
		if decided == presence.BecameEmpty {
			rep.Repaired++
		}
	}
	return rep, nil
}
