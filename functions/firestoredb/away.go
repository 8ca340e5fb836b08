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
// departures, which recount the same flag. Siblings whose leases have ended
// are judged as a departure judges them: re-read in the transaction, left
// out of the recount and deleted with it (presence.PlanAway), so that a
// late renewal of one either is read here or finds it gone.
//
// A toggle that would change the roster's away is a chosen change: when
// req.Allowance refuses it, the heartbeat is an ordinary renewal in the
// stored mode (the grant says that mode), and the toggle waits for a later
// heartbeat. It is never refused: that would end a live lease.
//
// A heartbeat whose token (ref.Token) says the session is in the mode asked
// for is fenced without a read, as Renew's is, and asks no allowance; a
// change of mode always takes the read path.
//
// Returns what Heartbeat returns.
func (s *Store) HeartbeatAway(ctx context.Context, req presence.AwayRequest) (presence.Grant, error) {
	ref, away, allowance := req.SessionRef, req.Away, req.Allowance.Once()
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
		renew := func() error { // an ordinary heartbeat, in the stored mode
			var wrote bool
			sess, wrote, err = s.renewIn(tx, now, ref, stored)
			read = unlessWritten(wrote, snaps[0].UpdateTime)
			return err
		}
		if stored == nil || stored.Away == away {
			return renew()
		}
		st, cursor, err := s.readDeparture(ctx, tx, now, ref.SessionKey)
		if err != nil {
			return err
		}
		plan, err := s.settings.PlanAway(now, st, ref, away)
		if err != nil {
			return err
		}
		if plan.ChosenChange && !allowance.Take() {
			return renew() // the toggle waits; nothing the roster shows changes
		}
		sess, read = plan.Session, time.Time{}
		// The event's base is made before the first write: a transaction
		// reads nothing after it writes (a room older than events is read
		// for its lifetime), and the expired siblings' deletion is a write.
		var event *eventBase
		if plan.WriteParticipant {
			if event, err = s.cursorFrom(tx, cursor, ref.RoomID, ref.ParticipantID, time.Time{}); err != nil {
				return err
			}
		}
		if err := s.deleteSessions(tx, ref.SessionKey, plan.ExpiredSiblings); err != nil {
			return err
		}
		if plan.WriteParticipant {
			if err := tx.set(s.participant(ref.RoomID, ref.ParticipantID), changedEntry(plan.Participant)); err != nil {
				return err
			}
			if err := s.countChange(tx, now, entryRevision(plan.Participant), ref.ParticipantID, nil); err != nil {
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
