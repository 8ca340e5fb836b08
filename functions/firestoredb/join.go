package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/steptime"
)

// maxRoomSteps bounds how often one join may find the room needing a
// lifecycle step (created, revived) and try again: each step that another
// request won is a room that exists and is active by the next attempt, so
// more than a few in a row means the room is being torn down and recreated
// under our feet. A revive that loses only to a grace moving under it is
// not such a step: the step follows the grace (stepRoomOnce).
const maxRoomSteps = 5

// Join admits req's session into its room, creating the room if needed, and
// issues a new generation with a fresh lease.
//
//  1. One transaction reads the room, the user's entry and sessions, the
//     policy and, for a new user, the roster's size and the user's per-user
//     document (the rooms cap); it writes the session, the entry if it
//     changed, in an older room the revision shard of this user (+1, and
//     the new entry on its count) and, for a new entry, the per-user
//     document. It reads the room document but never writes it: a teardown
//     that decided on the room waits for it or makes it retry, and
//     concurrent joins of other users share only read locks.
//     In a room that keeps its revision on its entries, the size and the
//     revision before the join come from one snapshot read beside the
//     transaction (joinCounts), once per attempt. A new user's join that
//     arrives with a crowd has its claim on a place written and judged
//     before the transaction instead, so that it holds no lock through
//     that wait (claimfirst.go).
//  2. If the room is missing or in its empty-room grace, that transaction
//     writes nothing; the room is created or revived on its own, with a
//     single conditional write, and step 1 runs again. In a crowd joining a
//     new room at once, one creation wins and the others' conditional
//     writes fail at once, without locks held to deadlock on; and a join
//     whose instance has not seen the room active lately looks at it
//     first, outside any transaction, so that its first transaction need
//     not read (and lock) a room that is not there (roomlook.go). Of an
//     instance's joins that find the room so at once, one plans and makes
//     the step for the others (roomlead.go); into a missing room, that one
//     creates the room in its own join's commit instead (createjoin.go).
//  3. The reply's revision: in a room that keeps it on its entries, the
//     revision of that snapshot plus the join's own change, if it made one
//     (see joinCounts for why that is a revision the room passed through);
//     in an older room, the shards' sum read after the commit.
//
// The per-user caps are decided in step 1, before step 2, so that a refused
// join writes nothing, not even a new room.
//
// Returns EInvalid for malformed ids, EForbidden if the room's policy does
// not list the user, ETooManySessions and ETooManyRooms at the per-user caps,
// ERoomFull at the participant cap, EUnavailable when Firestore is
// unreachable.
func (s *Store) Join(ctx context.Context, req presence.JoinRequest) (presence.JoinResult, error) {
	if err := req.Validate(); err != nil {
		return presence.JoinResult{}, err
	}
	req.Allowance = req.Allowance.Once() // asked once, whatever the attempts (chosen.go)
	var res presence.JoinResult
	var src revisionSource // where the reply's revision is read
	var before *int64      // the revision just before the join, when joinOnce read it
	// A room this instance has not seen active lately is looked at first,
	// without a lock (roomlook.go); only the first attempt uses the look.
	look, err := s.lookBeforeJoin(ctx, req.RoomID)
	if err != nil {
		return res, storeError("join: looking at the room", err)
	}
	claim := &joinClaim{} // a new user's claim on a place (claims.go)
	defer s.dropClaim(ctx, claim)
	for step := 0; ; step++ {
		var pre *pendingJudgement
		if look == nil {
			// A new user's place, judged before the locks, while the
			// transaction begins (claimfirst.go).
			pre = s.startClaimBeforeJoin(ctx, req, claim)
		}
		began := time.Now()
		plan, version, stepped, err := s.planOrJoin(ctx, req, &src, &before, look, claim, pre)
		pre.wait() // it writes the claim, which is read from here on
		if at := pre.finishedAt(); at.After(began) {
			began = at // join-txn: what the transaction added after it
		}
		switch {
		case look == nil:
			steptime.Since(ctx, stepJoinTxn, began)
		case err == nil && plan.RoomStep == presence.NoRoomStep:
			steptime.Since(ctx, stepJoinCreate, began) // joined creating the room (createjoin.go)
		default:
			steptime.Since(ctx, stepJoinRoom, began) // planned from the look (roomlead.go)
		}
		look = nil
		if again, err := s.settleClaim(ctx, err, src, claim); again {
			step-- // not a lifecycle step
			continue
		} else if err != nil {
			return res, err
		}
		if plan.RoomStep == presence.NoRoomStep {
			s.sawActive(req.RoomID)
			s.sawPresent(req.RoomID, req.ParticipantID)
			res.Session, res.Held = plan.Session, plan.Held
			res.Grant = s.grant(plan.Session, version) // the session's, as written
			if plan.MarkLarge {
				s.markLarge(ctx, req.RoomID) // after the commit: see summary.go
			} else if plan.CheckLargeAt > 0 {
				s.markLargeIfReached(ctx, req.RoomID, plan.CheckLargeAt)
			}
			if before != nil {
				res.Revision = *before
				if plan.WriteParticipant {
					res.Revision++ // the join's change (changedEntry)
				}
				return res, nil
			}
			break
		}
		s.forgetActive(req.RoomID)
		if step == maxRoomSteps {
			return res, presence.Errorf(presence.EUnavailable, "the room kept changing while joining; retry")
		}
		if !stepped {
			began = time.Now()
			err = s.stepRoom(ctx, plan, version)
			steptime.Since(ctx, stepJoinRoom, began)
			if err != nil {
				return res, err
			}
		}
	}
	began := time.Now()
	rev, err := s.readRevision(ctx, src, nil) // the shards: one aggregation, one snapshot
	steptime.Since(ctx, stepJoinRevision, began)
	if err != nil {
		return res, storeError("join: reading the revision", err)
	}
	res.Revision = rev
	return res, nil
}

