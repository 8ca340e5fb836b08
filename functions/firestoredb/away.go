package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// HeartbeatAway is a heartbeat that also says whether ref's session is away
// (its page hidden, its app backgrounded; see presence/away.go). It returns
// the lease's end and the session's away flag afterwards.
//
// A heartbeat whose flag is the stored one is an ordinary heartbeat (one
// read, and one write when the lease is renewed), judged with the lease and
// interval of its mode. One that changes the flag reads, in the same
// transaction, the user's roster entry and other sessions, as a departure
// does, and writes the session with its new mode and a fresh lease, and
// the entry and the user's revision shard when the roster's away changes
// (every live session of the user away, or no longer): a visible change.
// Reading the entry serialises the change with the user's joins and
// departures, which recount the same flag.
//
// Returns what Heartbeat returns.
func (s *Store) HeartbeatAway(ctx context.Context, ref presence.SessionRef, away bool) (time.Time, bool, error) {
	if err := ref.Validate(); err != nil {
		return time.Time{}, false, err
	}
	if err := s.admit(ctx, ref.RoomID, ref.ParticipantID); err != nil {
		return time.Time{}, false, err
	}
	sessionRef := s.session(ref.SessionKey)
	var deadline time.Time
	var nowAway bool
	err := s.transact(ctx, "heartbeat", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(sessionRef)
		if err != nil {
			return err
		}
		stored, err := decodeSession(snaps[0])
		if err != nil {
			return err
		}
		if stored == nil || stored.Away == away {
			nowAway = away
			deadline, err = s.renewIn(tx, now, ref, stored)
			return err
		}
		st, err := s.readDeparture(ctx, tx, now, ref.SessionKey)
		if err != nil {
			return err
		}
		plan, err := s.settings.PlanAway(now, st, ref, away)
		if err != nil {
			return err
		}
		deadline, nowAway = plan.Session.LeaseExpiresAt, plan.Session.Away
		if plan.WriteParticipant {
			if err := tx.set(s.participant(ref.RoomID, ref.ParticipantID), participantToRecord(plan.Participant)); err != nil {
				return err
			}
			if err := s.countChange(tx, now, ref.RoomID, ref.ParticipantID, nil); err != nil {
				return err
			}
		}
		return tx.update(sessionRef, []firestore.Update{
			{Path: FieldLeaseExpiresAt, Value: plan.Session.LeaseExpiresAt},
			{Path: FieldExpireAt, Value: plan.Session.ExpireAt},
			{Path: FieldAway, Value: plan.Session.Away},
		})
	})
	return deadline, nowAway, err
}
