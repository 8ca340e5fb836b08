package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/presence"
)

// Renewals fenced without a read (docs/races.md, "Renewals fenced without
// a read").
//
// Every answer to a lease holder carries a token (leasetoken) that states
// the session document as this server last wrote or read it, with the
// document's update time. A heartbeat that brings it back is served by one
// write of the session conditioned on that update time, and no read:
//
//  1. Verify the token for this session's document path (which names the
//     project, database, room, user and session). A token that does not
//     verify is ignored: the read path answers.
//  2. Decide on the token's claims as if they had been read
//     (presence.Settings.RenewFenced); anything the read path might answer
//     differently, or that needs more reads, goes to the read path.
//  3. Write the renewal with the precondition "update time unchanged". If
//     anything wrote the session since the token was issued (a rejoin with
//     a new generation, the sweeper's expiry, a departure deleting an ended
//     sibling, a leave, an away toggle, a renewal with this very token
//     before: a replay), the write fails and nothing is written.
//  4. On that failure, the read path decides, exactly as without a token:
//     409 for a superseded generation or an ended lease, at once.
//
// Step 3 is what makes the claims as good as a read: a conditional write
// commits only against the very document the token describes, and
// Firestore serialises it with any transaction that read the session (the
// sweeper's expiry, a departure's re-read of a sibling): either the
// renewal commits first, and they see it, or they commit first, and the
// condition fails.

// UseLeaseTokens makes the store issue and honour lease tokens signed by
// signer. Without it (or with nil), no token is issued and every renewal
// reads. Call it before the store is used.
func (s *Store) UseLeaseTokens(signer *leasetoken.Signer) { s.tokens = signer }

// grant is what a lease holder is told about sess, whose document's update
// time is updated (zero when unknown: no token then).
func (s *Store) grant(sess presence.Session, updated time.Time) presence.Grant {
	g := presence.Grant{LeaseExpiresAt: sess.LeaseExpiresAt, RenewAt: s.settings.RenewAt(sess), Away: sess.Away}
	if !updated.IsZero() {
		g.Token = s.tokens.Sign(s.session(sessionKeyOf(sess)).Path, leasetoken.Claims{
			Generation: sess.Generation, LeaseExpiresAt: sess.LeaseExpiresAt, UpdateTime: updated,
			Away: sess.Away, RefreshAt: earliest(sess.RoomExpireAt, sess.EntryExpireAt)})
	}
	return g
}

func sessionKeyOf(sess presence.Session) presence.SessionKey {
	return presence.SessionKey{RoomID: sess.RoomID, ParticipantID: sess.ParticipantID, SessionID: sess.ID}
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// claimed returns the session ref's token describes, and its update time,
// or false when there is no token or it does not verify for ref's session.
func (s *Store) claimed(ref presence.SessionRef) (presence.Session, time.Time, bool) {
	if ref.Token == "" || s.tokens == nil {
		return presence.Session{}, time.Time{}, false
	}
	c, ok := s.tokens.Verify(s.session(ref.SessionKey).Path, ref.Token)
	if !ok {
		return presence.Session{}, time.Time{}, false
	}
	return presence.Session{RoomID: ref.RoomID, ParticipantID: ref.ParticipantID, ID: ref.SessionID,
		Generation: c.Generation, LeaseExpiresAt: c.LeaseExpiresAt, Away: c.Away,
		RoomExpireAt: c.RefreshAt, EntryExpireAt: c.RefreshAt}, c.UpdateTime, true
}

// renewFenced is steps 1–3 for a heartbeat of ref; away, when not nil, is
// the mode the heartbeat asks for (a change of mode takes the read path).
// It reports false, having written nothing, when the read path must answer.
func (s *Store) renewFenced(ctx context.Context, ref presence.SessionRef, away *bool) (presence.Grant, bool, error) {
	claimed, updated, ok := s.claimed(ref)
	if !ok || (away != nil && claimed.Away != *away) {
		return presence.Grant{}, false, nil
	}
	renewed, ok := s.settings.RenewFenced(s.now(), claimed, ref)
	if !ok {
		return presence.Grant{}, false, nil
	}
	res, err := s.session(ref.SessionKey).Update(ctx, renewalUpdates(renewed), firestore.LastUpdateTime(updated))
	// A failed condition, or a write that lost a lock (a transaction
	// holding the session, such as an expiry, outlasted it): nothing was
	// written, and the read path's transaction decides, retrying as
	// transactions do.
	if preconditionFailed(err) || status.Code(err) == codes.Aborted {
		return presence.Grant{}, false, nil
	}
	if err != nil {
		return presence.Grant{}, false, storeError("heartbeat (fenced)", err)
	}
	s.ops.write(1)
	return s.grant(renewed, res.UpdateTime), true, nil
}

// renewalUpdates are the fields a renewal writes. The lease's shard goes
// with every deadline, so that a session written before shards existed
// gains one at its next renewal (leaseshards.go).
func renewalUpdates(sess presence.Session) []firestore.Update {
	return []firestore.Update{
		{Path: FieldLeaseExpiresAt, Value: sess.LeaseExpiresAt},
		{Path: FieldLeaseShard, Value: leaseShardOf(sess)},
		{Path: FieldExpireAt, Value: sess.ExpireAt},
	}
}

// preconditionFailed reports whether err is a conditional write's
// condition failing: the document changed (FailedPrecondition) or is gone
// (NotFound, for an update). Either way nothing was written.
func preconditionFailed(err error) bool {
	c := status.Code(err)
	return c == codes.FailedPrecondition || c == codes.NotFound
}

// writtenAt is the update time of the last write a committed transaction
// staged (the callers stage the session's last), or zero when it staged
// none.
func writtenAt(resp *firestore.CommitResponse) time.Time {
	wrs, err := resp.WriteResults()
	if err != nil || len(wrs) == 0 {
		return time.Time{}
	}
	return wrs[len(wrs)-1].UpdateTime
}
