package firestoredb

import (
	"context"
	"errors"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// repairSettle is how long after a departure's mark the sweeper leaves the
// room's emptiness to the departing request's own check, and how late a
// mark may commit after the time it carries: a mark carries the now of the
// transaction attempt that commits it, and an attempt ends with its
// request (httpapi.RequestTimeout, 20 s), so by then every mark up to
// until has committed or never will. The margin covers clocks of different
// instances.
const repairSettle = 30 * time.Second

// RepairEmptyActive re-checks the emptiness of rooms marked (FieldMayBeEmptyAt)
// after since and at least repairSettle ago, for when the request that
// should have made the check died after its commit. It looks at up to limit
// revision shards, oldest mark first, and reports through which mark it has
// looked, so that the next call can go on from there.
//
// A room found active with an empty roster enters its grace, counted from
// the departure that the mark records; every other room is left as it is.
// A room whose check fails is marked again, with now, so that a later call
// looks at it again while the watermark moves on past it: one room that
// keeps failing must not hold back everyone else's repair. Only when even
// that mark cannot be written does the report stay at since. It returns the
// first failure with the report of what it did.
func (s *Store) RepairEmptyActive(ctx context.Context, since time.Time, limit int) (presence.RepairReport, error) {
	now := s.now()
	until := now.Add(-repairSettle)
	rep := presence.RepairReport{Through: until}
	if !until.After(since) {
		rep.Through = since
		return rep, nil
	}
	snaps, err := s.queryAll(ctx, s.byShard(s.client.CollectionGroup(RevisionsCollection).Query, FieldMarkShard).
		Where(FieldMayBeEmptyAt, ">", since).
		Where(FieldMayBeEmptyAt, "<=", until).
		OrderBy(FieldMayBeEmptyAt, firestore.Asc).Limit(limit))
	if err != nil {
		return presence.RepairReport{Through: since}, storeError("listing rooms to re-check for emptiness", err)
	}
	latest := map[string]time.Time{} // per room, the latest departure marked
	var order []string
	for _, snap := range snaps {
		rec, err := decode[revisionShardRecord](snap)
		if err != nil || rec.MayBeEmptyAt == nil || rec.RoomID == "" {
			continue // not one of ours, or hand-edited: nothing to re-check
		}
		departed := *rec.MayBeEmptyAt
		if rec.DepartedAt != nil {
			departed = *rec.DepartedAt
		}
		if _, seen := latest[rec.RoomID]; !seen {
			order = append(order, rec.RoomID)
		}
		if departed.After(latest[rec.RoomID]) {
			latest[rec.RoomID] = departed
		}
	}
	if len(snaps) == limit {
		// A full page: more may wait beyond the last mark read.
		if t, ok := snaps[len(snaps)-1].Data()[FieldMayBeEmptyAt].(time.Time); ok {
			rep.Through = t
		}
	}
	var firstErr error
	for _, roomID := range order {
		_, decided, err := s.settleEmptiness(ctx, revisionSource{roomID: roomID}, latest[roomID]) // the kind unknown: see countEntries
		if err == nil {
			if decided == presence.BecameEmpty {
				rep.Repaired++
			}
			continue
		}
		rep.Failed++
		firstErr = errors.Join(firstErr, err)
		if err := s.markAgain(ctx, roomID, now, latest[roomID]); err != nil {
			return presence.RepairReport{Through: since, Repaired: rep.Repaired, Failed: rep.Failed}, errors.Join(firstErr, err)
		}
	}
	if err := s.saveRepairWatermark(ctx, rep.Through); err != nil {
		firstErr = errors.Join(firstErr, err)
	}
	return rep, firstErr
}

// markAgain marks roomID for a later re-check, keeping the departure time.
func (s *Store) markAgain(ctx context.Context, roomID string, now, departedAt time.Time) error {
	ref := s.revisionShards(roomID).Doc("0")
	err := s.setDoc(ctx, ref, map[string]any{
		FieldRoomID: roomID, FieldMayBeEmptyAt: now, FieldDepartedAt: departedAt, FieldMarkShard: markShardOf(ref),
	}, firestore.MergeAll)
	return storeError("marking a room for another emptiness check", err)
}

// RepairWatermark returns how far the sweepers' emptiness re-checks have
// looked, as the latest of them saved it, or the zero time if none has.
func (s *Store) RepairWatermark(ctx context.Context) (time.Time, error) {
	snap, err := s.getDoc(ctx, s.control(RepairWatermarkDoc))
	if status.Code(err) == codes.NotFound {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, storeError("reading the repair watermark", err)
	}
	t, _ := snap.Data()[FieldThrough].(time.Time)
	return t, nil
}

// saveRepairWatermark records through for sweepers that start later. Two
// sweepers may overwrite each other's; the older value only makes a new
// sweeper look back further, which re-checks rooms harmlessly.
func (s *Store) saveRepairWatermark(ctx context.Context, through time.Time) error {
	err := s.setDoc(ctx, s.control(RepairWatermarkDoc), map[string]any{FieldThrough: through})
	return storeError("saving the repair watermark", err)
}
