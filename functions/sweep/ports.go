package sweep

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// The sweeper's ports: what each step of a pass (doc.go numbers them), the
// run's repair, its scheduler and its report need from storage, one small
// interface each, declared here where they are used. The types they carry
// (Listing, ExpiryCandidate, Room, ...) are the domain's, in presence.
// functions/firestoredb implements them all without importing this package;
// the wiring (functions/app) asserts that it does.
//
// Every method that changes something re-checks its precondition inside a
// transaction, so a sweeper that acts on a stale read, or two sweepers at
// once, change each thing at most once. Every method returns
// presence.EUnavailable when storage cannot be reached in time.

// Store is everything a Sweeper needs: New takes one.
type Store interface {
	ModeReader
	LeaseExpirer
	PolicyEnforcer
	TypingClearer
	DepartureFolder
	DueRoomChecker
	Purger
	CandidateClassifier
	Repairer
	DeadlineFinder
	StatusWriter
}

// ModeReader reads the operator's kill switch (step 1).
type ModeReader interface {
	// CleanupMode returns the operator's run-time mode as stored, whatever
	// its type; Set is false when none is stored. An error means the
	// setting could not be read, and the pass acts on nothing.
	CleanupMode(ctx context.Context) (presence.ModeSetting, error)
}

// LeaseExpirer lists sessions whose lease ended and expires them (step 2).
type LeaseExpirer interface {
	// ExpiredSessions lists up to limit sessions whose lease ended at or
	// before now, the oldest deadline first; documents that match but do
	// not read as sessions are in the listing's Undecodable. An error
	// means nothing was listed.
	ExpiredSessions(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.ExpiryCandidate], error)
	// ExpireSession removes a candidate's session; its Outcome is Conflict
	// when the session was renewed or rejoined since it was listed, and
	// AlreadyDone when it is gone. An error means the session was not
	// removed, or was removed but the room's emptiness could not be
	// settled (the repair re-checks such a room).
	ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error)
}

// PolicyEnforcer finds changed room policies and enforces them (step 3).
type PolicyEnforcer interface {
	// ChangedPolicies lists up to limit room policies whose updatedAt is
	// after since, the oldest change first; policies that do not decode
	// are in the listing's Undecodable. An error means nothing was listed.
	ChangedPolicies(ctx context.Context, since time.Time, limit int) (presence.Listing[presence.PolicyChange], error)
	// EnforcePolicy removes from c's room, through the departure path,
	// each participant the policy (re-read in each removal's transaction)
	// no longer admits, looking at up to limit of them; More is set when
	// some are left for another call. An error stops it at the
	// participant that failed; those removed before it stay removed.
	EnforcePolicy(ctx context.Context, c presence.PolicyChange, limit int) (presence.EvictionReport, error)
}

// TypingClearer lists expired typing signals and clears them (step 4).
type TypingClearer interface {
	// ExpiredTyping lists up to limit typing signals expired at or before
	// now; documents that do not read as signals are in the listing's
	// Undecodable. An error means nothing was listed.
	ExpiredTyping(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.TypingCandidate], error)
	// ClearTyping removes a signal unless it was renewed since it was
	// listed (Conflict) or is gone (AlreadyDone). An error means it was
	// not removed.
	ClearTyping(ctx context.Context, c presence.TypingCandidate) (presence.Outcome, error)
}

// DepartureFolder lists departure records nobody shows any more and folds
// them into their rooms' retired counts (step 4).
type DepartureFolder interface {
	// StaleDepartures lists up to limit such records at now, grouped by
	// room; documents that do not read as departures are in the listing's
	// Undecodable. An error means nothing was listed.
	StaleDepartures(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.StaleDepartures], error)
	// FoldDepartures folds those of a batch still stale, and says how
	// many. An error means none was folded.
	FoldDepartures(ctx context.Context, batch presence.StaleDepartures) (int, error)
}

// DueRoomChecker lists rooms past their grace and checks each for teardown
// (step 5).
type DueRoomChecker interface {
	// DueRooms lists up to limit suspected_empty rooms past their grace;
	// with unreportedOnly, only those not yet marked reported. Rooms that
	// do not decode are in the listing's Undecodable. An error means
	// nothing was listed.
	DueRooms(ctx context.Context, now time.Time, limit int, unreportedOnly bool) (presence.Listing[presence.Room], error)
	// TearDown makes the authoritative occupancy check; it deletes only on
	// a TearDown verdict with enforce set, and otherwise marks such a room
	// reported. Any other verdict (GenerationChanged, Occupied, ...)
	// deletes nothing. An error means nothing was deleted: the check fails
	// closed.
	TearDown(ctx context.Context, c presence.TeardownCandidate, enforce bool) (presence.TeardownResult, error)
	// MarkReported marks a due room reported without checking it (off
	// mode); false if it changed since it was listed or was marked already.
	// An error means it was not marked.
	MarkReported(ctx context.Context, c presence.TeardownCandidate) (bool, error)
}

// Purger finishes teardowns by deleting what was under the rooms (step 6).
type Purger interface {
	// PurgeClosed finishes up to limit teardowns and returns how many; a
	// teardown that fails stays pending, and its error is returned after
	// the others were finished.
	PurgeClosed(ctx context.Context, limit int) (int, error)
}

// CandidateClassifier classifies teardown candidates whose window is over
// (step 7). The store records candidates itself, in TearDown's transaction.
type CandidateClassifier interface {
	// PendingCandidates lists up to limit candidates whose reconnect
	// window ended at or before now, the oldest first; records that do not
	// decode are in the listing's Undecodable. An error means nothing was
	// listed.
	PendingCandidates(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.Candidate], error)
	// ClassifyCandidate decides c's class from what its room shows now and
	// stores it; stored is false when another sweeper stored one first (or
	// the record is gone), and then the class is not to be counted. An
	// error means nothing was stored.
	ClassifyCandidate(ctx context.Context, c presence.Candidate) (presence.CandidateClass, bool, error)
}

// Repairer re-checks rooms a departing request may have left active and
// empty (once per run, before its first pass).
type Repairer interface {
	// RepairEmptyActive re-checks rooms that may have been left active with
	// an empty roster since since (looking at up to limit candidates) and
	// starts their grace; it reports how many and how far it looked.
	// A room whose check fails is marked for a later look rather than
	// holding the report back; the first such failure is returned with the
	// report, which counts them in Failed.
	RepairEmptyActive(ctx context.Context, since time.Time, limit int) (presence.RepairReport, error)
	// RepairWatermark returns how far re-checks have looked, as saved by
	// the latest RepairEmptyActive, or the zero time. An error means it
	// could not be read; the sweeper then looks back its own lookback.
	RepairWatermark(ctx context.Context) (time.Time, error)
}

// DeadlineFinder tells the sweeper when to wake for its next pass.
type DeadlineFinder interface {
	// NextDeadline returns the earliest lease end, typing expiry or
	// cleanupAfter (with unreportedOnly, of unreported rooms only), or the
	// zero time when nothing is scheduled. On an error the sweeper waits
	// its longest pause.
	NextDeadline(ctx context.Context, unreportedOnly bool) (time.Time, error)
}

// StatusWriter keeps the latest run's summary for operators.
type StatusWriter interface {
	// WriteSweepStatus stores the latest run's summary at
	// roomlease/sweepStatus. An error is logged, never fatal: the run's
	// summary line is already written.
	WriteSweepStatus(ctx context.Context, summary map[string]any) error
}
