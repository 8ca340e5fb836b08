package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// DueRooms returns up to limit rooms that are suspected_empty with their
// cleanupAfter at or before now, the longest-waiting first.
func (s *Store) DueRooms(ctx context.Context, now time.Time, limit int) ([]presence.Room, error) {
	q := s.client.Collection(RoomsCollection).
		Where(FieldState, "==", string(presence.StateSuspectedEmpty)).
		Where(FieldCleanupAfter, "<=", now).
		OrderBy(FieldCleanupAfter, firestore.Asc).Limit(limit)
	snaps, err := q.Documents(ctx).GetAll()
	s.ops.read(len(snaps))
	if err != nil {
		return nil, storeError("listing rooms due for teardown", err)
	}
	out := make([]presence.Room, 0, len(snaps))
	for _, snap := range snaps {
		r, err := decodeRoom(snap, snap.Ref.ID)
		if err != nil {
			return nil, storeError("listing rooms due for teardown", err)
		}
		out = append(out, *r)
	}
	return out, nil
}

// TeardownResult is what the authoritative check found and did.
type TeardownResult struct {
	Verdict    presence.Verdict
	LiveLeases int
	Room       *presence.Room    // as read inside the transaction
	Closing    *presence.Closing // set when the room was torn down
	ClosingID  string
}

func closingID(c presence.TeardownCandidate) string {
	return fmt.Sprintf("%s~%d", c.RoomID, c.CreatedAt.UnixMicro())
}

// TearDown makes the authoritative occupancy check for c in one transaction:
// it re-reads the room, counts its live leases, and — only if the room is
// still the same lifetime and generation, suspected_empty, past its grace,
// with no live lease — deletes the room document and records its closing,
// when enforce is set. Without enforce it only reports the verdict (observe).
//
// A room found suspected_empty with live leases is repaired to active in any
// mode: that is bookkeeping, not destruction.
//
// Ordering: a join into this room reads and writes the room document, which
// this transaction also reads, so the two serialise. Either the join commits
// first (the generation moves, the verdict is GenerationChanged) or it waits
// for the teardown and then creates a fresh room lifetime. The documents
// under the room are deleted afterwards by PurgeClosed, which spares anything
// written after this transaction committed.
func (s *Store) TearDown(ctx context.Context, c presence.TeardownCandidate, enforce bool) (TeardownResult, error) {
	var res TeardownResult
	roomRef := s.room(c.RoomID)
	closingRef := s.client.Collection(ClosingsCollection).Doc(closingID(c))
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		now := s.now()
		res = TeardownResult{}
		snaps, err := s.getAll(tx, roomRef)
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], c.RoomID)
		if err != nil {
			return err
		}
		res.Room = room
		// Proof of absence: no session of this room holds a lease at now.
		// The query runs in the transaction, so a failure to read aborts
		// the whole teardown (fail closed).
		live, err := tx.Documents(s.client.CollectionGroup(SessionsCollection).
			Where(FieldRoomID, "==", c.RoomID).
			Where(FieldLeaseExpiresAt, ">", now).Limit(1)).GetAll()
		s.ops.read(len(live))
		if err != nil {
			return err
		}
		res.LiveLeases = len(live)
		res.Verdict = presence.JudgeTeardown(now, room, c, len(live))
		if s.hooks.afterTeardownCheck != nil {
			s.hooks.afterTeardownCheck()
		}
		switch {
		case res.Verdict == presence.LeasesLive:
			s.ops.write(1)
			return tx.Set(roomRef, roomToRecord(s.settings.Reactivate(now, *room)))
		case res.Verdict == presence.TearDown && enforce:
			closing := s.settings.CloseRoom(now, *room)
			res.Closing, res.ClosingID = &closing, closingRef.ID
			s.ops.write(2)
			if err := tx.Delete(roomRef, firestore.Exists); err != nil {
				return err
			}
			return tx.Set(closingRef, map[string]any{
				"roomId": closing.RoomID, "openedAt": closing.OpenedAt, "emptySince": closing.EmptySince,
				"closedAt": closing.ClosedAt, "cleanupLagSeconds": closing.CleanupLag().Seconds(),
				"peakParticipants": closing.PeakParticipants, "generation": closing.Generation,
				"reason": closing.Reason, "pendingCleanup": true,
				"decidedAt": firestore.ServerTimestamp, FieldExpireAt: closing.ExpireAt,
			})
		}
		return nil
	}, firestore.MaxAttempts(maxAttempts))
	return res, storeError("tearing down a room", err)
}

// PurgeClosed finishes up to limit teardowns whose documents under
// rooms/{roomId} are not yet all deleted: those just decided, and those a
// crashed sweeper left half done. It returns how many it finished.
//
// Each document is deleted only if it was last written before the teardown
// committed (decidedAt, a server time), and with that update time as a
// precondition, so a document that a newer lifetime of the room wrote, even
// one written between our read and our delete, is never taken. Repeating a
// purge, or two sweepers purging at once, deletes each document once.
func (s *Store) PurgeClosed(ctx context.Context, limit int) (int, error) {
	snaps, err := s.client.Collection(ClosingsCollection).Where("pendingCleanup", "==", true).Limit(limit).Documents(ctx).GetAll()
	s.ops.read(len(snaps))
	if err != nil {
		return 0, storeError("listing pending teardowns", err)
	}
	for _, snap := range snaps {
		rec, err := decode[closingRecord](snap)
		if err != nil {
			return 0, storeError("listing pending teardowns", err)
		}
		if err := s.purgeRoom(ctx, rec, snap.Ref); err != nil {
			return 0, storeError("purging "+rec.RoomID, err)
		}
		if _, err := snap.Ref.Update(ctx, []firestore.Update{{Path: "pendingCleanup", Value: false}}); err != nil && status.Code(err) != codes.NotFound {
			return 0, storeError("purging "+rec.RoomID, err)
		}
		s.ops.write(1)
	}
	return len(snaps), nil
}

