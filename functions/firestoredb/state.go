package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// SetState replaces the state of req's user in req's room, if req's
// session holds the current generation and a live lease, and returns the
// state as stored with the room's revision read after it.
//
// Its transaction reads the session and the roster entry and writes only
// the entry and the user's revision shard (a visible change): never the
// room, never the session, so a state update neither renews the lease nor
// touches what other users write. An update to the state already stored
// writes nothing. The entry's read serialises it with the user's joins
// and departures, so a state is never written onto an entry that a
// departure has just removed.
//
// Returns EInvalid for a malformed reference, EForbidden if the room's
// policy no longer admits the user (see admit), EStaleGeneration unless
// the session holds the current generation and a live lease.
func (s *Store) SetState(ctx context.Context, req presence.StateRequest) (presence.StateResult, error) {
	if err := req.Validate(); err != nil {
		return presence.StateResult{}, err
	}
	if err := s.admit(ctx, req.RoomID, req.ParticipantID); err != nil {
		return presence.StateResult{}, err
	}
	entryRef := s.participant(req.RoomID, req.ParticipantID)
	var res presence.StateResult
	var src revisionSource // where the reply's revision is read
	err := s.transact(ctx, "state", func(tx *txn, now time.Time) error {
		// With events on, the user's event cursor too, in the same round
		// trip: a state update is nearly always a visible change.
		snaps, cursor, err := s.getAllWithCursor(tx, req.RoomID, req.ParticipantID, s.session(req.SessionKey), entryRef)
		if err != nil {
			return err
		}
		stored, err := decodeSession(snaps[0])
		if err != nil {
			return err
		}
		entry, err := decodeParticipant(snaps[1], req.RoomID, req.ParticipantID)
		if err != nil {
			return err
		}
		src = entryRevisionOf(req.RoomID, entry)
		next, write, err := s.settings.PlanState(now, stored, entry, req)
		if err != nil || !write {
			res.State = next.State
			return err
		}
		res.State = next.State
		event, err := s.cursorFrom(tx, cursor, req.RoomID, req.ParticipantID, time.Time{})
		if err != nil {
			return err
		}
		if err := tx.set(entryRef, changedEntry(next)); err != nil {
			return err
		}
		if err := s.countChange(tx, now, src, req.ParticipantID, nil); err != nil {
			return err
		}
		return s.emit(tx, now, event, entry, &next, "")
	})
	if err != nil {
		return presence.StateResult{}, err
	}
	if res.State == nil {
		res.State = presence.State{}
	}
	if res.Revision, err = s.readRevision(ctx, src, nil); err != nil {
		return presence.StateResult{}, storeError("state: reading the revision", err)
	}
	return res, nil
}
