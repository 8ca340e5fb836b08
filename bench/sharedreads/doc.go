// Package sharedreads measures one property of the Firestore emulator that
// the fleet benchmark runs into: how long a crowd of transactions waits for
// its reads when some of the documents it reads are the same for every
// transaction, as a join's room and policy are for a crowd joining one
// room. It has no code of roomlease's in it: it times bare transactions, so
// that what it shows is the emulator's, not the store's.
//
// BenchmarkSharedReads runs it; `scripts/bench sharedreads` runs that
// against an emulator of its own (BENCHMARKS.md, "What the emulator makes
// of shared reads"). Nothing in it asserts on time.
package sharedreads
