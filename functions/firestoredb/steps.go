package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/steptime"
)

// The steps of a join and a leave that the store times (package steptime),
// for the Server-Timing header and the fleet benchmark's report. Each is
// wall time in this process, retries and lock waits included:
//
//   - join-txn: the join's transactions, every attempt (join-size inside
//     it), split like the leave's into join-begin (the round trip that
//     begins the transaction, before its first attempt), join-read (its
//     attempts' reads of the room, the user's entry, session, policy and,
//     for a new user, the per-user document and departure record),
//     join-retried (attempts that did not commit, whole) and join-commit
//     (the last attempt's commit); a new user's join-claim (writing its
//     claim on a place, claims.go) and join-size also fall inside it;
//   - join-size: the roster size check for the participant cap; in a room
//     that keeps its revision on its entries, the one snapshot of size and
//     revision that also makes the reply's revision (joinCounts);
//   - join-preread: a new user's documents and the room, read outside any
//     transaction so that the claim is written and judged before the
//     transaction (claimfirst.go); join-claim and join-size then fall
//     before join-txn instead of inside it. The transaction is begun
//     meanwhile, so join-txn and join-begin count only what they took
//     once that judgement was done;
//   - join-contest: a new user's claim on one of the last places,
//     contested outside the transaction (claims.go);
//   - join-room: a lifecycle step (creating or reviving the room), with,
//     for a room looked at outside any transaction, the plan of that step
//     from the user's documents or the wait for the instance's join that
//     plans it (roomlead.go);
//   - join-create: a join into a room looked at and found missing that
//     created the room in its own commit (createjoin.go), its whole
//     transaction;
//   - join-revision: in an older room, reading the revision for the reply,
//     after the commit;
//   - leave-txn: the leave's transaction, split into leave-begin (as
//     join-begin), leave-read (its attempts' reads, lock waits included),
//     leave-retried (attempts that did not commit, whole) and leave-commit
//     (the last attempt's commit);
//   - leave-settle: the emptiness check after a leave that removed an entry.
const (
	stepJoinTxn      = "join-txn"
	stepJoinBegin    = "join-begin"
	stepJoinRead     = "join-read"
	stepJoinRetried  = "join-retried"
	stepJoinCommit   = "join-commit"
	stepJoinClaim    = "join-claim"
	stepJoinPreRead  = "join-preread"
	stepJoinSize     = "join-size"
	stepJoinContest  = "join-contest"
	stepJoinRoom     = "join-room"
	stepJoinCreate   = "join-create"
	stepJoinRevision = "join-revision"
	stepLeaveTxn     = "leave-txn"
	stepLeaveBegin   = "leave-begin"
	stepLeaveRead    = "leave-read"
	stepLeaveRetried = "leave-retried"
	stepLeaveCommit  = "leave-commit"
	stepLeaveSettle  = "leave-settle"
)

// attemptTimer splits a transaction's wall time between the attempts that
// were retried and the commit of the last one: whether a slow transaction
// waited on locks in its reads, lost attempts to contention, or waited at
// its commit.
type attemptTimer struct {
	called, began, staged time.Time
	first                 string // the step the first attempt's wait goes to
}

// newAttemptTimer starts timing a transaction about to be run: until its
// first attempt begins, the client begins the transaction with a round
// trip of its own (BeginTransaction), whose time goes to first.
func newAttemptTimer(first string) attemptTimer {
	return attemptTimer{called: time.Now(), first: first}
}

// begin marks an attempt's start; the attempt before it, if any, was
// retried, and its time (reads, failed commit, backoff, the next
// attempt's begin) goes to retried.
func (a *attemptTimer) begin(ctx context.Context, retried string) {
	now := time.Now()
	switch {
	case !a.began.IsZero():
		steptime.Add(ctx, retried, now.Sub(a.began))
	case a.first != "":
		steptime.Add(ctx, a.first, now.Sub(a.called))
	}
	a.began, a.staged = now, time.Time{}
}

// stage marks the attempt's writes staged: what follows is its commit.
func (a *attemptTimer) stage() { a.staged = time.Now() }

// done adds the last attempt's commit time to commit, once the
// transaction has returned.
func (a *attemptTimer) done(ctx context.Context, commit string) {
	if !a.staged.IsZero() {
		steptime.Since(ctx, commit, a.staged)
	}
}
