package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"golang.org/x/sync/errgroup"

	"github.com/roomlease/roomlease/functions/presence"
)

// ExpiredSessions returns up to limit sessions whose lease ended at or
// before now, oldest deadline first, as the sweeper saw them. The read is
// outside any transaction: each candidate is re-checked when expired.
func (s *Store) ExpiredSessions(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.ExpiryCandidate], error) {
	return listCandidates(ctx, s, "listing expired sessions", s.leaseQuery(now), limit, expiryCandidate)
}

// isSessionPath reports whether a document found by the sessions
// collection-group query is one of ours: it must sit where its own fields
// say, rooms/{roomId}/participants/{uid}/sessions/{sessionId}. Another
// app's "sessions" documents in the same database match the query too.
func isSessionPath(ref *firestore.DocumentRef, sess *presence.Session) bool {
	if sess == nil || ref.Parent == nil || ref.Parent.Parent == nil {
		return false
	}
	entry := ref.Parent.Parent
	room := entry.Parent.Parent
	return ref.ID == sess.ID && entry.ID == sess.ParticipantID && entry.Parent.ID == ParticipantsCollection &&
		room != nil && room.ID == sess.RoomID && room.Parent.ID == RoomsCollection
}

// ExpireSession removes c's session if, inside the transaction, it is still
// the same generation with the same ended lease. A heartbeat that committed
// first (new deadline) or a rejoin (new generation) wins: Conflict, no write.
// Because the expiry and a heartbeat both read the session document, the
// two serialise; there is no half-renewed lease.
func (s *Store) ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error) {
	var res presence.ExpiryResult
	var plan presence.DeparturePlan
	k := presence.SessionKey{RoomID: c.RoomID, ParticipantID: c.ParticipantID, SessionID: c.SessionID}
	err := s.transact(ctx, "expiring a session", func(tx *txn, now time.Time) error {
		st, cursor, err := s.readDeparture(ctx, tx, now, k)
		if err != nil {
			return err
		}
		plan, res.Outcome = s.settings.PlanExpiry(now, st, c)
		if res.Outcome != presence.Done {
			return nil
		}
		return s.applyDeparture(tx, now, k, st.Participant, plan, cursor)
	})
	if err != nil || !plan.DeleteParticipant {
		return res, err
	}
	// As after a leave: the grace counts from the lease's end, not from
	// when the sweeper came.
	_, emptiness, err := s.settleEmptiness(ctx, entryRevision(plan.Participant), plan.DepartedAt)
	res.RoomSuspected = emptiness == presence.BecameEmpty
	return res, err
}

// ExpiredTyping returns up to limit typing signals that expired at or before
// now, oldest first.
func (s *Store) ExpiredTyping(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.TypingCandidate], error) {
	return listCandidates(ctx, s, "listing expired typing", s.typingQuery(now), limit, func(snap *firestore.DocumentSnapshot) (presence.TypingCandidate, bool) {
		t, err := decodeTyping(snap)
		if err != nil || t == nil || t.RoomID == "" || t.ParticipantID != snap.Ref.ID {
			return presence.TypingCandidate{}, false
		}
		return presence.TypingCandidate{RoomID: t.RoomID, ParticipantID: t.ParticipantID, ExpiresAt: t.ExpiresAt}, true
	})
}

// ClearTyping deletes c's signal unless it was renewed since it was seen.
func (s *Store) ClearTyping(ctx context.Context, c presence.TypingCandidate) (presence.Outcome, error) {
	var outcome presence.Outcome
	ref := s.typing(c.RoomID, c.ParticipantID)
	err := s.transact(ctx, "clearing typing", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(ref)
		if err != nil {
			return err
		}
		stored, err := decodeTyping(snaps[0])
		if err != nil {
			return err
		}
		if outcome = presence.TypingExpired(now, stored, c.ExpiresAt); outcome != presence.Done {
			return nil
		}
		return tx.delete(ref)
	})
	return outcome, err
}

// NextDeadline returns the earliest instant at which sweeping has work:
// a lease end, a typing expiry or an empty room's cleanupAfter (with
// unreportedOnly, only of rooms not yet reported by an observing sweeper,
// which would otherwise stay due for ever). It returns the zero time when
// nothing is scheduled. Each part is a one-row query, so its cost does not
// grow with the number of rooms.
func (s *Store) NextDeadline(ctx context.Context, unreportedOnly bool) (time.Time, error) {
	queries := []struct {
		q     firestore.Query
		field string
	}{
		{s.leaseQuery(time.Time{}).Limit(1), FieldLeaseExpiresAt},
		{s.typingQuery(time.Time{}).Limit(1), FieldExpiresAt},
		{s.dueRooms(unreportedOnly).OrderBy(FieldCleanupAfter, firestore.Asc).Limit(1), FieldCleanupAfter},
	}
	// The three at once: the sweeper sleeps on the answer, after every
	// pass, so its latency is a part of every deadline's.
	found := make([]time.Time, len(queries))
	var g errgroup.Group
	for i, q := range queries {
		g.Go(func() error {
			snaps, err := s.queryAll(ctx, q.q) // at most one row
			if len(snaps) > 0 {
				found[i], _ = snaps[0].Data()[q.field].(time.Time)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return time.Time{}, storeError("finding the next deadline", err)
	}
	var next time.Time
	for _, t := range found {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, nil
}
