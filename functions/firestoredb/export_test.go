package firestoredb

import "context"

// SetAfterTeardownCheck installs a hook that runs inside the teardown
// transaction after the occupancy check and before the commit.
func (s *Store) SetAfterTeardownCheck(f func()) { s.hooks.afterTeardownCheck = f }

// SetBeforeJoinReads installs a hook that runs inside each join attempt
// before its reads.
func (s *Store) SetBeforeJoinReads(f func()) { s.hooks.beforeJoinReads = f }

// ReadPolicyForTest has the store read (and cache) the room's policy as a
// heartbeat would, so that a test can measure a heartbeat's own cost with
// the policy already cached: the steady state, in which a room's policy is
// read once per presence.Settings.PolicyCache and instance.
func (s *Store) ReadPolicyForTest(ctx context.Context, roomID string) error {
	return s.admit(ctx, roomID, "")
}

// SetAfterJoinReads installs a hook that runs inside each join attempt after
// its reads, before it decides and stages any write.
func (s *Store) SetAfterJoinReads(f func()) { s.hooks.afterJoinReads = f }
