package firestoredb

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// stepRoom makes plan's lifecycle step as one conditional write: create the
// room only if it does not exist, revive it only if it has not changed since
// the join read it. Losing that condition means another request made the
// step (or a teardown removed the room): not an error, the join looks again.
//
// The same commit marks the room for the sweeper's emptiness re-check, so
// that a room whose creating or reviving join then fails does not stay
// active and empty.
//
// A crowd arriving at a missing room (or one in its grace) all find it so,
// and all would make the step: one write of one document, which every one
// of them then reads in its join's transaction. Two things keep that herd
// from queueing on the room:
//   - the step is preceded by a look at the room outside any transaction,
//     which takes no lock: a join that comes after the winner's commit sees
//     the step made and goes straight back to its join;
//   - the step is one atomic batch, not a transaction, attempted once
//     (stepInBatch): a batch that loses to another join's step fails at
//     once, where a transaction's commit waits for the locks the winner and
//     every reader hold (on the emulator, a crowd of 1 000 whose steps
//     were single-attempt transactions never finished), and the join looks
//     again rather than retrying a write that can only lose;
//   - an instance's joins that want the same step of the same room at once
//     share one attempt (roomSteps): each doomed write of the room is a
//     write lock the joins already reading it in their transactions collide
//     with, and a crowd made ~1 000 of them where a fleet needs one per
//     instance. Sharing is only for speed: every join reads the room in its
//     own transaction afterwards, whoever made the step.
func (s *Store) stepRoom(ctx context.Context, plan presence.JoinPlan, roomVersion time.Time) error {
	key := fmt.Sprintf("%s/%d/%d", plan.Room.ID, plan.RoomStep, roomVersion.UnixNano())
	_, err := s.roomSteps.Once(key, func() (struct{}, error) {
		// Not the first caller's deadline: the others wait on this one too.
		stepCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
		defer cancel()
		return struct{}{}, s.stepRoomOnce(stepCtx, plan, roomVersion)
	})
	return err
}

// stepRoomOnce is stepRoom's look and write, made by one of the joins that
// share it.
//
// A revive is written on the condition that the room is the version looked
// at. A crowd's last departures settle one after another after the room
// emptied, and each later one moves the grace to itself: the room's
// version, but not its generation. Such a move is not another request's
// lifecycle step, so the revive is planned again from the room as it now
// stands, here, instead of returning to the join, whose steps are few
// (maxRoomSteps) because each one it loses should leave the room active.
// Anything else that moved the room (a revive, a teardown, a new lifetime)
// ends the step: the join reads the room again in its transaction.
func (s *Store) stepRoomOnce(ctx context.Context, plan presence.JoinPlan, roomVersion time.Time) error {
	now, err := s.lookAtRoom(ctx, plan.Room.ID)
	if err != nil {
		return storeError("join: looking at the room", err)
	}
	room := plan.Room
	for moves := 0; ; moves++ {
		switch {
		case plan.RoomStep == presence.CreateRoom && now.room != nil:
			return nil // created meanwhile
		case plan.RoomStep == presence.ReviveRoom && graceMoved(now, plan.Room, roomVersion) && moves < maxGraceMoves:
			room, roomVersion = s.settings.Reactivate(s.now(), *now.room), now.version
		case plan.RoomStep == presence.ReviveRoom && (now.room == nil || !now.version.Equal(roomVersion)):
			return nil // revived, torn down or gone meanwhile
		}
		s.pause(hookBeforeRoomStep)
		err = s.stepInBatch(ctx, plan.RoomStep, roomVersion, room)
		code := status.Code(err)
		if plan.RoomStep == presence.ReviveRoom && code == codes.FailedPrecondition {
			// Moved between the look and the write: look again, with a
			// read of this join's own (a shared look may predate the move).
			r, version, err := s.readRoom(ctx, plan.Room.ID)
			if err != nil {
				return storeError("join: looking at the room", err)
			}
			now = roomLook{r, version}
			continue
		}
		switch code {
		case codes.AlreadyExists, codes.FailedPrecondition, codes.NotFound, codes.Aborted:
			return nil
		}
		return err
	}
}

// graceMoved tells whether the room looked at is the one planned to be
// revived (reviving, the plan's generation is one past it) still in its
// grace, at a version other than the one the plan was made from: only a
// later departure moved it.
func graceMoved(now roomLook, revived presence.Room, planned time.Time) bool {
	return now.room != nil && now.room.State == presence.StateSuspectedEmpty &&
		now.room.CreatedAt.Equal(revived.CreatedAt) && now.room.Generation+1 == revived.Generation &&
		!now.version.Equal(planned)
}

// stepInBatch makes step for room in one atomic batch, without a
// transaction (see stepRoom): create the room only if it does not exist,
// or revive it only if it is still at version (refreshing the expireAt of
// what its revision keeps when due, see refreshRevisionExpiry); and mark it
// for the sweeper's emptiness re-check. The shards of an earlier lifetime
// went with its teardown (see TearDown), so a created lifetime's revision
// starts at 0.
func (s *Store) stepInBatch(ctx context.Context, step presence.RoomStep, version time.Time, room presence.Room) error {
	now := s.now()
	room, refresh := s.settings.ShardsExpiry(room)
	// WriteBatch is deprecated for transactions and BulkWriter, but it is
	// the one atomic commit of several documents that does not wait for
	// locks: a transaction's commit would queue (stepRoom), and BulkWriter
	// is not atomic.
	batch := s.client.Batch()
	writes := 2
	if step == presence.CreateRoom {
		batch.Create(s.room(room.ID), roomToRecord(room))
	} else {
		batch.Update(s.room(room.ID), roomUpdates(room), firestore.LastUpdateTime(version))
		var refs []*firestore.DocumentRef
		switch {
		case refresh && room.RevisionOnEntries:
			// Of the two documents refreshRevisionExpiry keeps, shard "0"
			// is written below, with an expireAt of its own.
			refs = []*firestore.DocumentRef{s.retiredRef(room.ID)}
		case refresh:
			refs = s.shardsAndRetired(room.ID)
		}
		for _, ref := range refs {
			batch.Set(ref, map[string]any{FieldRoomID: room.ID, FieldExpireAt: room.RevisionExpireAt}, firestore.MergeAll)
		}
		writes += len(refs)
	}
	mark := s.revisionShards(room.ID).Doc("0")
	batch.Set(mark, map[string]any{
		FieldRoomID: room.ID, FieldMayBeEmptyAt: now, FieldDepartedAt: now, FieldMarkShard: markShardOf(mark),
		FieldExpireAt: now.Add(s.settings.RecordHorizon),
	}, firestore.MergeAll)
	_, err := batch.Commit(ctx)
	if err == nil {
		s.ops.write(writes)
	}
	return err
}
