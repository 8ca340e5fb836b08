package presence

import "time"

// Renew decides a heartbeat at now for the stored session s (nil if absent).
// It returns the renewed session, which is the only document a heartbeat
// writes. Returns EStaleGeneration if the session is gone, belongs to another
// generation, or its lease has already ended: an ended lease is evidence of
// absence that the sweeper may already be acting on, so it is never revived;
// the client joins again and gets a new generation.
func (s Settings) Renew(now time.Time, stored *Session, ref SessionRef) (Session, error) {
	switch {
	case stored == nil:
		return Session{}, Errorf(EStaleGeneration, "no such session; join again")
	case stored.Generation != ref.Generation:
		return Session{}, Errorf(EStaleGeneration, "the session has generation %d, not %d; join again", stored.Generation, ref.Generation)
	case !stored.Live(now):
		return Session{}, Errorf(EStaleGeneration, "the lease ended at %s; join again", stored.LeaseExpiresAt.UTC().Format(time.RFC3339Nano))
	}
	renewed := *stored
	renewed.LeaseExpiresAt = now.Add(s.Lease)
	renewed.ExpireAt = renewed.LeaseExpiresAt.Add(s.SessionRetention)
	return renewed, nil
}
