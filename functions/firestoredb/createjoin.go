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

// A join that creates its room in its own commit.
//
// A join into a missing room used to take three steps: plan the creation
// from its user's documents, create the room with a conditional write,
// then join it like any room, with a claim on a place and a snapshot of
// the entries, records and claims (claims.go). Most rooms have one person
// in them at first, and for that person the claim and the snapshot were
// the join's dearest part: on the emulator a query reads every collection
// of its name, so each of a thousand rooms created at once paid for all
// the others' entries (BENCHMARKS.md, "What one query reads on the
// emulator").
//
// So the join that leads its instance's crowd into a missing room
// (roomlead.go) creates the room and admits its user in one transaction:
// it reads its user's documents and the policy, decides the per-user caps
// as every join does, and commits the room's creation (only if it is
// still missing: a blind create, not a read of the room) with the entry,
// the session, the per-user document and the event.
//
// Why it needs neither a claim nor a snapshot: the room's lifetime begins
// with that commit, so no entry, record or change of it can come before;
// the size before the join is 0 and the revision 0, and the reply's
// revision is 1. A claim exists so that every join adding an entry is
// counted by the snapshots that judge the others (claims.go); every other
// join of this lifetime reads the room in its transaction before it
// claims, so it reads it after this commit, and its snapshot, begun later
// still, counts this entry.
//
// Why the room is not read: a crowd that reads a missing room in its
// transactions queues on it (roomlook.go). The create is a write the
// commit makes only if the room is still absent; when another join
// created it first the commit fails whole, writing nothing, and this join
// goes on like any other, into the room the other made.
//
// A crowd: when joins of this instance wait for the lead, other instances
// are likely creating the room too, and all but one of those creates will
// lose. A losing create is a write of the room, which must wait for every
// transaction that reads it, and once the room exists that is every join
// of the crowd: in the fleet's crowd of 1 000 the losing leaders and their
// followers waited 7 s (BENCHMARKS.md, "Big rooms"). So a leader with
// followers looks at the room once more, outside the transaction, just
// before its create, and when the room is there it writes nothing and
// joins it like its followers (the step the old batch creation took the
// same care over). The look only narrows the window; the create stays
// conditional. A lone join, the room of one, pays no read for it. Any
// leader first asks its instance's memory (roomlook.go): another of its
// joins may have seen the room active since its look, for free.
//
// A user already listed in the missing room (an entry that outlived its
// room's document) takes the way of the step and the join, as before:
// that join counts the user's sessions, which a new entry would not.

// createdJoin is a join that committed with its room's creation.
type createdJoin struct {
	plan    presence.JoinPlan
	written time.Time // the session's update time
	src     revisionSource
}

// createOutcome is how createAndJoin ended, when it did not fail.
type createOutcome int

const (
	joinedCreating    createOutcome = iota // the room and the join committed together
	roomMadeMeanwhile                      // another request created the room first: nothing written
	userListed                             // the user has an entry: the step and the join apart
)

// roomThere reads roomID outside any transaction, and reports whether it
// exists (false on a failed read: the create is conditional anyway). A
// read of its own, not the instance's shared look (lookAtRoom): a look
// already in flight may have begun before the other's create.
func (s *Store) roomThere(ctx context.Context, roomID string) bool {
	room, _, err := s.readRoom(ctx, roomID)
	return err == nil && room != nil
}

