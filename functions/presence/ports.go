package presence

import "context"

// The client API's port, and the types the sweeper's ports carry. Store is
// declared here, beside the decisions it serves, so that the adapters
// (functions/firestoredb implements it, functions/httpapi consumes it)
// depend on this package and never on each other. The sweeper's ports are
// small interfaces declared in functions/sweep, where they are used; what
// they carry (ModeSetting, Listing and the candidates) is here, so that
// functions/firestoredb implements them without importing the sweeper.

// Store is what the client API needs: every request a participant can make.
// Every method validates its request first and returns EInvalid, writing
// nothing, for a malformed one; every method returns EUnavailable when
// storage cannot be reached in time.
type Store interface {
	// Join admits a session and issues it a new generation with a fresh
	// lease. A join whose only visible change is a chosen one, while
	// req.Allowance refuses, keeps the stored state, name and mode
	// (JoinResult.Held): it is never refused for them. Returns EForbidden
	// if the room's policy does not list the user, ETooManySessions and
	// ETooManyRooms at the per-user caps, and ERoomFull at the participant
	// cap; a refused join writes nothing.
	Join(ctx context.Context, req JoinRequest) (JoinResult, error)
	// Renew is a heartbeat: it renews a lease when a renewal is due and
	// returns the grant (the lease's end, when to renew, a token for the
	// next renewal). Returns EForbidden if the room's policy (as read
	// within Settings.PolicyCache) no longer admits the user, and
	// EStaleGeneration if the session is gone, superseded or expired,
	// whatever token ref carries.
	Renew(ctx context.Context, ref SessionRef) (Grant, error)
	// HeartbeatAway is a heartbeat that also sets the session's away flag,
	// and returns the grant with the flag in force. A change of the flag
	// renews the lease in the new mode (Settings.ForMode) and may change
	// the roster (the user is away when all their live sessions are); one
	// that would change the roster while req.Allowance refuses renews in
	// the mode in force instead (the grant says which). Returns what Renew
	// returns.
	HeartbeatAway(ctx context.Context, req AwayRequest) (Grant, error)
	// Leave ends a session and reports whether it removed anything; a stale
	// generation or a session already gone is not an error.
	Leave(ctx context.Context, ref SessionRef) (LeaveResult, error)
	// Roster reads a room's live roster for one of its participants.
	// Returns NotVisible (ENotFound) for a caller who is not a live
	// participant, the same whether the room exists or not.
	Roster(ctx context.Context, req RosterRequest) (Roster, error)
	// SetState replaces the caller's state in the room (last writer wins
	// among the user's sessions) and returns it as stored with the room's
	// revision; an unchanged state writes nothing. It never renews the
	// lease. Returns EForbidden as Heartbeat does, and EStaleGeneration
	// unless the session holds the current generation and a live lease.
	SetState(ctx context.Context, req StateRequest) (StateResult, error)
	// SetTyping shows or clears a typing signal and returns the session's
	// grant (renewed when the signal was fenced by ref's token). Returns
	// EForbidden as Renew does, and EStaleGeneration unless the session
	// holds the current generation and a live lease.
	SetTyping(ctx context.Context, ref SessionRef, typing bool) (Grant, error)
	// MarkRead moves a read position forward and returns the stored
	// maximum. Returns EForbidden for a caller not on the roster or no
	// longer admitted by the room's policy (as Heartbeat).
	MarkRead(ctx context.Context, req ReceiptRequest) (int64, error)
	// Occupancy reads how many are on a room's roster, at a revision, for
	// anyone signed in, if the room's policy says PublicOccupancy. Returns
	// NotVisible (ENotFound) for every other room, whether it exists or
	// not, without reading anything of it but its policy.
	Occupancy(ctx context.Context, roomID string) (Occupancy, error)
	// RosterPage reads one page of a room's roster entries for one of its
	// live participants. Returns NotVisible (ENotFound) for anyone else,
	// as Roster does.
	RosterPage(ctx context.Context, req RosterPageRequest) (RosterPage, error)
}

// ModeSetting is the cleanup mode an operator stored, as stored: what it
// means is the sweeper's to decide, and a value it does not understand must
// not fall back to the default (which may be enforce).
type ModeSetting struct {
	// Set is false when nothing is stored: no roomlease/config document,
	// or no cleanupMode field in it.
	Set bool
	// Value is the stored string, when it is one.
	Value string
	// NotString names the stored value's type when it is not a string
	// (a boolean typed into the console): "bool", "int64", "null".
	NotString string
	// Share is the enforced share stored beside the mode in the same
	// document (rollout.go).
	Share ShareSetting
}

// ShareSetting is the share of rooms an enforcing sweeper tears down, as an
// operator stored it (roomlease/config enforceSharePercent): like
// ModeSetting, a value the sweeper does not understand must not fall back
// to the default.
type ShareSetting struct {
	Set     bool    // false when no such field is stored
	Percent float64 // the stored number, when it is one
	// NotNumber names the stored value's type when it is not a number.
	NotNumber string
}

// Listing is what one of the sweeper's listings found: the candidates, and
// the paths of listed documents that do not read as candidates (another
// app's documents in a collection group of the same name, a hand edit).
// Those are skipped and reported: one bad document must never stop a
// pass, and with it all cleanup.
type Listing[T any] struct {
	Items       []T
	Undecodable []string
}

// Len is how many documents the listing read, readable or not: the number
// to compare with the listing's limit.
func (l Listing[T]) Len() int { return len(l.Items) + len(l.Undecodable) }
