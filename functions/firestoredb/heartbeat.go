package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Heartbeat renews the lease of ref's session when it is due and returns
// the lease's deadline: Renew, for callers that need no more.
func (s *Store) Heartbeat(ctx context.Context, ref presence.SessionRef) (time.Time, error) {
	g, err := s.Renew(ctx, ref)
	return g.LeaseExpiresAt, err
}

// Renew renews the lease of ref's session when it is due and returns the
// grant: the lease's deadline, when to come back, and a token for the next
// renewal.
//
// With a valid token (ref.Token) and a renewal due, it writes the session
// on the condition that it is unchanged since the token was issued, and
// reads nothing: one write (see fenced.go). Otherwise, or when that
// condition fails, it takes the read path below.
//
// The read path reads the session document only, and writes at most that:
// never the room, never a roster entry, so a heartbeat wakes no listener.
// One that finds more than RenewWhenLeft of the lease left
// (presence.Settings.Renew) writes nothing and answers the current
// deadline: one read, no write. One that renews costs one read and one
// write. Because the read and the write are one transaction, a sweeper
// expiring the same session either commits first (and we answer
// EStaleGeneration) or waits for our renewal and then finds the lease live;
// a skipping heartbeat found the lease far from its end, so no sweeper can
// be expiring it.
//
// Neither path trusts a per-instance cache of the last renewal: Cloud
// Functions spreads one client's requests over many instances, and a join
// or leave on another instance changes the generation behind a cache's
// back. A cache would keep answering 200 to the superseded generation until
// its cached lease end, up to a whole lease, instead of refusing it at
// once, as the fencing principle requires. The token is no such cache: it
// is checked by the write's condition against the document itself.
//
// First, the room's policy must still admit the user (see admit: one read
// per room, instance and Settings.PolicyCache, not one per heartbeat). A
// refused heartbeat writes nothing and does not end the session: the client
// is told to stop, its lease runs out, and the sweeper removes it through
// the ordinary expiry, or sooner through the policy's eviction (EnforcePolicy)
// when the policy carries updatedAt. Ending the session here would make a
// refused request write, on the hottest path, for a gain of at most a lease.
//
// Returns EInvalid for a malformed reference, EForbidden if the room's
// policy no longer admits the user, EStaleGeneration if the session is
// gone, has another generation or its lease has ended.
func (s *Store) Renew(ctx context.Context, ref presence.SessionRef) (presence.Grant, error) {
	if err := ref.Validate(); err != nil {
		return presence.Grant{}, err
	}
	if err := s.admit(ctx, ref.RoomID, ref.ParticipantID); err != nil {
		return presence.Grant{}, err
	}
	if g, ok, err := s.renewFenced(ctx, ref, nil); ok || err != nil {
		return g, err
	}
	var sess presence.Session
	var read time.Time
	var resp firestore.CommitResponse
	err := s.transact(ctx, "heartbeat", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.session(ref.SessionKey))
		if err != nil {
			return err
		}
		stored, err := decodeSession(snaps[0])
		if err != nil {
			return err
		}
		var wrote bool
		sess, wrote, err = s.renewIn(tx, now, ref, stored)
		read = unlessWritten(wrote, snaps[0].UpdateTime)
		return err
	}, firestore.WithCommitResponseTo(&resp))
	if err != nil {
		return presence.Grant{}, err
	}
	return s.grant(sess, orWritten(read, &resp)), nil
}

// unlessWritten is the update time a transaction read, when it did not
// write the document after all; zero when it did (see orWritten).
func unlessWritten(wrote bool, read time.Time) time.Time {
	if wrote {
		return time.Time{}
	}
	return read
}

// orWritten is the session's update time after a committed transaction:
// as read when it was not written (read is not zero), or as written.
func orWritten(read time.Time, resp *firestore.CommitResponse) time.Time {
	if !read.IsZero() {
		return read
	}
	return writtenAt(resp)
}

