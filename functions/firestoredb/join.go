package firestoredb

import (
	"context"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// JoinResult is what a successful join tells the client.
type JoinResult struct {
	Session  presence.Session
	Revision int64 // the room's revision after the join
}

// Join admits req.ParticipantID's session into req.RoomID, creating the room
// if needed, and issues a new generation with a fresh lease.
//
// Returns EInvalid for malformed ids, EForbidden if the room's policy does
// not list the user, ERoomFull at the participant cap, EUnavailable when
// Firestore is unreachable.
func (s *Store) Join(ctx context.Context, req presence.JoinRequest) (JoinResult, error) {
	if err := req.Validate(); err != nil {
		return JoinResult{}, err
	}
	roomRef := s.room(req.RoomID)
	participantRef := s.participant(req.RoomID, req.ParticipantID)
	sessionRef := s.session(req.RoomID, req.ParticipantID, req.SessionID)
	var res JoinResult
	err := s.inRoomTurn(ctx, req.RoomID, func() error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			now := s.now()
			if s.hooks.beforeJoinReads != nil {
				s.hooks.beforeJoinReads()
			}
			// 1. Read everything the decision depends on in one round trip. The
			// reads lock these documents until commit, so a concurrent leave,
			// heartbeat or teardown of the same room either commits before our
			// reads or waits and then sees our writes.
			snaps, err := s.getAll(tx, roomRef, participantRef, sessionRef, s.policy(req.RoomID))
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
				if err := tx.Set(roomRef, roomToRecord(plan.Room)); err != nil {
					return err
				}
				s.ops.write(1)
			}
			if plan.WriteParticipant {
				if err := tx.Set(participantRef, participantToRecord(plan.Participant)); err != nil {
					return err
				}
				s.ops.write(1)
			}
			if err := tx.Set(sessionRef, sessionToRecord(plan.Session)); err != nil {
				return err
			}
			s.ops.write(1)
			res = JoinResult{Session: plan.Session, Revision: plan.Room.Revision}
			return nil
		}, firestore.MaxAttempts(maxAttempts))
	})
	return res, storeError("join", err)
}

func decodeRoom(snap *firestore.DocumentSnapshot, id string) (*presence.Room, error) {
	rec, err := decode[roomRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	r := rec.room(id)
	return &r, nil
}

func decodeParticipant(snap *firestore.DocumentSnapshot, roomID, uid string) (*presence.Participant, error) {
	rec, err := decode[participantRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	p := rec.participant(roomID, uid)
	return &p, nil
}

func decodeSession(snap *firestore.DocumentSnapshot) (*presence.Session, error) {
	rec, err := decode[sessionRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	sess := rec.session()
	return &sess, nil
}

func decodePolicy(snap *firestore.DocumentSnapshot) (*presence.Policy, error) {
	rec, err := decode[policyRecord](snap)
	if rec == nil || err != nil {
		return nil, err
	}
	return &presence.Policy{AllowedUsers: rec.AllowedUsers, MaxParticipants: int(rec.MaxParticipants)}, nil
}
