// Package sweep is roomlease's one authority for expiry and teardown.
//
// A sweeper runs passes. Each pass, in order:
//
//  1. reads the cleanup mode (roomlease/config overrides the default), so an
//     operator's kill switch takes effect on the next pass, not the next
//     deploy;
//  2. expires sessions whose lease ended (oldest first), each re-checked in
//     its own transaction, which removes roster entries and marks rooms
//     suspected_empty as a leave would;
//  3. enforces room policies changed since the last pass (their updatedAt
//     after a watermark that trails the clock): every participant a policy
//     no longer admits leaves, all sessions at once, as a departure;
//  4. clears expired typing signals, and folds the departure records that
//     nobody shows any more into their room's retired count (one
//     transaction per room and batch; see firestoredb/fold.go);
//  5. checks rooms that are suspected_empty past their grace: in enforce
//     mode, for the rooms in the enforced slice (a hash of the room id below
//     the share in force), the authoritative check and the teardown are one
//     transaction; in observe mode, and for the other rooms, the check runs
//     and its verdict is reported, nothing is deleted; in off mode rooms are
//     only counted. Every room the check finds proven empty is recorded as a
//     teardown candidate in the check's own commit;
//  6. purges the documents of torn-down rooms, including teardowns a crashed
//     sweeper left half done, for at most Config.PurgeBudget a pass (a big
//     room's purge goes on in the next);
//  7. classifies the teardown candidates whose reconnect window is over
//     (confirmed, reconnect after candidate, violation), in every mode, and
//     counts them by slice (rollout.go).
//
// With events on, the relay runs beside those steps in every pass, not
// after them: it publishes the outbox records that their instances did not
// (relay.go), and no step that fails or runs out of time holds it back.
//
// Once per run, before its first pass, it re-checks rooms that a departing
// request marked and may have left active and empty (repair), from a
// watermark it keeps, so that no such room waits for a join to be noticed.
//
// Between passes it sleeps until the next deadline (a lease end, a typing
// expiry, a cleanupAfter), at least MinWait and at most MaxWait, so that a
// crashed client disappears about when its lease ends rather than a polling
// period later. Passes are bounded by rows and time, so a backlog is worked
// off in slices. A failed listing stops the pass where it is (fail closed:
// nothing is deleted on a failed read), is reported, and the sweeper backs
// off; a candidate whose own step fails is skipped, so that one that keeps
// failing cannot stop the cleanup of all the others. Within a step, up to
// Config.Concurrency candidates are acted on at once, started oldest first
// (forEach), so that a burst of deadlines ending together is met together;
// the events relay takes rooms at once, each room's events in turn, and
// policy enforcement goes one at a time.
//
// What is not guaranteed: timeliness while Firestore is unavailable, and
// cleanup of state whose session documents TTL removed while no sweeper ran
// for longer than the session retention (TTL then removes the rest).
// Several sweepers may run at once; every step is a compare-and-set in a
// transaction, so each change happens once and a live lease is never removed.
package sweep
