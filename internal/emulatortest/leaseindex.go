package emulatortest

import "os"

// LeaseIndexVar set to sharded makes the stores of the store's and the
// sweeper's tests read leases by shard (firestoredb.ListLeasesByShard);
// scripts/test runs those tests once more so: both ways of reading leases
// must give the same answers.
const LeaseIndexVar = "ROOMLEASE_TEST_LEASE_INDEX"

// LeasesByShard reports whether this test run reads leases by shard.
func LeasesByShard() bool { return os.Getenv(LeaseIndexVar) == "sharded" }