func (s *Store) purgeRoom(ctx context.Context, rec *closingRecord, closingRef *firestore.DocumentRef) error {
	var visit func(parent *firestore.DocumentRef) error
	visit = func(parent *firestore.DocumentRef) error {
		cols := parent.Collections(ctx)
		for {
			col, err := cols.Next()
			if errors.Is(err, iterator.Done) {
				return nil
			}
			if err != nil {
				return err
			}
			refs := col.DocumentRefs(ctx)
			for {
				ref, err := refs.Next()
				if errors.Is(err, iterator.Done) {
					break
				}
				if err != nil {
					return err
				}
				// Children first, so that a crash never leaves a
				// subcollection whose parent is already gone unvisited.
				if err := visit(ref); err != nil {
					return err
				}
				if err := s.purgeDoc(ctx, ref, col.ID, rec, closingRef); err != nil {
					return err
				}
			}
		}
	}
	return visit(s.room(rec.RoomID))
}

func (s *Store) purgeDoc(ctx context.Context, ref *firestore.DocumentRef, collection string, rec *closingRecord, closingRef *firestore.DocumentRef) error {
	snap, err := ref.Get(ctx)
	s.ops.read(1)
	if status.Code(err) == codes.NotFound {
		return nil // a parent that exists only through its subcollections
	}
	if err != nil {
		return err
	}
	if snap.UpdateTime.After(rec.DecidedAt) {
		return nil // written by a newer lifetime of the room
	}
	if collection == ReceiptsCollection && s.settings.ArchiveReceipts {
		data := snap.Data()
		data[FieldExpireAt] = rec.ExpireAt
		if _, err := closingRef.Collection(ReceiptsCollection).Doc(ref.ID).Set(ctx, data); err != nil {
			return err
		}
		s.ops.write(1)
	}
	_, err = ref.Delete(ctx, firestore.LastUpdateTime(snap.UpdateTime))
	switch status.Code(err) {
	case codes.OK:
		s.ops.write(1)
		return nil
	case codes.NotFound, codes.FailedPrecondition:
		return nil // deleted by another sweeper, or rewritten since we read it
	}
	return err
}

// RepairEmptyActive finds up to limit rooms marked active whose roster is
// empty (a missed event can leave one behind) and marks them
// suspected_empty, after checking inside a transaction that the roster is
// really empty. It returns how many it repaired.
func (s *Store) RepairEmptyActive(ctx context.Context, limit int) (int, error) {
	snaps, err := s.client.Collection(RoomsCollection).
		Where(FieldState, "==", string(presence.StateActive)).
		Where("participantCount", "<=", 0).Limit(limit).Documents(ctx).GetAll()
	s.ops.read(len(snaps))
	if err != nil {
		return 0, storeError("listing empty active rooms", err)
	}
	repaired := 0
	for _, snap := range snaps {
		ref := snap.Ref
		err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			now := s.now()
			got, err := s.getAll(tx, ref)
			if err != nil {
				return err
			}
			room, err := decodeRoom(got[0], ref.ID)
			if err != nil || room == nil || room.State != presence.StateActive || room.ParticipantCount > 0 {
				return err
			}
			entries, err := tx.Documents(ref.Collection(ParticipantsCollection).Limit(1)).GetAll()
			s.ops.read(len(entries))
			if err != nil || len(entries) > 0 {
				return err
			}
			repaired++
			s.ops.write(1)
			return tx.Set(ref, roomToRecord(s.settings.Suspect(now, *room)))
		}, firestore.MaxAttempts(maxAttempts))
		if err != nil {
			return repaired, storeError("repairing an empty active room", err)
		}
	}
	return repaired, nil
}

// CleanupMode returns the run-time mode operators set at roomlease/config
// (field cleanupMode), or "" when none is set.
func (s *Store) CleanupMode(ctx context.Context) (string, error) {
	snap, err := s.client.Collection(ControlCollection).Doc(ConfigDoc).Get(ctx)
	s.ops.read(1)
	if status.Code(err) == codes.NotFound {
		return "", nil
	}
	if err != nil {
		return "", storeError("reading the cleanup mode", err)
	}
	mode, _ := snap.Data()["cleanupMode"].(string)
	return mode, nil
}

// SetCleanupMode writes the run-time mode (the kill switch).
func (s *Store) SetCleanupMode(ctx context.Context, mode string) error {
	_, err := s.client.Collection(ControlCollection).Doc(ConfigDoc).Set(ctx, map[string]any{"cleanupMode": mode}, firestore.MergeAll)
	s.ops.write(1)
	return storeError("setting the cleanup mode", err)
}

// WriteSweepStatus replaces roomlease/sweepStatus with the latest summary.
func (s *Store) WriteSweepStatus(ctx context.Context, summary map[string]any) error {
	_, err := s.client.Collection(ControlCollection).Doc(SweepStatusDoc).Set(ctx, summary)
	s.ops.write(1)
	return storeError("writing the sweep status", err)
}
