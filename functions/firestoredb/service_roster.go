package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// ServiceRoster reads roomID's live roster for a backend service: a
// caller that is no participant, whose right to read any room was
// established before the call (httpapi's service gate, docs/events.md
// "Reading a roster as a service"). It is what a consumer of the presence
// events reads to repair a gap.
//
// It reads what Roster reads, in one read-only transaction (so the
// revision is the one the entries reflect, and liveness is judged against
// one now), without the member check: the room document, its live
// sessions, the entries of their users, the revision shards and the recent
// departures, and the participants' event sequence numbers in the room's
// lifetime (presence.Snapshot). The reply's Room.CreatedAt is the room's
// lifetime, the value the events carry as "lifetime".
//
// Returns EInvalid for a malformed room id, and ENotFound when the room
// does not exist (a service may know that: it sees every room's events).
func (s *Store) ServiceRoster(ctx context.Context, roomID string) (presence.Snapshot, error) {
	if err := presence.ValidateRoomID(roomID); err != nil {
		return presence.Snapshot{}, err
	}
	var snap presence.Snapshot
	err := s.transact(ctx, "service-roster", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.room(roomID))
		if err != nil {
			return err
		}
		room, err := decodeRoom(snaps[0], roomID)
		if err != nil {
			return err
		}
		if room == nil {
			return presence.NotVisible()
		}
		sessions, err := s.liveSessions(tx, s.roomLeases(roomID).
			Where(FieldLeaseExpiresAt, ">", now))
		if err != nil {
			return err
		}
		entries, err := s.entriesOf(tx, roomID, sessions, "")
		if err != nil {
			return err
		}
		revision, err := s.readRevision(ctx, roomRevision(*room), tx)
		if err != nil {
			return err
		}
		snap.Roster = presence.LiveRoster(now, *room, revision, entries, sessions)
		deps, err := s.recentDepartures(tx, roomID, now)
		if err != nil {
			return err
		}
		snap.RecentlyLeft = s.settings.RecentDepartures(now, deps, snap.Participants)
		// In the same transaction as the roster: a cursor is written in
		// the very transaction that changes its entry, so the numbers are
		// exactly those of the events this roster reflects.
		snap.EventSeqs, err = s.lifetimeEventSeqs(tx, roomID, room.CreatedAt)
		return err
	}, firestore.ReadOnly)
	return snap, err
}

// lifetimeEventSeqs reads the latest participantSeq of everyone who had an
// event in roomID's lifetime, from the cursors the events' outbox keeps
// (outbox.go). With events off there are none, and reading nothing keeps
// a service read at its cost without events (TestServiceRoster_ListsWhatIsLive
// counts them).
func (s *Store) lifetimeEventSeqs(tx *txn, roomID string, lifetime time.Time) (map[string]int64, error) {
	if s.publisher == nil {
		return map[string]int64{}, nil
	}
	return s.readEventSeqs(tx, roomID, lifetime)
}
