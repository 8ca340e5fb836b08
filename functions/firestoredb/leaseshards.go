package firestoredb

import (
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// Lease shards: the sessions' deadlines without one hot index range.
//
// Every renewal moves its session's leaseExpiresAt to about now plus a
// lease, so the deadlines written at any moment all land at the top of
// one range. In the collection-group index the sweeper's query needs, that
// is one range for the whole deployment, and Firestore documents about 500
// writes a second as the limit for such an index: about 5 000 participants
// online at the default lease. Written beside each deadline, leaseShard
// (a hash of the session's path, so every writer writes the same value
// without reading) puts the deadlines of a composite index
// (leaseShard, leaseExpiresAt) into LeaseShards ranges that rise apart.
//
// The sweeper can only use that index once every session that may still
// expire has a shard, and a session written before this version gains
// one only when it renews: a crashed client's session never does. So the
// shard is written from this version on, and the sweeper keeps querying
// the single-field index (ListLeasesByShard off, ROOMLEASE_LEASE_INDEX
// single) until the operator switches, after every pre-upgrade session has
// renewed or expired (docs/upgrades.md). A sharded query cannot see a
// session without a shard: that is why the switch is a second step, not
// automatic.

// LeaseShards is the number of lease shards: 16 ranges of about 500
// writes a second each. Changing it re-shards every session: an upgrade
// of its own.
const LeaseShards = 16

// leaseShardOf is the shard of sess's lease.
func leaseShardOf(sess presence.Session) int64 {
	h := fnv.New32a()
	for _, part := range []string{sess.RoomID, sess.ParticipantID, sess.ID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return int64(h.Sum32() % LeaseShards)
}

// ListLeasesByShard makes the store's queries of leases read the indexes
// by shard: the sweeper's (ExpiredSessions, NextDeadline) one query per
// shard instead of the single-field index, and a room's (roomLeases) one
// query for every shard at once instead of the index (roomId,
// leaseExpiresAt), whose range is one room's: hot too in a room of more
// than about 5 000 participants online. Call it before the store is used.
func (s *Store) ListLeasesByShard() { s.leasesByShard = true }

// leaseQueries are the queries that find sessions by lease deadline,
// oldest first, those ended at or before expiredBy unless it is zero: one,
// or one per shard.
func (s *Store) leaseQueries(expiredBy time.Time) []firestore.Query {
	base := s.client.CollectionGroup(SessionsCollection).Query
	var qs []firestore.Query
	if !s.leasesByShard {
		qs = []firestore.Query{base}
	} else {
		for shard := range int64(LeaseShards) {
			qs = append(qs, base.Where(FieldLeaseShard, "==", shard))
		}
	}
	for i, q := range qs {
		if !expiredBy.IsZero() {
			q = q.Where(FieldLeaseExpiresAt, "<=", expiredBy)
		}
		qs[i] = q.OrderBy(FieldLeaseExpiresAt, firestore.Asc)
	}
	return qs
}

// listExpiredLeases runs the expired-lease queries at once and merges
// what they find, oldest deadline first, up to limit: each shard's first
// limit are enough for the whole's.
func (s *Store) listExpiredLeases(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.ExpiryCandidate], error) {
	qs := s.leaseQueries(now)
	listings := make([]presence.Listing[presence.ExpiryCandidate], len(qs))
	errs := make([]error, len(qs))
	done := make(chan int, len(qs))
	for i, q := range qs {
		go func() {
			listings[i], errs[i] = listCandidates(ctx, s, "listing expired sessions", q, limit, expiryCandidate)
			done <- i
		}()
	}
	for range qs {
		<-done
	}
	var out presence.Listing[presence.ExpiryCandidate]
	for _, l := range listings {
		out.Items = append(out.Items, l.Items...)
		out.Undecodable = append(out.Undecodable, l.Undecodable...)
	}
	slices.SortStableFunc(out.Items, func(a, b presence.ExpiryCandidate) int { return a.LeaseExpiresAt.Compare(b.LeaseExpiresAt) })
	if len(out.Items) > limit {
		out.Items = out.Items[:limit]
	}
	return out, errors.Join(errs...)
}

// expiryCandidate decodes a session found by an expired-lease query.
func expiryCandidate(snap *firestore.DocumentSnapshot) (presence.ExpiryCandidate, bool) {
	sess, err := decodeSession(snap)
	if err != nil || !isSessionPath(snap.Ref, sess) {
		return presence.ExpiryCandidate{}, false
	}
	return presence.ExpiryCandidate{RoomID: sess.RoomID, ParticipantID: sess.ParticipantID,
		SessionID: sess.ID, Generation: sess.Generation, LeaseExpiresAt: sess.LeaseExpiresAt}, true
}

// allLeaseShards lists every shard, for a query of all of them at once.
var allLeaseShards = func() []int64 {
	shards := make([]int64, LeaseShards)
	for i := range shards {
		shards[i] = int64(i)
	}
	return shards
}()

// roomLeases is the query of roomID's sessions across its participants, to
// be narrowed by lease deadline. By shard, it reads the composite index
// (roomId, leaseShard, leaseExpiresAt) for all shards at once: Firestore
// runs the "in" as one equality per shard and merges what they find, so
// it is still one query, billed as one (16 disjunctions, under the 30 it
// allows).
func (s *Store) roomLeases(roomID string) firestore.Query {
	q := s.client.CollectionGroup(SessionsCollection).Where(FieldRoomID, "==", roomID)
	if s.leasesByShard {
		q = q.Where(FieldLeaseShard, "in", allLeaseShards)
	}
	return q
}
