package presence

// A cap that holds for a crowd. A join that adds a roster entry first
// writes a claim on a place, a document of its own, and then reads, at one
// snapshot taken after that write committed, the room's entries and the
// other joins' claims. A claim goes when its join commits its entry (in
// that commit) or gives up. The store makes that argument; this is the
// decision it rests on.

// ClaimVerdict is what a join that holds a claim does next.
type ClaimVerdict int

const (
	// ClaimAdmits: entries and every other claim fit under the cap with
	// this one, whatever the other claimants do.
	ClaimAdmits ClaimVerdict = iota
	// ClaimRefused: the entries and the claims ahead of this one already
	// fill the cap.
	ClaimRefused
	// ClaimWaits: the entries and the claims ahead leave a place, but the
	// claims behind would take the room over the cap if all were
	// admitted. Those behind see this one ahead of them, so they are
	// refused first, or wait; this one looks again once some have gone.
	ClaimWaits
)

// JudgeClaim decides a join that holds a claim, from a snapshot at or after
// the time the claim was written: entries on the roster, others claims
// besides this one, and ahead of them before this one in the claims' order
// (any order every join sees alike; ahead < 0 when not counted, which
// never refuses).
//
// Why it is exact: suppose more than the cap's entries were admitted this
// way, and take the one whose snapshot is the latest. Each of the others
// wrote its claim no later than its own snapshot, so no later than this
// one's, and kept it until its entry committed: at this one's snapshot,
// each was an entry or a claim. So this one saw at least a cap's worth of
// others and would not have been admitted. Claims of joins that will be
// refused only make a join wait or refuse: never admit too many.
func (s Settings) JudgeClaim(entries, others, ahead int, p *Policy) ClaimVerdict {
	limit := s.roomCap(p)
	switch {
	case entries+others < limit:
		return ClaimAdmits
	case ahead >= 0 && entries+ahead >= limit:
		return ClaimRefused
	default:
		return ClaimWaits
	}
}
