package firestoredb

// The steps of a join and a leave that the store times (package steptime),
// for the Server-Timing header and the fleet benchmark's report. Each is
// wall time in this process, retries and lock waits included:
//
//   - join-txn: the join's transaction, every attempt (join-size inside it);
//   - join-size: the roster size check for the participant cap; in a room
//     that keeps its revision on its entries, the one snapshot of size and
//     revision that also makes the reply's revision (joinCounts);
//   - join-contest: a new user's claim on one of the last places,
//     contested outside the transaction (claims.go);
//   - join-room: a lifecycle step (creating or reviving the room);
//   - join-revision: in an older room, reading the revision for the reply,
//     after the commit;
//   - leave-txn: the leave's transaction;
//   - leave-settle: the emptiness check after a leave that removed an entry.
const (
	stepJoinTxn      = "join-txn"
	stepJoinSize     = "join-size"
	stepJoinContest  = "join-contest"
	stepJoinRoom     = "join-room"
	stepJoinRevision = "join-revision"
	stepLeaveTxn     = "leave-txn"
	stepLeaveSettle  = "leave-settle"
)
