package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// Join admits req's session into its room, creating the room if needed, and
// issues a new generation with a fresh lease.
//
// Returns EInvalid for malformed ids, EForbidden if the room's policy does
// not list the user, ERoomFull at the participant cap, EUnavailable when
// Firestore is unreachable.
func (s *Store) Join(ctx context.Context, req presence.JoinRequest) (presence.JoinResult, error) {
	if err := req.Validate(); err != nil {
		return presence.JoinResult{}, err
	}
	roomRef := s.room(req.RoomID)
	participantRef := s.participant(req.RoomID, req.ParticipantID)
	sessionRef := s.session(req.SessionKey)
	var res presence.JoinResult
	err := s.transact(ctx, "join", req.RoomID, func(tx *txn, now time.Time) error {
		if s.hooks.beforeJoinReads != nil {
			s.hooks.beforeJoinReads()
		}
		// 1. Read everything the decision depends on in one round trip. The
		// reads lock these documents until commit, so a concurrent leave,
		// heartbeat or teardown of the same room either commits before our
		// reads or waits and then sees our writes.
		snaps, err := tx.getAll(roomRef, participantRef, sessionRef, s.policy(req.RoomID))
		if err != nil {
			return err
		}
		var st presence.JoinState
		if st.Room, err = decodeRoom(snaps[0], req.RoomID); err != nil {
			return err
		}
		if st.Participant, err = decodeParticipant(snaps[1], req.RoomID, req.ParticipantID); err != nil {
			return err
		}
		if st.Session, err = decodeSession(snaps[2]); err != nil {
			return err
		}
		if st.Policy, err = decodePolicy(snaps[3]); err != nil {
			return err
		}

		// 2. Decide.
		plan, err := s.settings.PlanJoin(now, st, req)
		if err != nil {
			return err
		}

		// 3. Write only what changed: a reconnect of a known session touches
		// the session document alone.
		if plan.WriteRoom {
			if err := tx.set(roomRef, roomToRecord(plan.Room)); err != nil {
				return err
			}
		}
		if plan.WriteParticipant {
			if err := tx.set(participantRef, participantToRecord(plan.Participant)); err != nil {
				return err
			}
		}
		res = presence.JoinResult{Session: plan.Session, Revision: plan.Room.Revision}
		return tx.set(sessionRef, sessionToRecord(plan.Session))
	})
	return res, err
}
