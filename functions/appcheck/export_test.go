package appcheck

import "time"

// SetFetchTimeout shortens the key set fetch's bound, so that a test of an
// unreachable key server need not wait KeyFetchTimeout.
func SetFetchTimeout(v *Verifier, d time.Duration) { v.fetchTimeout = d }
