package presence

import (
	"context"
	"time"
)

// The ports: what the HTTP API and the sweeper need from storage. They are
// declared here, beside the decisions they serve, so that the adapters
// (functions/firestoredb implements both; functions/httpapi and
// functions/sweep consume them) depend on this package and never on each
// other.

// Store is what the client API needs: every request a participant can make.
// Every method validates its request first and returns EInvalid, writing
// nothing, for a malformed one; every method returns EUnavailable when
// storage cannot be reached in time.
type Store interface {
	// Join admits a session and issues it a new generation with a fresh
	// lease. Returns EForbidden if the room's policy does not list the user,
	// ETooManySessions and ETooManyRooms at the per-user caps, and ERoomFull
	// at the participant cap; a refused join writes nothing.
	Join(ctx context.Context, req JoinRequest) (JoinResult, error)
	// Heartbeat renews a lease and returns its new end. Returns
	// EForbidden if the room's policy (as read within
	// Settings.PolicyCache) no longer admits the user, and
	// EStaleGeneration if the session is gone, superseded or expired.
	Heartbeat(ctx context.Context, ref SessionRef) (time.Time, error)
	// HeartbeatAway is a heartbeat that also sets the session's away flag,
	// and returns the lease's end and the flag. A change of the flag
	// renews the lease in the new mode (Settings.ForMode) and may change
	// the roster (the user is away when all their live sessions are).
	// Returns what Heartbeat returns.
	HeartbeatAway(ctx context.Context, ref SessionRef, away bool) (time.Time, bool, error)
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
	// SetTyping shows or clears a typing signal. Returns EForbidden as
	// Heartbeat does, and EStaleGeneration unless the session holds the
	// current generation and a live lease.
	SetTyping(ctx context.Context, ref SessionRef, typing bool) error
	// MarkRead moves a read position forward and returns the stored
	// maximum. Returns EForbidden for a caller not on the roster or no
	// longer admitted by the room's policy (as Heartbeat).
	MarkRead(ctx context.Context, req ReceiptRequest) (int64, error)
}

// SweepStore is what the sweeper needs. Every method that changes something
// re-checks its precondition inside a transaction, so a sweeper that acts on
// a stale read, or two sweepers at once, change each thing at most once.
// Every method returns EUnavailable when storage cannot be reached in time.
type SweepStore interface {
	// CleanupMode returns the operator's run-time mode as stored, whatever
	// its type; Set is false when none is stored.
	CleanupMode(ctx context.Context) (ModeSetting, error)
	// ExpiredSessions lists up to limit sessions whose lease ended at or
	// before now, the oldest deadline first.
	ExpiredSessions(ctx context.Context, now time.Time, limit int) (Listing[ExpiryCandidate], error)
	// ExpireSession removes a candidate's session; its Outcome is Conflict
	// when the session was renewed or rejoined since it was listed.
	ExpireSession(ctx context.Context, c ExpiryCandidate) (ExpiryResult, error)
	// ExpiredTyping lists up to limit typing signals expired at or before now.
	ExpiredTyping(ctx context.Context, now time.Time, limit int) (Listing[TypingCandidate], error)
	// ClearTyping removes a signal unless it was renewed since it was listed.
	ClearTyping(ctx context.Context, c TypingCandidate) (Outcome, error)
	// DueRooms lists up to limit suspected_empty rooms past their grace;
	// with unreportedOnly, only those not yet marked reported.
	DueRooms(ctx context.Context, now time.Time, limit int, unreportedOnly bool) (Listing[Room], error)
	// TearDown makes the authoritative occupancy check; it deletes only on
	// a TearDown verdict with enforce set, and otherwise marks such a room
	// reported.
	TearDown(ctx context.Context, c TeardownCandidate, enforce bool) (TeardownResult, error)
	// MarkReported marks a due room reported without checking it (off
	// mode); false if it changed since it was listed or was marked already.
	MarkReported(ctx context.Context, c TeardownCandidate) (bool, error)
	// PurgeClosed finishes up to limit teardowns and returns how many; a
	// teardown that fails stays pending, and its error is returned after
	// the others were finished.
	PurgeClosed(ctx context.Context, limit int) (int, error)
	// RepairEmptyActive re-checks rooms that may have been left active with
	// an empty roster since since (looking at up to limit candidates) and
	// starts their grace; it reports how many and how far it looked.
	// A room whose check fails is marked for a later look rather than
	// holding the report back.
	RepairEmptyActive(ctx context.Context, since time.Time, limit int) (RepairReport, error)
	// RepairWatermark returns how far re-checks have looked, as saved by
	// the latest RepairEmptyActive, or the zero time.
	RepairWatermark(ctx context.Context) (time.Time, error)
	// ChangedPolicies lists up to limit room policies whose updatedAt is
	// after since, the oldest change first.
	ChangedPolicies(ctx context.Context, since time.Time, limit int) (Listing[PolicyChange], error)
	// EnforcePolicy removes from c's room, through the departure path,
	// each participant the policy (re-read in each removal's transaction)
	// no longer admits, looking at up to limit of them.
	EnforcePolicy(ctx context.Context, c PolicyChange, limit int) (EvictionReport, error)
	// NextDeadline returns the earliest lease end, typing expiry or
	// cleanupAfter (with unreportedOnly, of unreported rooms only), or the
	// zero time when nothing is scheduled.
	NextDeadline(ctx context.Context, unreportedOnly bool) (time.Time, error)
	// WriteSweepStatus stores the latest run's summary for operators.
	WriteSweepStatus(ctx context.Context, summary map[string]any) error
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
