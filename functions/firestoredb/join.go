package firestoredb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// joinOnce is step 1: it returns the plan it applied and the session's
// update time as written (for its lease token), or, when the room needs a
// lifecycle step first, that step and the room's update time as read (zero
// for a missing room). It sets *src to where the room it read keeps its
// revision, and *before to the revision just before the join when it read
// it (joinCounts), nil otherwise. With look (a room found missing or not
// active outside any transaction, roomlook.go), the transaction takes the
// room from it instead of reading it, and can then only plan the room's
// lifecycle step, writing nothing. With pre (a new user's claim judged
// before the transaction, claimfirst.go), the transaction is begun while
// the judgement runs, and each attempt reads only once it is done.
func (s *Store) joinOnce(ctx context.Context, req presence.JoinRequest, src *revisionSource, before **int64, look *roomLook, claim *joinClaim, pre *pendingJudgement) (presence.JoinPlan, time.Time, error) {
	roomRef := s.room(req.RoomID)
	participantRef := s.participant(req.RoomID, req.ParticipantID)
	var plan presence.JoinPlan
	var roomVersion time.Time
	var resp firestore.CommitResponse
	claimInCommit := false
	attempt := newAttemptTimer(stepJoinBegin)
	err := s.transactAfter(ctx, "join", pre.ready(), func(tx *txn, now time.Time) error {
		// The begin's time is what it added to the join: the part of it
		// that did not overlap the judgement before the transaction.
		if at := pre.finishedAt(); at.After(attempt.called) {
			attempt.called = at
		}
		attempt.begin(ctx, stepJoinRetried)
		s.pause(hookBeforeJoinReads)
		claimInCommit = false
		// Everything the decision depends on. The reads lock these documents
		// until commit, so a concurrent leave, heartbeat or teardown of the
		// same session or room either commits before our reads or waits.
		refs := []*firestore.DocumentRef{roomRef, participantRef, s.policy(req.RoomID), s.session(req.SessionKey)}
		if look != nil {
			refs = refs[1:]
		}
		// A new user's two documents too, in the same round trip, unless
		// this instance saw the user listed (firstreads.go). A join that
		// looked at the room plans only the room's step, which needs
		// neither.
		var early []*firestore.DocumentRef
		if look == nil {
			early = s.newUserRefs(req.RoomID, req.ParticipantID)
		}
		// And, for such a user, with events on, the event cursor: a user
		// not known listed is nearly always added.
		var snaps []*firestore.DocumentSnapshot
		var cursor *firestore.DocumentSnapshot // nil: read when needed
		var err error
		if all := append(refs, early...); len(early) > 0 {
			snaps, cursor, err = s.getAllWithCursor(tx, req.RoomID, req.ParticipantID, all...)
		} else {
			snaps, err = tx.getAll(all...)
		}
		if err != nil {
			return err
		}
		newUserSnaps := snaps[len(refs):]
		snaps = snaps[:len(refs)]
		if look != nil {
			snaps = append([]*firestore.DocumentSnapshot{nil}, snaps...)
		}
		var room *presence.Room
		if look != nil {
			room = look.room
		} else if room, err = decodeRoom(snaps[0], req.RoomID); err != nil {
			return err
		}
		active := room != nil && room.State == presence.StateActive
		if room != nil {
			*src = roomRevision(*room)
		}
		// The snapshot of size and revision (joinCounts) is a read-only
		// transaction of its own, so it runs beside the reads that follow
		// instead of after them; it is waited for before anything is
		// decided, and on every return. A join that adds the user's entry
		// (a new user, or an entry left over from an earlier lifetime)
		// takes its snapshot after its claim instead (claims.go).
		onEntries := active && src.onEntries()
		var counts *pendingCounts
		if onEntries && !addsEntry(snaps[1], req, room) {
			counts = s.startEntrySnapshot(ctx, *src, time.Time{})
			defer counts.wait()
		}
		st, err := s.readJoinState(ctx, tx, now, req, snaps, room)
		if err != nil {
			return err
		}
		// A user not listed, or listed only by an entry left over from an
		// earlier lifetime (presence.JoinState.AddsEntry), gets a new entry.
		newEntry := st.AddsEntry()
		var left *presence.Departure
		if newEntry {
			if left, err = s.readNewUserDocs(tx, req, &st, newUserSnaps); err != nil {
				return err
			}
		}
		steptime.Since(ctx, stepJoinRead, attempt.began)
		*before = nil
		paused := false // hookAfterJoinReads: before anything is decided
		switch {
		case onEntries && newEntry:
			// A new user: a place is claimed first, and judged with the
			// other claims (claims.go); but not by a join that is refused
			// whatever the room's size, which writes nothing.
			s.pause(hookAfterJoinReads)
			paused = true
			if _, err := s.settings.PlanJoin(now, st, req); err != nil {
				return err
			}
			if *before, err = s.claimedCounts(ctx, now, req, &st, *src, claim); err != nil {
				return err
			}
		case counts != nil:
			if *before, err = s.joinCounts(counts); err != nil {
				return err
			}
		case active && newEntry:
			// A new user in an older room: the cap needs the roster's
			// size, read from the revision shards (revision.go:
			// O(shards), exact at the cap).
			began := time.Now()
			if st.Entries, err = s.joinRosterSize(ctx, tx, *st.Room, st.Policy); err != nil {
				return err
			}
			steptime.Since(ctx, stepJoinSize, began)
		}
		if !paused {
			s.pause(hookAfterJoinReads)
		}
		if plan, err = s.planJoin(now, st, req); err != nil {
			return err
		}
		switch {
		case plan.RoomStep != presence.NoRoomStep && look != nil:
			roomVersion = look.version
			return nil // nothing written; the room comes first
		case plan.RoomStep != presence.NoRoomStep:
			roomVersion = snaps[0].UpdateTime
			return nil
		case look != nil:
			// Unreachable: a room that is not active plans only its step.
			return fmt.Errorf("join: a plan that writes, from a room read outside the transaction")
		}
		defer attempt.stage() // what follows is staged, then committed
		var event *eventBase  // the last read: the writes follow
		switch {
		case plan.WriteParticipant && cursor != nil:
			event, err = s.cursorFrom(tx, cursor, req.RoomID, req.ParticipantID, st.Room.CreatedAt)
		case plan.WriteParticipant:
			event, err = s.readCursor(tx, req.RoomID, req.ParticipantID, st.Room.CreatedAt)
		}
		if err != nil {
			return err
		}
		if plan.FenceParticipant && !plan.WriteParticipant {
			if err := tx.set(participantRef, participantToRecord(plan.Participant)); err != nil {
				return err
			}
		}
		if plan.WriteParticipant {
			before := st.Participant
			if plan.AddsEntry {
				before = nil // a left-over entry joins this lifetime anew
			}
			if err := s.stageEntry(tx, now, req, plan, st.Room, before, left, event); err != nil {
				return err
			}
		}
		if err := s.deleteSessions(tx, req.SessionKey, plan.ExpiredSiblings); err != nil {
			return err
		}
		// The claim goes in the commit that adds the entry, which fails if
		// the claim is not the one written (claims.go). An attempt that
		// finds the user listed meanwhile (a twin join of the session
		// committed the entry) needs no place and leaves the claim alone.
		claimInCommit = claim.ref != nil && plan.AddsEntry
		if claimInCommit {
			if err := tx.delete(claim.ref, firestore.LastUpdateTime(claim.writtenAt)); err != nil {
				return err
			}
		}
		return s.stageSession(tx, req, plan)
	}, firestore.WithCommitResponseTo(&resp))
	attempt.done(ctx, stepJoinCommit)
	switch {
	case err == nil && plan.RoomStep == presence.NoRoomStep:
		roomVersion = writtenAt(&resp)
		claim.consumed = claimInCommit
	case claimInCommit && (status.Code(err) == codes.FailedPrecondition || status.Code(err) == codes.NotFound):
		err = errClaimLost // deleted or rewritten under the join
	}
	return plan, roomVersion, err
}

// addsEntry tells, from the entry's snapshot alone, whether the join will
// add the user's entry (presence.JoinState.AddsEntry): before the user's
// sessions are read, to choose the snapshot to take beside them. An entry
// that does not decode counts as listed; readJoinState reports it.
func addsEntry(entry *firestore.DocumentSnapshot, req presence.JoinRequest, room *presence.Room) bool {
	if !entry.Exists() {
		return true
	}
	p, err := decodeParticipant(entry, req.RoomID, req.ParticipantID)
	return err == nil && presence.JoinState{Room: room, Participant: p}.AddsEntry()
}