// planOrJoin is step 1, or, for a room looked at and found missing or not
// active, its plan from a read outside any transaction (planFromLook,
// led by one join of the instance: roomlead.go), with the look's version:
// that plan is only ever a lifecycle step or a refusal. stepped says the
// step was made already.
func (s *Store) planOrJoin(ctx context.Context, req presence.JoinRequest, src *revisionSource, before **int64, look *roomLook, claim *joinClaim, pre *pendingJudgement) (presence.JoinPlan, time.Time, bool, error) {
	if look != nil {
		lp, err := s.planFromLookOnce(ctx, req, look)
		switch {
		case err != nil:
			return lp.plan, look.version, false, err
		case lp.created != nil:
			// The room's lifetime began with the join: revision 0 before it.
			*src = lp.created.src
			*before = new(int64)
			return lp.created.plan, lp.created.written, false, nil
		case lp.ok && lp.plan.RoomStep == presence.NoRoomStep:
			// Unreachable: a room that is not active plans only its step.
			return lp.plan, look.version, false, fmt.Errorf("join: a plan that writes, from a room read outside any transaction")
		case lp.ok:
			return lp.plan, look.version, lp.stepped, nil
		}
	}
	plan, version, err := s.joinOnce(ctx, req, src, before, look, claim, pre)
	return plan, version, false, err
}

// settleClaim handles what a join attempt returned about its claim on a
// place (claims.go): a contested claim is contested outside the
// transaction, a lost one is dropped to be claimed again; either way the
// join tries again (true). Any other outcome passes through as the error.
func (s *Store) settleClaim(ctx context.Context, err error, src revisionSource, c *joinClaim) (bool, error) {
	if errors.Is(err, errContested) {
		began := time.Now()
		err = s.contestClaim(ctx, src, c)
		steptime.Since(ctx, stepJoinContest, began)
		if err == nil {
			return true, nil
		}
	}
	if errors.Is(err, errClaimLost) {
		c.lost++
		if c.lost > maxRoomSteps {
			return false, presence.Errorf(presence.EUnavailable, "the join's claim on a place kept being removed; retry")
		}
		c.ref, c.judged = nil, nil
		return true, nil
	}
	return false, err
}
