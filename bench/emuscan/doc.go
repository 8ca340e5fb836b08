// Package emuscan measures which documents one query makes the Firestore
// emulator read: a count over one small collection, timed before and
// after many documents are added elsewhere, in a collection of another
// name, in collections of the same name under other parents, or in the
// counted collection itself (matching the query). What the store's
// comments and docs say about the emulator's query costs rests on it.
// It has no code of roomlease's in it.
//
// BenchmarkQueryScan runs it; `scripts/bench scans` runs that against an
// emulator of its own (BENCHMARKS.md, "What one query reads on the
// emulator"). Nothing in it asserts on time.
package emuscan
