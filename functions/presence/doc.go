// Package presence is roomlease's domain: rooms, participants, sessions,
// fenced leases and the room revision. It imports no infrastructure; the
// Firestore adapter loads the documents a decision needs, calls the pure
// functions here with one `now`, and writes back exactly what they return,
// inside one transaction.
//
// What this package guarantees, given that its caller applies each decision
// atomically:
//
//   - Fencing: every join issues a new, strictly larger generation for its
//     session. Heartbeat and leave act only when the caller's generation equals
//     the stored one, so a late request for generation 7 never touches 8.
//   - One participant per user, one lease per session: a user with two tabs is
//     listed once, and neither tab's join or leave disturbs the other's lease.
//   - Revision: it rises by exactly one on every change to a roster entry
//     (join of a new user, a new tab, a rename, a departure) and never on a
//     heartbeat or a reconnect of a known session.
//   - Caps (caps.go): no join gives a user more than MaxSessionsPerUser live
//     sessions in a room, or an entry in more rooms than MaxRoomsPerUser as
//     the user's per-user list counts them, and a refused join writes
//     nothing. It holds under concurrency because every join that makes a
//     session live writes the user's entry (FenceParticipant), and every
//     join that adds an entry writes the per-user list, so two joins of one
//     user that could both take the last place serialise on a document.
//
// What it does not guarantee: that a listed participant is live. Leases end
// by the passing of time, and the roster entry goes only when a leave or the
// sweeper commits; readers filter by lease (see LiveRoster). Nor does it
// order generations across a deleted session document by anything but the
// clock: a session that leaves and joins again within the same microsecond,
// or on a server whose clock is behind by more than the time between the two
// requests, could be issued a generation it had before.
package presence
