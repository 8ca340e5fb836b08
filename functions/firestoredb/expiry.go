package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// ExpiredSessions returns up to limit sessions whose lease ended at or
// before now, oldest deadline first, as the sweeper saw them. The read is
// outside any transaction: each candidate is re-checked when expired.
func (s *Store) ExpiredSessions(ctx context.Context, now time.Time, limit int) ([]presence.ExpiryCandidate, error) {
	q := s.client.CollectionGroup(SessionsCollection).
		Where(FieldLeaseExpiresAt, "<=", now).
		OrderBy(FieldLeaseExpiresAt, firestore.Asc).Limit(limit)
	snaps, err := q.Documents(ctx).GetAll()
	s.ops.read(len(snaps))
	if err != nil {
		return nil, storeError("listing expired sessions", err)
	}
	out := make([]presence.ExpiryCandidate, 0, len(snaps))
	for _, snap := range snaps {
		sess, err := decodeSession(snap)
		if err != nil {
			return nil, storeError("listing expired sessions", err)
		}
		out = append(out, presence.ExpiryCandidate{RoomID: sess.RoomID, ParticipantID: sess.ParticipantID,
			SessionID: sess.ID, Generation: sess.Generation, LeaseExpiresAt: sess.LeaseExpiresAt})
	}
	return out, nil
}

// ExpiryResult is what expiring one session did.
type ExpiryResult struct {
	Outcome       presence.Outcome
	RoomSuspected bool // the roster became empty
}

// ExpireSession removes c's session if, inside the transaction, it is still
// the same generation with the same ended lease. A heartbeat that committed
// first (new deadline) or a rejoin (new generation) wins: Conflict, no write.
// Because the expiry and a heartbeat both read the session document, the
// two serialise; there is no half-renewed lease.
func (s *Store) ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (ExpiryResult, error) {
	var res ExpiryResult
	err := s.inRoomTurn(ctx, c.RoomID, func() error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			now := s.now()
			st, err := s.readDeparture(tx, c.RoomID, c.ParticipantID, c.SessionID)
			if err != nil {
				return err
			}
			plan, outcome := s.settings.PlanExpiry(now, st, c)
			res = ExpiryResult{Outcome: outcome, RoomSuspected: plan.RoomSuspected}
			if outcome != presence.Done {
				return nil
			}
			return s.applyDeparture(tx, c.RoomID, c.ParticipantID, c.SessionID, plan)
		}, firestore.MaxAttempts(maxAttempts))
	})
	return res, storeError("expiring a session", err)
}

// TypingCandidate is a typing signal the sweeper saw expired.
type TypingCandidate struct {
	RoomID        string
	ParticipantID string
	ExpiresAt     time.Time
}

// ExpiredTyping returns up to limit typing signals that expired at or before
// now, oldest first.
func (s *Store) ExpiredTyping(ctx context.Context, now time.Time, limit int) ([]TypingCandidate, error) {
	q := s.client.CollectionGroup(TypingCollection).
		Where(FieldExpiresAt, "<=", now).
		OrderBy(FieldExpiresAt, firestore.Asc).Limit(limit)
	snaps, err := q.Documents(ctx).GetAll()
	s.ops.read(len(snaps))
	if err != nil {
		return nil, storeError("listing expired typing", err)
	}
	out := make([]TypingCandidate, 0, len(snaps))
	for _, snap := range snaps {
		rec, err := decode[typingRecord](snap)
		if err != nil {
			return nil, storeError("listing expired typing", err)
		}
		out = append(out, TypingCandidate{RoomID: rec.RoomID, ParticipantID: rec.ParticipantID, ExpiresAt: rec.ExpiresAt})
	}
	return out, nil
}

// ClearTyping deletes c's signal unless it was renewed since it was seen.
func (s *Store) ClearTyping(ctx context.Context, c TypingCandidate) (presence.Outcome, error) {
	var outcome presence.Outcome
	ref := s.typing(c.RoomID, c.ParticipantID)
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		now := s.now()
		snaps, err := s.getAll(tx, ref)
		if err != nil {
			return err
		}
		var stored *presence.Typing
		if rec, err := decode[typingRecord](snaps[0]); err != nil {
			return err
		} else if rec != nil {
			stored = &presence.Typing{RoomID: rec.RoomID, ParticipantID: rec.ParticipantID, ExpiresAt: rec.ExpiresAt}
		}
		if outcome = presence.TypingExpired(now, stored, c.ExpiresAt); outcome != presence.Done {
			return nil
		}
		s.ops.write(1)
		return tx.Delete(ref)
	}, firestore.MaxAttempts(maxAttempts))
	return outcome, storeError("clearing typing", err)
}

// NextDeadline returns the earliest instant at which sweeping has work:
// a lease end, a typing expiry or an empty room's cleanupAfter. It returns
// the zero time when nothing is scheduled. Each part is a one-row query, so
// its cost does not grow with the number of rooms.
func (s *Store) NextDeadline(ctx context.Context) (time.Time, error) {
	queries := []struct {
		q     firestore.Query
		field string
	}{
		{s.client.CollectionGroup(SessionsCollection).OrderBy(FieldLeaseExpiresAt, firestore.Asc).Limit(1), FieldLeaseExpiresAt},
		{s.client.CollectionGroup(TypingCollection).OrderBy(FieldExpiresAt, firestore.Asc).Limit(1), FieldExpiresAt},
		{s.client.Collection(RoomsCollection).Where(FieldState, "==", string(presence.StateSuspectedEmpty)).
			OrderBy(FieldCleanupAfter, firestore.Asc).Limit(1), FieldCleanupAfter},
	}
	var next time.Time
	for _, q := range queries {
		snaps, err := q.q.Documents(ctx).GetAll()
		s.ops.read(len(snaps))
		if err != nil {
			return time.Time{}, storeError("finding the next deadline", err)
		}
		for _, snap := range snaps {
			if t, ok := snap.Data()[q.field].(time.Time); ok && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	return next, nil
}
