package presence

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// Rolling teardown out on evidence: a deterministic slice of rooms is torn
// down, the rest observed; every room the check would tear down, in either
// slice, becomes a Candidate; after its window the sweeper classifies it
// (ClassifyCandidate) from what the room's documents then show.

// FullShare is the enforced share, in basis points, that covers every room.
const FullShare = 10000

// SliceBucket is room's place in [0, FullShare): the first eight bytes of the
// SHA-256 of its id, modulo FullShare. It depends on the id alone, so a room
// keeps its bucket on every instance, pass and lifetime.
func SliceBucket(roomID string) int {
	sum := sha256.Sum256([]byte(roomID))
	return int(binary.BigEndian.Uint64(sum[:8]) % FullShare)
}

// InEnforcedSlice reports whether room is torn down at an enforced share of
// share basis points (0 none, FullShare all). A room is in the slice when its
// bucket is below the share, so at a fixed share a room's treatment never
// flips, and raising the share only adds rooms.
func InEnforcedSlice(roomID string, share int) bool { return SliceBucket(roomID) < share }

// Candidate is the record of one room the authoritative check would tear
// down (observed slice) or did (enforced slice), kept at
// teardownCandidates/{id} until TTL removes it. It holds no uid: what it
// knows of the room's participants is the room's own state (generation,
// lifetime, emptiness) at the check.
type Candidate struct {
	RoomID       string
	CreatedAt    time.Time // the room lifetime's creation: tells lifetimes apart
	Generation   int64
	EmptySince   time.Time
	CleanupAfter time.Time
	// LiveLeases is what the check counted: 0, or it would not be a
	// candidate. Kept as evidence, beside the classification that checks it.
	LiveLeases int
	CheckedAt  time.Time // the check's transaction time: the candidate's time
	Enforced   bool      // in the enforced slice: the room was torn down
	// ClassifyAfter is CheckedAt + the reconnect window: when the sweeper
	// classifies it. Zero once classified.
	ClassifyAfter time.Time
	Class         CandidateClass // "" until classified
	ClassifiedAt  time.Time
	ExpireAt      time.Time // TTL backstop
}

// CandidateRetention is how long a candidate record is kept after its
// window, for an operator to look at (TTL then removes it): a week covers the
// two days with peak traffic the switch criterion asks for.
const CandidateRetention = 7 * 24 * time.Hour

// NewCandidate is the candidate record of room, found by the check at now
// with liveLeases live leases, in the enforced slice or not.
func (s Settings) NewCandidate(now time.Time, room Room, liveLeases int, enforced bool) Candidate {
	after := now.Add(s.ReconnectWindow)
	return Candidate{RoomID: room.ID, CreatedAt: room.CreatedAt, Generation: room.Generation,
		EmptySince: room.EmptySince, CleanupAfter: room.CleanupAfter, LiveLeases: liveLeases,
		CheckedAt: now, Enforced: enforced, ClassifyAfter: after, ExpireAt: after.Add(CandidateRetention)}
}

// windowEnd is the end of the candidate's reconnect window (CheckedAt,
// CheckedAt+w].
func (c Candidate) windowEnd(w time.Duration) time.Time { return c.CheckedAt.Add(w) }

// CandidateClass is what became of a candidate.
type CandidateClass string

const (
	// Confirmed: the room stayed empty through the window; tearing it down
	// was right.
	Confirmed CandidateClass = "confirmed"
	// ReconnectAfterCandidate: the room was joined within the window;
	// enforcement breaks (broke) that reconnect into a fresh room.
	ReconnectAfterCandidate CandidateClass = "reconnect"
	// Violation: a session of the room held a live lease at the candidate's
	// time. The proof of absence was wrong; this must never happen.
	Violation CandidateClass = "violation"
)

// LeaseTrace is what the classification reads of one session document of
// the room: no uid, no session id.
type LeaseTrace struct {
	Generation     int64
	LeaseExpiresAt time.Time
}

// CandidateEvidence is what the room's documents show, when the window is
// over, about what followed a candidate.
type CandidateEvidence struct {
	// Room is rooms/{roomId} as read now, of whichever lifetime; nil if none.
	Room *Room
	// Closing is the closing record of the candidate's own lifetime, if
	// that lifetime was torn down (at the check, in the enforced slice, or
	// later); nil otherwise.
	Closing *Closing
	// ClosedLifetimeOpened says a lifetime of the room that was opened
	// within the window has since been torn down (a closing record with
	// OpenedAt in the window).
	ClosedLifetimeOpened bool
	// Leases are the room's session documents whose lease ends after the
	// candidate's time.
	Leases []LeaseTrace
}

