package firestoredb

// SetAfterTeardownCheck installs a hook that runs inside the teardown
// transaction after the occupancy check and before the commit.
func (s *Store) SetAfterTeardownCheck(f func()) { s.hooks.afterTeardownCheck = f }

// SetBeforeJoinReads installs a hook that runs inside each join attempt
// before its reads.
func (s *Store) SetBeforeJoinReads(f func()) { s.hooks.beforeJoinReads = f }

// SetAfterJoinReads installs a hook that runs inside each join attempt after
// its reads, before it decides and stages any write.
func (s *Store) SetAfterJoinReads(f func()) { s.hooks.afterJoinReads = f }
