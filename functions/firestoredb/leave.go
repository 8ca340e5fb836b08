package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/steptime"
)

// Leave ends ref's session if its generation is still the stored one, and
// reports whether it removed anything. A leave for another generation, or
// for a session already gone, removes nothing and writes nothing: the leave
// of an old connection can never end the lease of a newer one.
//
// When the user's last live session goes, the roster entry goes with it.
// The leave's transaction never touches the room document; after it
// commits, a leave that removed an entry checks whether the roster is now
// empty (see settleEmptiness), and if so the room enters its grace.
//
// Returns EInvalid for a malformed reference.
func (s *Store) Leave(ctx context.Context, ref presence.SessionRef) (presence.LeaveResult, error) {
	if err := ref.Validate(); err != nil {
		return presence.LeaveResult{}, err
	}
	var plan presence.DeparturePlan
	began := time.Now()
	attempt := newAttemptTimer(stepLeaveBegin)
	err := s.transact(ctx, "leave", func(tx *txn, now time.Time) error {
		attempt.begin(ctx, stepLeaveRetried)
		st, cursor, err := s.readDeparture(ctx, tx, now, ref.SessionKey)
		steptime.Since(ctx, stepLeaveRead, attempt.began)
		if err != nil {
			return err
		}
		plan = s.settings.PlanLeave(now, st, ref)
		defer attempt.stage()
		return s.applyDeparture(tx, now, ref.SessionKey, st.Participant, plan, cursor)
	})
	attempt.done(ctx, stepLeaveCommit)
	steptime.Since(ctx, stepLeaveTxn, began)
	if err != nil {
		return presence.LeaveResult{}, err
	}
	res := presence.LeaveResult{Removed: plan.Removed}
	if plan.DeleteParticipant {
		// The leave has committed: a failure here must not turn it into an
		// error. The sweeper re-checks rooms whose entries were removed
		// (FieldMayBeEmptyAt), so a room left active and empty is found,
		// but up to a sweep run later. So the check outlives a caller that
		// hangs up now (a closing tab, a client timeout): only a dying
		// instance leaves it to the sweeper.
		s.sawGone(ref.RoomID, ref.ParticipantID) // not a witness of its own room now
		settleCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		defer cancel()
		began = time.Now()
		room, _, err := s.settleEmptiness(settleCtx, entryRevision(plan.Participant), plan.DepartedAt)
		steptime.Since(ctx, stepLeaveSettle, began)
		if err == nil && room != nil {
			res.CleanupAfter = room.CleanupAfter
		}
	}
	return res, nil
}

// readDeparture reads what removing one session at now depends on: in tx,
// the user's roster entry and the session; the user's other sessions, when
// the entry does not prove there are none (sessionsUnder), beside it, those
// judged ended again in tx (see userSessions). With events on, it reads
// the user's event cursor in the same round trip and returns it for
// cursorFrom (nil when events are off): a departure that gets this far
// is nearly always a visible change.
func (s *Store) readDeparture(ctx context.Context, tx *txn, now time.Time, k presence.SessionKey) (presence.DepartureState, *firestore.DocumentSnapshot, error) {
	var st presence.DepartureState
	snaps, cursor, err := s.getAllWithCursor(tx, k.RoomID, k.ParticipantID, s.participant(k.RoomID, k.ParticipantID), s.session(k))
	if err != nil {
		return st, nil, err
	}
	s.pause(hookAfterDepartureReads)
	if st.Participant, err = decodeParticipant(snaps[0], k.RoomID, k.ParticipantID); err != nil {
		return st, nil, err
	}
	if st.Session, err = decodeSession(snaps[1]); err != nil || st.Session == nil {
		// Gone (a repeated leave, an expiry already done): every
		// departure plan is then a no-op that looks at no sibling.
		return st, cursor, err
	}
	st.Sessions, err = s.sessionsUnder(ctx, tx, now, k, st.Participant, st.Session)
	return st, cursor, err
}

// applyDeparture writes a departure plan inside tx, for the user's entry
// as read (entry). A plan that removes nothing writes nothing.
func (s *Store) applyDeparture(tx *txn, now time.Time, k presence.SessionKey, entry *presence.Participant, plan presence.DeparturePlan, cursor *firestore.DocumentSnapshot) error {
	if !plan.Removed {
		return nil
	}
	var event *eventBase // the last read (a room older than events): the writes follow
	if plan.VisibleChange() {
		var err error
		if event, err = s.cursorFrom(tx, cursor, k.RoomID, k.ParticipantID, time.Time{}); err != nil {
			return err
		}
	}
	if err := tx.delete(s.session(k)); err != nil {
		return err
	}
	if err := s.deleteSessions(tx, k, plan.ExpiredSiblings); err != nil {
		return err
	}
	var entryRemoved *time.Time
	after := &plan.Participant
	switch {
	case plan.DeleteParticipant:
		if err := tx.delete(s.participant(k.RoomID, k.ParticipantID)); err != nil {
			return err
		}
		if err := s.recordDeparture(tx, plan); err != nil {
			return err
		}
		entryRemoved, after = &plan.DepartedAt, nil
	case plan.WriteParticipant:
		if err := tx.set(s.participant(k.RoomID, k.ParticipantID), changedEntry(plan.Participant)); err != nil {
			return err
		}
	}
	if !plan.VisibleChange() {
		return nil
	}
	if err := s.countChange(tx, now, entryRevision(plan.Participant), k.ParticipantID, entryRemoved); err != nil {
		return err
	}
	return s.emit(tx, now, event, entry, after, plan.Reason)
}

// recordDeparture stages, with the removal of plan's roster entry, the
// record that shows the user among the room's recent departures and takes
// over the entry's changes (see presence.Departure): written even when
// RecentlyLeft is 0, when it shows nobody, for the changes. No record of
// the user exists while their entry does (a join that adds the entry
// deletes it), so the write replaces nothing.
func (s *Store) recordDeparture(tx *txn, plan presence.DeparturePlan) error {
	d := s.settings.DepartureOf(plan)
	return tx.set(s.departureRef(d.RoomID, d.ParticipantID), departureToRecord(d))
}