// renewIn decides, in tx, a heartbeat of ref at now against its session as
// read there (stored), stages the renewal when one is due, and returns the
// session as it stands after the heartbeat and whether it was written. The
// session's write is the last it stages (see writtenAt).
func (s *Store) renewIn(tx *txn, now time.Time, ref presence.SessionRef, stored *presence.Session) (presence.Session, bool, error) {
	renewed, write, err := s.settings.Renew(now, stored, ref)
	if err != nil {
		return presence.Session{}, false, err
	}
	if !write {
		// Committing a transaction that staged nothing writes nothing;
		// the read is all this heartbeat is billed.
		return renewed, false, nil
	}
	updates := renewalUpdates(renewed)
	// Once a day at most: keep the room's and roster entry's TTL backstop
	// ahead of a long-lived room (see presence/ttl.go). The reads come
	// before any write, as transactions require.
	if s.settings.RefreshDue(now, renewed) {
		more, err := s.refreshExpiry(tx, now, ref, &renewed)
		if err != nil {
			return presence.Session{}, false, err
		}
		updates = append(updates, more...)
	}
	// Update, not Set: only the lease fields change, and the update fails
	// rather than recreating the document if it vanished.
	return renewed, true, tx.update(s.session(ref.SessionKey), updates)
}

// refreshExpiry pushes the room's and roster entry's expireAt forward when
// they are within a day of running out, inside the heartbeat's transaction,
// and returns the session fields that record the new values. Another session
// may have refreshed them already; then they are only read.
func (s *Store) refreshExpiry(tx *txn, now time.Time, ref presence.SessionRef, sess *presence.Session) ([]firestore.Update, error) {
	refs := []*firestore.DocumentRef{s.room(ref.RoomID), s.participant(ref.RoomID, ref.ParticipantID)}
	if s.publisher != nil {
		// The user's event cursor lives as long as the entry (see
		// refreshCursor).
		refs = append(refs, s.cursor(ref.RoomID, ref.ParticipantID))
	}
	snaps, err := tx.getAll(refs...)
	if err != nil {
		return nil, err
	}
	copies := []*time.Time{&sess.RoomExpireAt, &sess.EntryExpireAt}
	if len(snaps) > len(copies) {
		if err := s.refreshCursor(tx, now, snaps[len(copies)]); err != nil {
			return nil, err
		}
		snaps = snaps[:len(copies)]
	}
	for i, snap := range snaps {
		if !snap.Exists() {
			// Nothing to keep alive; stop checking until the horizon.
			*copies[i] = now.Add(s.settings.RecordHorizon)
			continue
		}
		current, _ := snap.Data()[FieldExpireAt].(time.Time)
		next, write := s.settings.Refreshed(now, current)
		if write && i == 0 {
			// The documents the revision keeps live as long as the room: a
			// room whose roster has not changed for a month must not lose
			// its revision to TTL. Blind merges, once a day per room: every
			// shard in an older room, two documents in one that keeps its
			// revision on its entries (refreshRevisionExpiry).
			// A room that does not decode refreshes every shard, the safe
			// way, rather than failing the heartbeat.
			room, derr := decodeRoom(snap, ref.RoomID)
			if derr != nil || room == nil {
				room = &presence.Room{ID: ref.RoomID}
			}
			err = tx.update(refs[i], []firestore.Update{{Path: FieldExpireAt, Value: next}, {Path: FieldRevisionExpireAt, Value: next}})
			if err == nil {
				err = s.refreshRevisionExpiry(tx, *room, next)
			}
		} else if write {
			err = tx.update(refs[i], []firestore.Update{{Path: FieldExpireAt, Value: next}})
		}
		if err != nil {
			return nil, err
		}
		*copies[i] = next
	}
	return []firestore.Update{
		{Path: FieldRoomExpireAt, Value: sess.RoomExpireAt},
		{Path: FieldEntryExpireAt, Value: sess.EntryExpireAt},
	}, nil
}

// refreshCursor pushes the expireAt of an event cursor (outbox.go) forward
// when it is within a day of running out, as the roster entry's: a user on
// the roster for longer than the horizon without a visible change must not
// lose their sequence number to TTL, or their next event would count from
// 1 again and read as older than their last. A missing cursor (an entry
// older than events) is left missing.
func (s *Store) refreshCursor(tx *txn, now time.Time, snap *firestore.DocumentSnapshot) error {
	if !snap.Exists() {
		return nil
	}
	current, _ := snap.Data()[FieldExpireAt].(time.Time)
	if next, write := s.settings.Refreshed(now, current); write {
		return tx.update(snap.Ref, []firestore.Update{{Path: FieldExpireAt, Value: next}})
	}
	return nil
}
