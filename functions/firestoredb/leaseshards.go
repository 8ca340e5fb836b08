package firestoredb

import (
	"hash/fnv"
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
	return shardOf(sess.RoomID, sess.ParticipantID, sess.ID)
}

// userShardOf is the shard of a document a room keeps one of per user
// whose deadline the sweeper finds across rooms: a typing signal's expiry
// (every signal writes about now plus 5 s) and a departure record's leftAt
// (every departure that removes an entry writes about now). markShardOf
// is that of a repair mark (FieldMayBeEmptyAt) on the revision document
// ref, which the same departures write. Each is one rising range for the
// whole deployment in a collection-group index: the same hot range as the
// leases', the same cure, under the same setting.
func userShardOf(roomID, uid string) int64 {
	return shardOf(roomID, uid)
}

func markShardOf(ref *firestore.DocumentRef) int64 {
	return shardOf(ref.Parent.Parent.ID, ref.ID)
}

// shardOf hashes a document's path parts to a shard.
func shardOf(parts ...string) int64 {
	h := fnv.New32a()
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return int64(h.Sum32() % LeaseShards)
}

// ListLeasesByShard makes the store's queries of leases read the indexes
// by shard, all shards in one query ("in"): the sweeper's
// (ExpiredSessions, NextDeadline) instead of the single-field index, and a
// room's (roomLeases) instead of the index (roomId, leaseExpiresAt), whose
// range is one room's: hot too in a room of more than about 5 000
// participants online; and the typing signals' (ExpiredTyping,
// NextDeadline) instead of the single-field index on expiresAt; and the
// sweeper's repair marks (RepairEmptyActive) and departure records to
// fold (StaleDepartures) by markShard and leftShard instead of the
// single-field indexes on mayBeEmptyAt and leftAt. Call it before the
// store is used.
//
// Firestore runs an "in" as one equality per value and merges what they
// find in the query's order, so a query of 16 shards (under the 30
// disjunctions it allows) is still one query, billed as one, and pages as
// one.
func (s *Store) ListLeasesByShard() { s.leasesByShard = true }

// byShard narrows q, a query of sessions (shard field FieldLeaseShard),
// typing signals (FieldExpiryShard), repair marks (FieldMarkShard) or
// departure records (FieldLeftShard), to every shard when the store reads
// leases by shard: the same documents (all have a shard, once the
// rollout's second step is due), from the index by shard.
func (s *Store) byShard(q firestore.Query, field string) firestore.Query {
	if s.leasesByShard {
		q = q.Where(field, "in", allLeaseShards)
	}
	return q
}

// leaseQuery finds sessions by lease deadline, oldest first, those ended
// at or before expiredBy unless it is zero.
func (s *Store) leaseQuery(expiredBy time.Time) firestore.Query {
	return s.deadlineQuery(SessionsCollection, FieldLeaseShard, FieldLeaseExpiresAt, expiredBy)
}

// typingQuery is leaseQuery for every room's typing signals.
func (s *Store) typingQuery(expiredBy time.Time) firestore.Query {
	return s.deadlineQuery(TypingCollection, FieldExpiryShard, FieldExpiresAt, expiredBy)
}

// deadlineQuery finds the documents of a collection group by deadline,
// oldest first, those due at or before expiredBy unless it is zero.
func (s *Store) deadlineQuery(group, shardField, deadline string, expiredBy time.Time) firestore.Query {
	q := s.byShard(s.client.CollectionGroup(group).Query, shardField)
	if !expiredBy.IsZero() {
		q = q.Where(deadline, "<=", expiredBy)
	}
	return q.OrderBy(deadline, firestore.Asc)
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
// be narrowed by lease deadline.
func (s *Store) roomLeases(roomID string) firestore.Query {
	return s.byShard(s.client.CollectionGroup(SessionsCollection).Where(FieldRoomID, "==", roomID), FieldLeaseShard)
}
