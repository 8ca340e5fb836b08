package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Roster reads req.RoomID's live roster for the participant req.CallerID.
//
// Everything is read in one read-only transaction, so the revision reported
// is the one the listed entries reflect, and liveness is judged against one
// `now`: entries whose every lease has ended are left out even before the
// sweeper removes them. The caller is checked first, and only what can be
// shown is read:
//
//  1. The room document and the caller's own roster entry, in one lookup.
//  2. The room's live sessions (one query), among which the caller must
//     have one.
//  3. The roster entries of the other users those sessions belong to, by
//     id: an entry without a live session is never shown, so it is never
//     read either.
//  4. The revision shards, summed.
//  5. The room's recent departures (recentlyLeft), one query.
//
// A participant's read therefore costs 2 + L + P reads for L live sessions
// of P live users: bounded by the roster, and by 1 + E + 10 × E + 1 under
// the sessions cap. Anyone who is not a live participant stops at
// step 1 with presence.NotVisible, whether the room is active, empty or
// absent: an outsider learns nothing and costs two reads. Only a former
// participant whose lease ended moments ago, and whose entry awaits the
// sweeper, stops at step 2.
//
// Returns EInvalid for malformed ids and ENotFound (presence.NotVisible)
// unless the caller is a live participant of the room.
func (s *Store) Roster(ctx context.Context, req presence.RosterRequest) (presence.Roster, error) {
	if err := req.Validate(); err != nil {
		return presence.Roster{}, err
	}
	var roster presence.Roster
	err := s.transact(ctx, "roster", func(tx *txn, now time.Time) error {
		room, caller, err := s.readRosterCaller(tx, req)
		if err != nil {
			return err
		}
		// Only sessions whose lease is still running: reads cost what is
		// live, not what awaits the sweeper.
		sessions, err := s.liveSessions(tx, s.roomLeases(req.RoomID).
			Where(FieldLeaseExpiresAt, ">", now))
		if err != nil {
			return err
		}
		if err := presence.CheckReader(now, room, caller, sessions); err != nil {
			return err
		}
		entries, err := s.readLiveEntries(tx, req.RoomID, caller, sessions)
		if err != nil {
			return err
		}
		revision, err := s.readRevision(ctx, roomRevision(*room), tx)
		if err != nil {
			return err
		}
		roster = presence.LiveRoster(now, *room, revision, entries, sessions)
		deps, err := s.recentDepartures(tx, req.RoomID, now)
		if err != nil {
			return err
		}
		roster.RecentlyLeft = s.settings.RecentDepartures(now, deps, roster.Participants)
		return nil
	}, firestore.ReadOnly)
	return roster, err
}

// readRosterCaller makes step 1 of Roster: the room and req.CallerID's
// roster entry, or presence.NotVisible if either is missing.
func (s *Store) readRosterCaller(tx *txn, req presence.RosterRequest) (*presence.Room, *presence.Participant, error) {
	snaps, err := tx.getAll(s.room(req.RoomID), s.participant(req.RoomID, req.CallerID))
	if err != nil {
		return nil, nil, err
	}
	room, err := decodeRoom(snaps[0], req.RoomID)
	if err != nil {
		return nil, nil, err
	}
	entry, err := decodeParticipant(snaps[1], req.RoomID, req.CallerID)
	if err != nil {
		return nil, nil, err
	}
	if room == nil || entry == nil {
		return nil, nil, presence.NotVisible()
	}
	return room, entry, nil
}

// readLiveEntries makes step 3 of Roster: caller's entry, already read, and
// the entries of the other users who hold one of the live sessions.
func (s *Store) readLiveEntries(tx *txn, roomID string, caller *presence.Participant, sessions []presence.Session) ([]presence.Participant, error) {
	others, err := s.entriesOf(tx, roomID, sessions, caller.ID)
	if err != nil {
		return nil, err
	}
	return append([]presence.Participant{*caller}, others...), nil
}

// entriesOf reads the roster entries of the users who hold sessions, once
// each, but skip's (an entry the caller has read already). A session whose
// entry is missing (which no path leaves behind) is skipped: a roster lists
// entries, not sessions.
func (s *Store) entriesOf(tx *txn, roomID string, sessions []presence.Session, skip string) ([]presence.Participant, error) {
	seen := map[string]bool{skip: skip != ""}
	var refs []*firestore.DocumentRef
	for _, sess := range sessions {
		if !seen[sess.ParticipantID] {
			seen[sess.ParticipantID] = true
			refs = append(refs, s.participant(roomID, sess.ParticipantID))
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	snaps, err := tx.getAll(refs...)
	if err != nil {
		return nil, err
	}
	entries := make([]presence.Participant, 0, len(snaps))
	for i, snap := range snaps {
		p, err := decodeParticipant(snap, roomID, refs[i].ID)
		if err != nil {
			return nil, err
		}
		if p != nil {
			entries = append(entries, *p)
		}
	}
	return entries, nil
}

// liveSessions runs a query for sessions in tx and decodes what it finds.
func (s *Store) liveSessions(tx *txn, q firestore.Query) ([]presence.Session, error) {
	snaps, err := tx.query(q)
	if err != nil {
		return nil, err
	}
	sessions := make([]presence.Session, 0, len(snaps))
	for _, snap := range snaps {
		sess, err := decodeSession(snap)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, *sess)
	}
	return sessions, nil
}

// recentDepartures makes step 5 of Roster: the room's departures within
// Settings.RecentlyLeft of now (one query; what it finds is billed).
func (s *Store) recentDepartures(tx *txn, roomID string, now time.Time) ([]presence.Departure, error) {
	if s.settings.RecentlyLeft <= 0 {
		return nil, nil
	}
	snaps, err := tx.query(s.room(roomID).Collection(RecentlyLeftCollection).
		Where(FieldLeftAt, ">", s.settings.RecentlyLeftSince(now)))
	if err != nil {
		return nil, err
	}
	out := make([]presence.Departure, 0, len(snaps))
	for _, snap := range snaps {
		d, err := decodeDeparture(snap)
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}
