package firestoredb

import (
	"context"
	"errors"
	"sync"

	"cloud.google.com/go/firestore"
	"golang.org/x/sync/errgroup"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
	snaps, err := s.queryAll(ctx, s.client.Collection(ClosingsCollection).
		Where(FieldPendingCleanup, "==", true).Limit(limit))
	if err != nil {
		return 0, storeError("listing pending teardowns", err)
	}
	// One record that fails (a room's documents Firestore keeps refusing, a
	// hand-edited record) must not stop the purge of the others; its error
	// is returned with the count of those finished. Rooms are purged
	// purgeAtOnce at a time: each is a walk of many round trips, and the
	// pass's later steps (and its next deadlines) wait for the slowest.
	// Purging rooms at once is as safe as two sweepers purging at once.
	var (
		mu       sync.Mutex
		errs     []error
		finished int
		g        errgroup.Group
	)
	g.SetLimit(purgeAtOnce)
	for _, snap := range snaps {
		g.Go(func() error {
			err := s.purgeOne(ctx, snap)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else {
				finished++
			}
			return nil // collected above: one room's failure stops no other
		})
	}
	_ = g.Wait()
	return finished, errors.Join(errs...)
}

// purgeAtOnce is how many torn-down rooms PurgeClosed purges at once.
const purgeAtOnce = 8

// purgeOne finishes the teardown whose closing record snap is.
func (s *Store) purgeOne(ctx context.Context, snap *firestore.DocumentSnapshot) error {
	rec, err := decode[closingRecord](snap)
	if err != nil {
		return storeError("reading a pending teardown", err)
	}
	if err := s.purgeRoom(ctx, rec, snap.Ref); err != nil {
		return storeError("purging a torn-down room", err)
	}
	// Last: a crash before this line leaves the record pending, and the
	// next pass repeats the (idempotent) purge.
	err = s.updateDoc(ctx, snap.Ref, []firestore.Update{{Path: FieldPendingCleanup, Value: false}})
	if err != nil && status.Code(err) != codes.NotFound {
		return storeError("purging a torn-down room", err)
	}
	return nil
}

// purgeRoom deletes what rec's teardown left under its room, depth first.
// A collection's documents are purged purgeDocsAtOnce at a time: each
// costs three round trips (its subcollections listed, itself read, then
// deleted), so a room of thousands purged one document after another would
// take minutes. Each document's children still go before it.
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
			var g errgroup.Group
			g.SetLimit(purgeDocsAtOnce)
			refs := col.DocumentRefs(ctx)
			var listErr error
			for listErr == nil {
				ref, err := refs.Next()
				if errors.Is(err, iterator.Done) {
					break
				}
				if listErr = err; err != nil {
					break
				}
				g.Go(func() error {
					// Children first, so that a crash never leaves a
					// subcollection whose parent is already gone
					// unvisited.
					if err := visit(ref); err != nil {
						return err
					}
					return s.purgeDoc(ctx, ref, col.ID, rec, closingRef)
				})
			}
			if err := errors.Join(g.Wait(), listErr); err != nil {
				return err
			}
		}
	}
	return visit(s.room(rec.RoomID))
}

// purgeDocsAtOnce is how many documents of one collection purgeRoom purges
// at once.
const purgeDocsAtOnce = 16

func (s *Store) purgeDoc(ctx context.Context, ref *firestore.DocumentRef, collection string, rec *closingRecord, closingRef *firestore.DocumentRef) error {
	snap, err := s.getDoc(ctx, ref)
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
		if err := s.setDoc(ctx, closingRef.Collection(ReceiptsCollection).Doc(ref.ID), data); err != nil {
			return err
		}
	}
	err = s.deleteDoc(ctx, ref, firestore.LastUpdateTime(snap.UpdateTime))
	switch status.Code(err) {
	case codes.NotFound, codes.FailedPrecondition:
		return nil // deleted by another sweeper, or rewritten since we read it
	}
	return err
}
