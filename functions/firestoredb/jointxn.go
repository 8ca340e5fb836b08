package firestoredb

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/steptime"
)

// A join's transaction (step 1 of Join, join.go): what it reads, what it
// decides from, and what it writes.

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