// ClassifyCandidate decides what became of c, given the evidence read after
// its window w (a candidate's time t is CheckedAt; the window is (t, t+w]).
//
// Why uid-free evidence suffices:
//
//   - A session becomes live only through a join, and a join into a
//     suspected_empty room must first revive it, which advances the room's
//     generation (the fencing TearDown rests on). A heartbeat never revives
//     an ended lease: a participant of the candidate's lifetime whose
//     session heartbeats after its lease ended gets 409 and joins again. So
//     whatever a returning participant does after t lands, in the observed
//     slice, as a revive of the same lifetime (same CreatedAt, a higher
//     generation), and in the enforced slice as a new lifetime (CreatedAt
//     after t). A join by someone who never was in the room lands the same
//     way: the count is an upper bound on broken reconnects, which errs
//     toward not enforcing.
//   - When the revive happened is bounded from above by every later trace
//     of the lifetime: the room's updatedAt (each lifecycle write sets it),
//     its emptySince if it emptied again, and the generation of any session
//     joined since (a generation is its join's time in microseconds, or
//     more). If the bound is inside the window, the join was. A room that is
//     active one generation on has been written once since t, by the revive,
//     so its updatedAt is the revive's time exactly. Otherwise, a revive
//     whose time the documents no longer pin down is counted as a
//     reconnect: again the cautious side.
//   - A session issued at or before t (generation ≤ t in microseconds) whose
//     lease ends after t held a live lease at t: renewals only extend a live
//     lease and never revive an ended one, so its lease was live from its
//     join to its current end. Likewise, in a lifetime whose generation did
//     not move, a departure after t (emptySince after t) removed a roster
//     entry that no join could have added after t without a revive, so the
//     room was not empty at t. Either is a violation.
//
// Not guaranteed: evidence that TTL or a purge removed before the window
// ended (a violating session that expired and was deleted shows only
// through the emptySince it moved); and clocks: generations come from the
// joining instance's clock, t from the sweeper's, so a skew of a few
// milliseconds blurs the window's edges by as much.
func ClassifyCandidate(c Candidate, w time.Duration, ev CandidateEvidence) CandidateClass {
	t, end := c.CheckedAt, c.windowEnd(w)
	tMicros := t.UnixMicro()
	for _, l := range ev.Leases {
		if l.Generation <= tMicros && l.LeaseExpiresAt.After(t) {
			return Violation
		}
	}
	sameLifetime := ev.Room != nil && ev.Room.CreatedAt.Equal(c.CreatedAt)
	if sameLifetime && ev.Room.Generation == c.Generation && ev.Room.EmptySince.After(t) {
		return Violation
	}
	if ev.Closing != nil && ev.Closing.Generation == c.Generation && ev.Closing.EmptySince.After(t) {
		return Violation
	}
	inWindow := func(at time.Time) bool { return at.After(t) && !at.After(end) }

	// A later lifetime opened within the window: someone came back to a
	// room that was (or had been) torn down.
	if ev.ClosedLifetimeOpened || (ev.Room != nil && !sameLifetime && inWindow(ev.Room.CreatedAt)) {
		return ReconnectAfterCandidate
	}
	// The candidate's lifetime revived after t: as it stands now, or as its
	// closing recorded it.
	var revived bool
	var bound time.Time
	exact := false
	switch {
	case sameLifetime && ev.Room.Generation > c.Generation:
		revived, bound = true, ev.Room.UpdatedAt
		exact = ev.Room.State == StateActive && ev.Room.Generation == c.Generation+1
		bound = earliestAfter(t, bound, ev.Room.EmptySince)
	case !sameLifetime && ev.Closing != nil && ev.Closing.Generation > c.Generation:
		revived, bound = true, ev.Closing.EmptySince
	}
	if !revived {
		return Confirmed
	}
	for _, l := range ev.Leases {
		if l.Generation > tMicros {
			bound = earliestAfter(t, bound, time.UnixMicro(l.Generation))
		}
	}
	if !bound.After(end) || !exact {
		return ReconnectAfterCandidate
	}
	return Confirmed
}

// earliestAfter is the earlier of a and b, ignoring either if it is not
// after t (a zero time, a trace from before the candidate).
func earliestAfter(t, a, b time.Time) time.Time {
	switch {
	case !b.After(t):
		return a
	case !a.After(t) || b.Before(a):
		return b
	}
	return a
}
