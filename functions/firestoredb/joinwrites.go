package firestoredb

import (
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// What a join writes once it has decided, staged in its transaction
// (joinOnce, createAndJoin): every write after every read, as Firestore
// wants, and the session last.

// stageEntry stages, in tx, the entry plan writes (it changed, or it is
// new: taking over the user's departure record, which goes), its change
// on the revision, and its event (base from readCursor).
func (s *Store) stageEntry(tx *txn, now time.Time, req presence.JoinRequest, plan presence.JoinPlan, room *presence.Room, before *presence.Participant, left *presence.Departure, base *eventBase) error {
	entry := s.takeOver(plan, room, left)
	if err := tx.set(s.participant(req.RoomID, req.ParticipantID), changedEntry(entry)); err != nil {
		return err
	}
	if plan.AddsEntry && left != nil {
		if err := tx.delete(s.departureRef(req.RoomID, req.ParticipantID)); err != nil {
			return err
		}
	}
	if err := s.countJoin(tx, now, entryRevision(entry), req.ParticipantID, plan.AddsEntry); err != nil {
		return err
	}
	return s.emit(tx, now, base, before, &plan.Participant, "")
}

// stageSession stages, in tx, the user's per-user document when plan
// changes it, and then the session: last, since the update time of the
// last write makes the token (writtenAt).
func (s *Store) stageSession(tx *txn, req presence.JoinRequest, plan presence.JoinPlan) error {
	if plan.UserRooms != nil {
		if err := tx.set(s.userRooms(req.ParticipantID), userRoomsToRecord(*plan.UserRooms)); err != nil {
			return err
		}
	}
	return tx.set(s.session(req.SessionKey), sessionToRecord(plan.Session))
}

// takeOver is the entry plan writes: a new entry (stamped by the plan with
// the room's lifetime) carries the changes of the user's departure record
// of the same lifetime, if any (a record of an earlier lifetime counted in
// a revision that ended with it).
func (s *Store) takeOver(plan presence.JoinPlan, room *presence.Room, left *presence.Departure) presence.Participant {
	p := plan.Participant
	if plan.AddsEntry {
		p.Changes = 0
		if left != nil && left.OpenedAt.Equal(room.CreatedAt) {
			p.Changes = left.Changes
		}
	}
	return p
}

// deleteSessions stages the deletion of the user's sessions named by ids.
func (s *Store) deleteSessions(tx *txn, k presence.SessionKey, ids []string) error {
	for _, id := range ids {
		sibling := presence.SessionKey{RoomID: k.RoomID, ParticipantID: k.ParticipantID, SessionID: id}
		if err := tx.delete(s.session(sibling)); err != nil {
			return err
		}
	}
	return nil
}
