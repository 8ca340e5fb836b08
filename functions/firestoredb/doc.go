// Package firestoredb is the presence store on Cloud Firestore.
//
// Every decision about a session or a roster entry is made in a Firestore
// transaction (Store.transact) that reads the documents the decision needs,
// asks the presence package for the decision with one `now`, and writes
// exactly what the decision returns. Firestore locks what a transaction
// reads until it commits, so two requests that touch the same session or
// roster entry serialise; one of them retries with fresh reads. That is
// what makes the compare-and-set on generations atomic.
//
// Two kinds of decision are made outside a transaction, each with a
// condition that stands in for the lock: a room's lifecycle write (created,
// emptied, revived) is conditioned on the version of the room it was
// computed from (roomstep.go, emptiness.go), and the sweeper's listings are
// re-checked, candidate by candidate, in transactions of their own. Every
// such pair is a race in docs/races.md with a test that forces it.
//
// The layout keeps requests of different users apart (see revision.go):
// joins and leaves write their own entry and session (and, in a room
// created before revisionOnEntries, a blind increment of a revision
// shard), and only read the room document. Lifecycle
// transitions of the room (created, revived, emptied) are single
// conditional writes, made beside those transactions rather than inside
// them, so that the many requests of a crowd never hold a lock that another
// waits on (roomstep.go, emptiness.go).
//
// Document layout and field names are in schema.go. A heartbeat reads and
// writes only the session document, which no client listens to, besides
// reading the room's policy once per Settings.PolicyCache (policy.go).
package firestoredb
