package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// SetAfterTeardownCheck installs a hook that runs inside the teardown
// transaction after the occupancy check and before the commit.
func (s *Store) SetAfterTeardownCheck(f func()) { s.setHook(hookAfterTeardownCheck, f) }

// SetBeforeJoinReads installs a hook that runs inside each join attempt
// before its reads.
func (s *Store) SetBeforeJoinReads(f func()) { s.setHook(hookBeforeJoinReads, f) }

// ReadPolicyForTest has the store read (and cache) the room's policy as a
// heartbeat would, so that a test can measure a heartbeat's own cost with
// the policy already cached: the steady state, in which a room's policy is
// read once per presence.Settings.PolicyCache and instance.
func (s *Store) ReadPolicyForTest(ctx context.Context, roomID string) error {
	return s.admit(ctx, roomID, "")
}

// SetAfterJoinReads installs a hook that runs inside each join attempt after
// its reads, before it decides and stages any write.
func (s *Store) SetAfterJoinReads(f func()) { s.setHook(hookAfterJoinReads, f) }

// SetAfterSiblingListing installs a hook that runs in each join or
// departure attempt after the user's other sessions were listed outside the
// transaction, before those judged ended are read again inside it.
func (s *Store) SetAfterSiblingListing(f func()) { s.setHook(hookAfterSiblingListing, f) }

// SetAfterDepartureReads installs a hook that runs in each departure
// attempt after it read the user's entry and session in the transaction.
func (s *Store) SetAfterDepartureReads(f func()) { s.setHook(hookAfterDepartureReads, f) }

func (s *Store) setHook(at hookPoint, f func()) {
	if s.hooks == nil {
		s.hooks = map[hookPoint]func(){}
	}
	s.hooks[at] = f
}

// SetBeforeEmptinessWrite installs a hook that runs in a departure's
// emptiness check after it found the roster empty and read the room, before
// it writes the room.
func (s *Store) SetBeforeEmptinessWrite(f func()) { s.setHook(hookBeforeEmptinessWrite, f) }

// SetBeforeEmptinessRevive installs a hook that runs in a departure's
// emptiness check after the recount that follows its own write found
// someone on the roster, before it revives the room.
func (s *Store) SetBeforeEmptinessRevive(f func()) { s.setHook(hookBeforeEmptinessRevive, f) }

// SetBeforeClassifyCommit installs a hook that runs inside a candidate's
// classification after it read the candidate as pending, before the write.
func (s *Store) SetBeforeClassifyCommit(f func()) { s.setHook(hookBeforeClassifyCommit, f) }

// SetAfterClassifyEvidence installs a hook that runs in a candidate's
// classification after it decided, before its transaction.
func (s *Store) SetAfterClassifyEvidence(f func()) { s.setHook(hookAfterClassifyEvidence, f) }

// SetBeforeFoldReads and SetAfterFoldReads install hooks that run in each
// attempt of a fold of departure records, before its reads and after them.
func (s *Store) SetBeforeFoldReads(f func()) { s.setHook(hookBeforeFoldReads, f) }
func (s *Store) SetAfterFoldReads(f func())  { s.setHook(hookAfterFoldReads, f) }

// RevisionForTest is the room's revision and entry count as the store
// reads them for a reply (roomCounts), so that a test can hold the store's
// arithmetic against the documents; 0 and 0 for a missing room.
func (s *Store) RevisionForTest(ctx context.Context, roomID string) (int64, int, error) {
	room, _, err := s.readRoom(ctx, roomID)
	if err != nil || room == nil {
		return 0, 0, err
	}
	return s.roomCounts(ctx, *room, nil)
}

// SetRevisionSumHooks sets hooks in a revision read of a room that keeps
// its revision on its entries, which sends its two sums at once: after
// runs once the entries' sum has answered, before just before the records'
// sum is sent.
func (s *Store) SetRevisionSumHooks(after, before func()) {
	s.setHook(hookAfterEntriesSum, after)
	s.setHook(hookBeforeRecordsSum, before)
}

// SetBeforeRoomStep sets a hook in a join's lifecycle step, after its look
// at the room and before its write.
func (s *Store) SetBeforeRoomStep(f func()) { s.setHook(hookBeforeRoomStep, f) }

// SetCreates sets a hook in a creating join, once it has decided to stage
// the room's create (createjoin.go).
func (s *Store) SetCreates(f func()) { s.setHook(hookCreates, f) }

// RememberRoomActive makes this instance's memo say it saw roomID active
// just now, whatever happened to the room since (roomlook.go).
func (s *Store) RememberRoomActive(roomID string) { s.sawActive(roomID) }

// SetAfterClaim sets a hook in a new user's join, after its claim on a
// place was written and before the snapshot that judges it (claims.go).
func (s *Store) SetAfterClaim(f func()) { s.setHook(hookAfterClaim, f) }

// SetAttemptWaits sets a hook in a transaction begun before the work its
// reads must follow (a join whose claim is judged before its
// transaction), when an attempt starts waiting for that work.
func (s *Store) SetAttemptWaits(f func()) { s.setHook(hookAttemptWaits, f) }

// SetClaimWaits sets a hook in a contested claim, each time a snapshot
// leaves it waiting.
func (s *Store) SetClaimWaits(f func()) { s.setHook(hookClaimWaits, f) }

// LeaseShardOf is the lease shard a session of this key is written with.
func LeaseShardOf(roomID, uid, sessionID string) int64 {
	return leaseShardOf(presence.Session{RoomID: roomID, ParticipantID: uid, ID: sessionID})
}

// TypingShardOf is the shard a typing signal of this user is written with.
func TypingShardOf(roomID, uid string) int64 { return userShardOf(roomID, uid) }

// SetBeforeOccupancyQuery installs a hook that runs in an emptiness check
// when no witness was found present, before it queries for any entry.
func (s *Store) SetBeforeOccupancyQuery(f func()) { s.setHook(hookBeforeOccupancyQuery, f) }

// MarkShardOf is the shard a repair mark on revision document docID of
// roomID is written with; DepartureShardOf that of uid's departure record.
func MarkShardOf(roomID, docID string) int64 { return shardOf(roomID, docID) }
func DepartureShardOf(roomID, uid string) int64 {
	return userShardOf(roomID, uid)
}

// DocumentLookups is how many round trips that read documents by name the
// store has made (firstreads.go).
func (s *Store) DocumentLookups() int64 { return s.ops.lookups.Load() }

// SetLeads installs a hook that runs in a join into a room looked at that
// leads the store's joins into it, before it plans (roomlead.go).
func (s *Store) SetLeads(f func()) { s.setHook(hookLeads, f) }

// SetFollowsLead installs a hook that runs in a join into a room looked at
// (missing or in its grace) that found another join of the store leading
// the room's step, before it waits for that join (roomlead.go).
func (s *Store) SetFollowsLead(f func()) { s.setHook(hookFollowsLead, f) }

// SettleEmptinessForTest runs, for roomID as it stands, the emptiness check
// that a departure at departedAt runs after its commit (settleEmptiness):
// with the roster empty and the room in its grace, a later departure
// moves the grace to itself.
func (s *Store) SettleEmptinessForTest(ctx context.Context, roomID string, departedAt time.Time) (presence.Emptiness, error) {
	room, _, err := s.readRoom(ctx, roomID)
	if err != nil || room == nil {
		return presence.StillOccupied, err
	}
	_, decided, err := s.settleEmptiness(ctx, roomRevision(*room), departedAt)
	return decided, err
}
