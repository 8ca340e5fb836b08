package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// RosterPage reads one page of req.RoomID's roster entries, in user id
// order, for the live participant req.CallerID: in a large room, whose
// listeners follow the summary, this is how the whole roster is read.
//
// One read-only transaction: the room and the caller's entry (an outsider
// stops there, as for Roster), the caller's own sessions (one of them must
// hold a live lease), the page (limit + 1 entries, to tell whether another
// follows) and the revision. A page costs about limit + 4 reads, whatever
// the roster's size. Entries are as listeners see them: live, or awaiting
// the sweeper after their last lease ended.
//
// Returns EInvalid for malformed ids or page sizes and NotVisible unless
// the caller is a live participant.
func (s *Store) RosterPage(ctx context.Context, req presence.RosterPageRequest) (presence.RosterPage, error) {
	if err := req.Validate(); err != nil {
		return presence.RosterPage{}, err
	}
	var page presence.RosterPage
	err := s.transact(ctx, "roster page", func(tx *txn, now time.Time) error {
		page = presence.RosterPage{RoomID: req.RoomID}
		room, caller, err := s.readRosterCaller(tx, presence.RosterRequest{RoomID: req.RoomID, CallerID: req.CallerID})
		if err != nil {
			return err
		}
		own, err := s.liveSessions(tx, s.participant(req.RoomID, req.CallerID).Collection(SessionsCollection).
			Where(FieldLeaseExpiresAt, ">", now))
		if err != nil {
			return err
		}
		if err := presence.CheckReader(now, room, caller, own); err != nil {
			return err
		}
		q := s.room(req.RoomID).Collection(ParticipantsCollection).OrderBy(firestore.DocumentID, firestore.Asc)
		if req.After != "" {
			q = q.StartAfter(req.After)
		}
		snaps, err := tx.query(q.Limit(req.Limit + 1))
		if err != nil {
			return err
		}
		for i, snap := range snaps {
			if i == req.Limit {
				page.Next = page.Participants[len(page.Participants)-1].ID
				break
			}
			p, err := decodeParticipant(snap, req.RoomID, snap.Ref.ID)
			if err != nil {
				return err
			}
			if p != nil {
				page.Participants = append(page.Participants, *p)
			}
		}
		page.Revision, err = s.readRevision(ctx, roomRevision(*room), tx)
		return err
	}, firestore.ReadOnly)
	return page, err
}