// readCreatingState reads, in tx and in one round trip, what a join
// into a missing room decides on: the user's entry (listed: there is one,
// and nothing else is read), the policy, the session, the per-user
// document and the departure record, which it returns.
//
// With events on it reads the user's event cursor in the same round trip
// and returns it for cursorFrom (nil when events are off): a creating join
// that is not refused always adds the user's entry.
func (s *Store) readCreatingState(tx *txn, req presence.JoinRequest) (st presence.JoinState, left *presence.Departure, cursor *firestore.DocumentSnapshot, listed bool, err error) {
	snaps, cursor, err := s.getAllWithCursor(tx, req.RoomID, req.ParticipantID, s.participant(req.RoomID, req.ParticipantID),
		s.policy(req.RoomID), s.session(req.SessionKey), s.userRooms(req.ParticipantID), s.departureRef(req.RoomID, req.ParticipantID))
	if err != nil || snaps[0].Exists() {
		return st, nil, nil, err == nil, err
	}
	if st.Policy, err = decodePolicy(snaps[1]); err != nil {
		return st, nil, nil, false, err
	}
	own, err := decodeSession(snaps[2])
	if err != nil {
		return st, nil, nil, false, err
	}
	if own != nil {
		st.Sessions = []presence.Session{*own}
	}
	left, err = s.readNewUserDocs(tx, req, &st, snaps[3:])
	return st, left, cursor, false, err
}

// createAndJoin admits req into the room looked at and found missing,
// creating it in the same commit (see above); crowded says whether joins
// wait for this one. A refusal (the per-user caps, the policy) is
// returned as the error, with nothing written.
func (s *Store) createAndJoin(ctx context.Context, req presence.JoinRequest, crowded func() bool) (createdJoin, createOutcome, error) {
	var out createdJoin
	outcome := joinedCreating
	var resp firestore.CommitResponse
	err := s.transact(ctx, "join: creating the room", func(tx *txn, now time.Time) error {
		// The room's createdAt names its lifetime in what this commit
		// writes besides the room (the entry, the event); Firestore keeps
		// times to the microsecond, rounded down, and every later request
		// reads the lifetime back so.
		now = now.Truncate(time.Microsecond)
		s.pause(hookBeforeJoinReads)
		outcome = joinedCreating
		st, left, cursor, listed, err := s.readCreatingState(tx, req)
		if err != nil {
			return err
		}
		if listed {
			outcome = userListed
			return nil
		}
		// The room's step first, as for any join into a missing room: the
		// caps refuse here, before the room exists.
		step, err := s.planJoin(now, st, req)
		if err != nil {
			return err
		}
		if step.RoomStep != presence.CreateRoom {
			return fmt.Errorf("join: a missing room planned as %v, not its creation", step.RoomStep)
		}
		room := step.Room
		st.Room = &room // empty: its lifetime begins with this commit
		if out.plan, err = s.planJoin(now, st, req); err != nil {
			return err
		}
		if out.plan.RoomStep != presence.NoRoomStep || !out.plan.AddsEntry {
			return fmt.Errorf("join: the created room's first join planned no entry")
		}
		event, err := s.cursorFrom(tx, cursor, req.RoomID, req.ParticipantID, room.CreatedAt)
		if err != nil {
			return err
		}
		s.pause(hookBeforeRoomStep)
		if s.seenActive(req.RoomID) || crowded() && s.roomThere(ctx, req.RoomID) {
			outcome = roomMadeMeanwhile
			return nil // nothing staged: an empty commit
		}
		s.pause(hookCreates)
		if err := tx.create(s.room(room.ID), roomToRecord(room)); err != nil {
			return err
		}
		if err := s.stageEntry(tx, now, req, out.plan, &room, nil, left, event); err != nil {
			return err
		}
		if err := s.deleteSessions(tx, req.SessionKey, out.plan.ExpiredSiblings); err != nil {
			return err
		}
		out.src = roomRevision(room)
		return s.stageSession(tx, req, out.plan)
	}, firestore.WithCommitResponseTo(&resp))
	switch {
	case err == nil && outcome == joinedCreating:
		out.written = writtenAt(&resp)
	case err == nil && outcome == roomMadeMeanwhile:
		return out, roomMadeMeanwhile, nil
	case status.Code(err) == codes.AlreadyExists || status.Code(err) == codes.FailedPrecondition:
		return out, roomMadeMeanwhile, nil
	}
	return out, outcome, err
}
