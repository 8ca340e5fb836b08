package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// HeartbeatAway is a heartbeat that also says whether ref's session is away
// (its page hidden, its app backgrounded; see presence/away.go). It returns
// the grant: the lease's end, the session's away flag afterwards, when to
// renew, and a token.
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
// A heartbeat whose token (ref.Token) says the session is in the mode asked
// for is fenced without a read, as Renew's is; a change of mode always
// takes the read path.
//
// Returns what Heartbeat returns.
func (s *Store) HeartbeatAway(ctx context.Context, ref presence.SessionRef, away bool) (presence.Grant, error) {
	if err := ref.Validate(); err != nil {
		return presence.Grant{}, err
	}
	if err := s.admit(ctx, ref.RoomID, ref.ParticipantID); err != nil {
		return presence.Grant{}, err
	}
	if g, ok, err := s.renewFenced(ctx, ref, &away); ok || err != nil {
		return g, err
	}
	sessionRef := s.session(ref.SessionKey)
	var sess presence.Session
	var read time.Time
	var resp firestore.CommitResponse
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
			var wrote bool
			sess, wrote, err = s.renewIn(tx, now, ref, stored)
			read = unlessWritten(wrote, snaps[0].UpdateTime)
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
		sess, read = plan.Session, time.Time{}
		if plan.WriteParticipant {
			event, err := s.readCursor(tx, ref.RoomID, ref.ParticipantID, time.Time{})
			if err != nil {
				return err
			}
			if err := tx.set(s.participant(ref.RoomID, ref.ParticipantID), participantToRecord(plan.Participant)); err != nil {
				return err
			}
			if err := s.countChange(tx, now, ref.RoomID, ref.ParticipantID, nil); err != nil {
				return err
			}
			if err := s.emit(tx, now, event, st.Participant, &plan.Participant, ""); err != nil {
				return err
			}
		}
		// The session last: its update time makes the token (writtenAt).
		return tx.update(sessionRef, append(renewalUpdates(plan.Session),
			firestore.Update{Path: FieldAway, Value: plan.Session.Away}))
	}, firestore.WithCommitResponseTo(&resp))
	if err != nil {
		return presence.Grant{}, err
	}
	return s.grant(sess, orWritten(read, &resp)), nil
}
