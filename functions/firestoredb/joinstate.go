package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// What a join's transaction reads of its user: the entry, the sessions
// and, for a new entry, the per-user document and the departure record.

// readJoinState decodes what the join's transaction read (snaps: the room,
// taken as room, its entry, policy and session) and, for a user already
// listed, the user's sessions.
func (s *Store) readJoinState(ctx context.Context, tx *txn, now time.Time, req presence.JoinRequest, snaps []*firestore.DocumentSnapshot, room *presence.Room) (presence.JoinState, error) {
	st := presence.JoinState{Room: room}
	var err error
	if st.Participant, err = decodeParticipant(snaps[1], req.RoomID, req.ParticipantID); err != nil {
		return st, err
	}
	if st.Policy, err = decodePolicy(snaps[2]); err != nil {
		return st, err
	}
	own, err := decodeSession(snaps[3])
	if err != nil {
		return st, err
	}
	if st.Participant == nil {
		// Not listed: none of the user's other sessions can count (an
		// entry goes only when the last live one does), so only this
		// session's generation matters.
		if own != nil {
			st.Sessions = []presence.Session{*own}
		}
		return st, nil
	}
	st.Sessions, err = s.sessionsUnder(ctx, tx, now, req.SessionKey, st.Participant, own)
	return st, err
}

// readNewUserDocs reads, in one round trip, the two documents of the user
// that a join adding a roster entry decides on, unless the join's first
// round trip read them already (read, in this order; firstreads.go), and
// returns the departure record:
//   - the user's per-user document, for the rooms cap: locked by this read,
//     so that two such joins of one user (each writes it) take turns. When
//     the rooms it lists reach the cap, the user's entries in those rooms are
//     read too (one read per listed room): departures never write the
//     document, so only these reads tell which of its rooms the user has
//     since left;
//   - the user's departure record, whose changes the new entry takes over
//     (revision.go): locked by this read, so that the sweeper's fold of it
//     (fold.go) and this join take turns.
func (s *Store) readNewUserDocs(tx *txn, req presence.JoinRequest, st *presence.JoinState, read []*firestore.DocumentSnapshot) (*presence.Departure, error) {
	snaps := read
	if len(snaps) == 0 {
		var err error
		if snaps, err = tx.getAll(s.userRooms(req.ParticipantID), s.departureRef(req.RoomID, req.ParticipantID)); err != nil {
			return nil, err
		}
	}
	var err error
	if st.UserRooms, err = decodeUserRooms(snaps[0]); err != nil {
		return nil, err
	}
	left, err := decodeDeparture(snaps[1])
	if err != nil {
		return nil, err
	}
	return left, s.checkUserRooms(req, st, tx.getAll)
}

// checkUserRooms reads, when the rooms st.UserRooms lists reach the cap,
// the user's entries in those rooms with read (in a transaction or not),
// and records which are still there in st.CheckedRooms.
func (s *Store) checkUserRooms(req presence.JoinRequest, st *presence.JoinState, read func(...*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error)) error {
	check := s.settings.RoomsToCheck(st.UserRooms, req.RoomID)
	if len(check) == 0 {
		return nil
	}
	refs := make([]*firestore.DocumentRef, len(check))
	for i, roomID := range check {
		refs[i] = s.participant(roomID, req.ParticipantID)
	}
	snaps, err := read(refs...)
	if err != nil {
		return err
	}
	st.CheckedRooms = make(map[string]bool, len(check))
	for i, roomID := range check {
		st.CheckedRooms[roomID] = snaps[i].Exists()
	}
	return nil
}

// sessionsUnder returns the user's sessions that a decision about entry
// (nil: the user is not listed) and own, the session k names as read in
// the transaction (nil: absent), depends on. When own is all there is to
// know, nothing is listed: without an entry (a departure then deletes
// only own), or when presence.SoleSession proves own the only session the
// entry counts. Otherwise they are listed (userSessions).
func (s *Store) sessionsUnder(ctx context.Context, tx *txn, now time.Time, k presence.SessionKey, entry *presence.Participant, own *presence.Session) ([]presence.Session, error) {
	if own != nil && (entry == nil || presence.SoleSession(entry, own)) {
		return []presence.Session{*own}, nil
	}
	return s.userSessions(ctx, tx, now, k, own)
}

// userSessions returns all of one user's session documents in a room: a
// handful (one per tab or device), the truth the roster entry's session
// count is recounted from. The session k names was read in the transaction
// (own, nil when absent); the others are listed outside it, and those whose
// lease has ended at now are read again inside it.
//
// Why not list them in the transaction: the emulator locks a whole range
// for a transactional query, so every join of a crowd would wait for every
// other. What the listing may miss:
//   - a session added, removed or superseded so that the count changes: that
//     change also writes the roster entry, which this transaction has read,
//     so the two serialise and the later one lists again;
//   - a renewal, which writes only its session: harmless for a session the
//     listing found live (it stays live), but a session judged ended must
//     be read here, in the transaction. The caller's plan then deletes it
//     (presence.ExpiredSiblings), so that a renewal either commits before
//     this read and is counted, or comes after and finds it gone.
func (s *Store) userSessions(ctx context.Context, tx *txn, now time.Time, k presence.SessionKey, own *presence.Session) ([]presence.Session, error) {
	snaps, err := s.queryAll(ctx, s.participant(k.RoomID, k.ParticipantID).Collection(SessionsCollection).Query)
	if err != nil {
		return nil, err
	}
	s.pause(hookAfterSiblingListing)
	out := make([]presence.Session, 0, len(snaps)+1)
	var ended []*firestore.DocumentRef
	for _, snap := range snaps {
		if snap.Ref.ID == k.SessionID {
			continue // the transaction's read is the one that counts
		}
		sess, err := decodeSession(snap)
		if err != nil {
			return nil, err
		}
		if sess.Live(now) {
			out = append(out, *sess)
		} else {
			ended = append(ended, snap.Ref)
		}
	}
	if len(ended) > 0 {
		again, err := tx.getAll(ended...)
		if err != nil {
			return nil, err
		}
		for _, snap := range again {
			sess, err := decodeSession(snap)
			if err != nil {
				return nil, err
			}
			if sess != nil {
				out = append(out, *sess)
			}
		}
	}
	if own != nil {
		out = append(out, *own)
	}
	return out, nil
}
