package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// A crowd arriving at a room that does not exist yet.
//
// Every join reads the room in its transaction (join.go), a lock that the
// room's creation must wait for. In a crowd that finds the room missing,
// all those readers, and all the creations they then attempt (one wins,
// the others can only lose), queue on that one document; on the emulator a
// crowd of 1 000 creating one room took minutes where the same crowd
// joining it once it existed took seconds (BenchmarkCrowd, one-new-room
// against one-room). So a join whose instance has not seen the room active
// lately looks at it first, outside any transaction (no lock), and when it
// is missing, the first of the instance's joins to find it so creates it
// in its own join's commit (createjoin.go, led as roomlead.go says); when
// it is in its grace (or that join's user is still listed in it):
//   - the join plans its step from one read of the user's documents,
//     outside any transaction too (planFromLook): it only decides the
//     per-user caps (a refused join must not even create the room) and
//     writes nothing, which is all it may do with a room that is not active
//     (presence.Settings plans nothing but the lifecycle step for such a
//     room). Nothing it read is relied on afterwards: the step is a
//     conditional write (create only if absent, revive only at the version
//     looked at), and the join that follows reads the room and the user's
//     documents in its transaction and decides again, as always. A
//     transaction here would hold its locks only until its empty commit,
//     before the step, so it would promise nothing more, and it cost every
//     join of a crowd two more round trips and a queue on the user's locks;
//   - the lifecycle step is one atomic batch written once, without a
//     transaction (stepRoom): a batch that loses to another join's step
//     fails at once, where a transaction's commit would wait.
// Looks of one room by one instance at once share one read (memo.Once),
// and an instance that has seen the room active within activeRoomMemo
// goes straight to the transaction: the look costs a read only where a
// room is new or coming back. None of this is what makes a join right:
// with the memo wrong or empty, the transaction reads the room as before.

// activeRoomMemo is how long an instance trusts that a room it saw active
// is still there, for the look only (see above).
const activeRoomMemo = 10 * time.Second

// maxLookedRooms bounds the per-instance memory of rooms seen active.
const maxLookedRooms = 10000

// roomLook is a room as read outside any transaction, with its version.
type roomLook struct {
	room    *presence.Room // nil: missing
	version time.Time
}

// lookBeforeJoin returns the room as it stands, when this instance has not
// seen it active lately and it is missing or not active; nil when the
// join's transaction should read it (the usual case).
func (s *Store) lookBeforeJoin(ctx context.Context, roomID string) (*roomLook, error) {
	if s.seenActive(roomID) {
		return nil, nil
	}
	look, err := s.lookAtRoom(ctx, roomID)
	if err != nil || look.room != nil && look.room.State == presence.StateActive {
		return nil, err
	}
	return &look, nil
}

// lookAtRoom reads the room outside any transaction, sharing the read with
// this instance's concurrent looks at the same room, and remembers it when
// active.
func (s *Store) lookAtRoom(ctx context.Context, roomID string) (roomLook, error) {
	look, err := s.roomLooks.Once(roomID, func() (roomLook, error) {
		readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadTimeout)
		defer cancel()
		room, version, err := s.readRoom(readCtx, roomID)
		return roomLook{room, version}, err
	})
	if err == nil && look.room != nil && look.room.State == presence.StateActive {
		s.sawActive(roomID)
	}
	return look, err
}

// seenActive reports whether this instance saw roomID active within
// activeRoomMemo.
func (s *Store) seenActive(roomID string) bool {
	at, ok := s.activeRooms.Get(roomID)
	return ok && s.now().Sub(at) < activeRoomMemo
}

// sawActive notes that this instance saw roomID active, now.
func (s *Store) sawActive(roomID string) {
	s.activeRooms.Put(roomID, s.now())
}

// forgetActive makes this instance look at roomID again before its next
// join: the room was found, or made, not active (a join that found it so,
// a departure that emptied it). Joins already past their look still read
// it in their transactions, as any join whose instance's memo is wrong.
func (s *Store) forgetActive(roomID string) {
	s.activeRooms.Put(roomID, time.Time{})
}

// planFromLook plans a join into a room looked at (missing or not active),
// from one read of the user's documents outside any transaction (see
// above): the lifecycle step to make, or the refusal at a per-user cap. A
// refusal is true of the moment of that read, and writes nothing. It
// returns ok false for a user already listed in the room, whose sessions
// must be read in a transaction (readJoinState): joinOnce plans that rare
// case instead.
func (s *Store) planFromLook(ctx context.Context, req presence.JoinRequest, look *roomLook) (plan presence.JoinPlan, ok bool, err error) {
	snaps, err := s.getAll(ctx, s.participant(req.RoomID, req.ParticipantID), s.policy(req.RoomID), s.session(req.SessionKey),
		s.userRooms(req.ParticipantID))
	if err != nil {
		return plan, false, storeError("join: reading the user's documents", err)
	}
	if snaps[0].Exists() {
		return plan, false, nil
	}
	st, err := newUserState(look.room, snaps[1], snaps[2], snaps[3])
	if err != nil {
		return plan, false, err
	}
	read := func(refs ...*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error) {
		return s.getAll(ctx, refs...)
	}
	if err := s.checkUserRooms(req, &st, read); err != nil {
		return plan, false, storeError("join: reading the user's rooms", err)
	}
	plan, err = s.planJoin(s.now(), st, req)
	return plan, err == nil, err
}

// newUserState is what a join of a user not listed in room is planned
// from, decoded from the policy, the session and the per-user document as
// read outside any transaction (by a look, or before a claim:
// claimfirst.go); the rooms the per-user document lists are not checked.
func newUserState(room *presence.Room, policy, session, userRooms *firestore.DocumentSnapshot) (presence.JoinState, error) {
	st := presence.JoinState{Room: room}
	var err error
	if st.Policy, err = decodePolicy(policy); err != nil {
		return st, err
	}
	own, err := decodeSession(session)
	if err != nil {
		return st, err
	}
	if own != nil {
		st.Sessions = []presence.Session{*own}
	}
	st.UserRooms, err = decodeUserRooms(userRooms)
	return st, err
}
