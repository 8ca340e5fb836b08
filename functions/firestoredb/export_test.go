package firestoredb

// SetAfterTeardownCheck installs a hook that runs inside the teardown
// transaction after the occupancy check and before the commit.
func (s *Store) SetAfterTeardownCheck(f func()) { s.afterTeardownCheck = f }
