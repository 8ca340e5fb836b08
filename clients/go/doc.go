// Package client is the Go client of the roomlease HTTP API, for services
// that take part in rooms (bots, recorders, load generators) and for tests.
//
// A Client makes single calls (Join, Heartbeat, Leave, Room, SetTyping,
// MarkRead). JoinRoom returns a Session, which holds one lease: it
// heartbeats every heartbeatSeconds (shortened by a random jitter, never
// lengthened), and when the server answers 409 stale_generation (the lease
// ran out, or a newer join of the same session id superseded it) it joins
// again with the same session id and carries on with the new generation.
// A Session lives as long as the context JoinRoom was given: every
// heartbeat runs on it, and when it ends the session leaves the room and
// ends. Done and Err say when and why a session ended.
//
// Requests carry Firebase ID tokens from a TokenSource. A service that is
// a user of its own gets them from NewCustomTokenSource, which exchanges a
// custom token minted by its backend and refreshes the ID token before it
// expires (against the Auth emulator when FIREBASE_AUTH_EMULATOR_HOST is
// set); StaticToken suits tests.
//
// Every request is bounded (WithRequestTimeout, 10 s by default; a
// heartbeat waits at most half the lease it has left), so a server that
// accepts a request and never answers costs no more than that; the error
// then matches ErrTimeout.
//
// Every error the API answers is an *APIError whose code matches one of the
// sentinel errors (ErrStaleGeneration, ErrRoomFull, ...) under errors.Is.
//
// What it does not do:
//   - It does not read Firestore: Go services that need live rosters use the
//     Firestore client directly, on the database the server names
//     (Config, or Joined.Database), or poll Room (a consistent read that
//     reports the revision it reflects).
//   - It does not decide presence. A Session that has not heartbeat for
//     longer than the lease may still believe it is joined; the next
//     heartbeat finds out (409) and rejoins.
//   - It never compares server timestamps with the local clock alone;
//     ServerNow estimates the server's clock from lease ends.
//   - Revisions are ordered, not counted: a revision may rise by more than
//     one between two reads.
package client
