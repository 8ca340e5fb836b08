package presence

import (
	"math"
	"time"
)

// Renew decides a heartbeat at now for the stored session s (nil if absent).
// It returns the session as it stands after the heartbeat, and whether that
// must be written: a heartbeat that finds more than RenewWhenLeft of the
// lease left changes nothing anyone needs yet, so it answers with the
// current lease end and writes nothing (see RenewWithin for why a client on
// schedule still never sees its lease end). A crash right after such a
// heartbeat ends at the last renewal's lease end, which is earlier than a
// renewal would have made it, so skipping never lengthens ghost time.
//
// Returns EStaleGeneration if the session is gone, belongs to another
// generation, or its lease has already ended: an ended lease is evidence of
// absence that the sweeper may already be acting on, so it is never revived;
// the client joins again and gets a new generation. These checks come before
// the skip, so a skipped heartbeat is refused exactly when a renewing one
// would be.
//
// An away session (see Settings.ForMode) is judged with the away lease and
// heartbeat interval, by the same rules.
func (s Settings) Renew(now time.Time, stored *Session, ref SessionRef) (sess Session, write bool, err error) {
	if err := checkHolder(now, stored, ref); err != nil {
		return Session{}, false, err
	}
	m := s.ForMode(stored.Away)
	if stored.Remaining(now) > m.RenewWithin() {
		return *stored, false, nil
	}
	return s.extend(now, *stored), true, nil
}

// extend returns sess with a fresh lease of its mode from now.
func (s Settings) extend(now time.Time, sess Session) Session {
	sess.LeaseExpiresAt = leaseEnd(now, s.ForMode(sess.Away).Lease)
	sess.ExpireAt = sess.LeaseExpiresAt.Add(s.SessionRetention)
	return sess
}

// leaseEnd is the end of a lease of length d granted at now, cut to the
// microsecond. Firestore keeps timestamps to the microsecond, so a lease
// answered to the nanosecond would end, as stored and as the sweeper
// judges it, up to a microsecond before the end its holder was promised:
// a live lease removed (the model test found it once its clocks moved by
// sub-microsecond steps). Cutting it here makes the answer, the lease
// token and the stored document agree.
func leaseEnd(now time.Time, d time.Duration) time.Time {
	return now.Add(d).Truncate(time.Microsecond)
}

// checkHolder returns EStaleGeneration unless stored is ref's session, of
// ref's generation, with a lease live at now: what every request acting
// for a session must hold.
func checkHolder(now time.Time, stored *Session, ref SessionRef) error {
	switch {
	case stored == nil:
		return Errorf(EStaleGeneration, "no such session; join again")
	case stored.Generation != ref.Generation:
		return Errorf(EStaleGeneration, "the session has generation %d, not %d; join again", stored.Generation, ref.Generation)
	case !stored.Live(now):
		return Errorf(EStaleGeneration, "the lease ended at %s; join again", stored.LeaseExpiresAt.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// RenewWithin is how much of the lease may at most be left for a heartbeat
// to renew it: RenewWhenLeft × Lease. A heartbeat that finds more left
// writes nothing.
//
// Why a client that heartbeats on schedule never sees its lease end, given
// Validate's RenewWithin ≥ Heartbeat (write W for RenewWithin, H for
// Heartbeat, L for Lease, E for the lease end the last write set at t0, so
// E = t0 + L; "on schedule" means the server decides the client's
// heartbeats at most H apart, the first at most H after t0):
//
//  1. A heartbeat that skips found E − t > W > 0: live, by definition.
//  2. The first heartbeat after t0, at t1 ≤ t0 + H, finds E − t1 ≥ L − H,
//     and L ≥ 2H (Validate), so E − t1 ≥ H > 0: live.
//  3. Any later heartbeat that renews, at t_k, follows one at t_{k−1} that
//     skipped, so E − t_{k−1} > W, and E − t_k ≥ E − t_{k−1} − H > W − H ≥ 0:
//     live.
//
// So every heartbeat finds the lease live, and the renewing one sets a new E
// from which the argument starts again. What skipping costs is slack: a
// renewing heartbeat may arrive late (or be retried after a network error)
// by as much as it found left, which is more than W − H at worst, against
// L − H when every heartbeat renews. The JavaScript and Go clients retry a
// failed heartbeat within half a second; a lost renewing heartbeat with no
// retry before the lease end ends the lease where renewing every time would
// not have, so an operator who cannot rely on retries sets RenewWhenLeft
// to 1 or raises it until W ≥ 2H.
func (s Settings) RenewWithin() time.Duration {
	// Rounded, so that the default 1/3 of 15 s is exactly 5 s, not a
	// nanosecond short of the heartbeat interval Validate compares it with.
	return time.Duration(math.Round(s.RenewWhenLeft * float64(s.Lease)))
}

// RenewAt is when a client should next heartbeat the session sess, as it
// stands after a join or heartbeat: when RenewWithin of its lease is left,
// the first instant a heartbeat renews, but never sooner than one heartbeat
// interval after the lease was last renewed (an away session, whose every
// heartbeat renews, comes back after the away interval). A client that
// comes then sends one request and one write per renewal; one that comes
// earlier is still answered, as before, by a read that writes nothing.
func (s Settings) RenewAt(sess Session) time.Time {
	m := s.ForMode(sess.Away)
	within := min(m.RenewWithin(), m.Lease-m.Heartbeat)
	return sess.LeaseExpiresAt.Add(-within)
}

// Grant is what the holder of a lease is told after a join, a heartbeat
// or a typing signal: the lease's end, when to renew it, its mode, and a
// token for the next renewal ("" when the deployment has no token key).
type Grant struct {
	LeaseExpiresAt time.Time
	RenewAt        time.Time
	Away           bool
	Token          string
}

// RenewFenced decides a heartbeat at now of the session a lease token
// describes (claimed: what the server last wrote to it, as the token says),
// for the fast path: the store then writes the renewal on the condition
// that the session is still exactly what the token describes, so claimed
// stands for a read of it. It reports false, and the store takes the read
// path, whenever that path could answer differently or must read more: a
// token of another generation, a lease ended at now, a heartbeat early
// enough that the read path would write nothing (one read is cheaper than
// one write), or a TTL refresh due (RefreshDue reads the room and entry).
//
// The lease end is judged against this instance's clock, as the read path
// judges it: with the condition holding, claimed.LeaseExpiresAt is the
// stored value, so both paths decide on the same inputs and no skew margin
// is needed beyond what the read path already lives with.
func (s Settings) RenewFenced(now time.Time, claimed Session, ref SessionRef) (Session, bool) {
	renewed, write, err := s.Renew(now, &claimed, ref)
	if err != nil || !write || s.RefreshDue(now, claimed) {
		return Session{}, false
	}
	return renewed, true
}
