package presence

import "time"

// Away: a browser throttles timers in a hidden tab to about once a minute,
// and a mobile OS suspends a backgrounded app, so with a 15 s lease such a
// participant drops out and comes back again and again. A session that says
// it is away (a hidden page, a backgrounded app) gets a longer lease
// (Settings.AwayLease) and heartbeat interval (AwayHeartbeat) instead: it
// stays listed, as away, and costs fewer writes. The price is ghost time:
// a device that dies while away is listed, as away, until its away lease
// ends.
//
// A roster entry is away when every live session of its user is away: one
// foreground tab is enough to be present. A change of that is a visible
// change; a tab going away while another stays present changes nothing
// anyone sees.

// ForMode returns the settings that govern a session that is away or not:
// with the away lease and heartbeat interval in Lease and Heartbeat when
// away, so that the renewal rules (Renew, RenewWithin) apply unchanged.
// An away session renews on every heartbeat (RenewWhenLeft 1): they come
// rarely, and with the away lease at least twice the away interval, every
// one finds the lease live.
func (s Settings) ForMode(away bool) Settings {
	if away {
		s.Lease, s.Heartbeat, s.RenewWhenLeft = s.AwayLease, s.AwayHeartbeat, 1
	}
	return s
}

// allAway reports whether every session in sessions whose lease is live at
// now is away, and there is at least one.
func allAway(now time.Time, sessions []Session) bool {
	live := 0
	for _, sess := range sessions {
		if !sess.Live(now) {
			continue
		}
		if !sess.Away {
			return false
		}
		live++
	}
	return live > 0
}

// AwayRequest is a heartbeat that says whether its session is away.
type AwayRequest struct {
	SessionRef
	Away bool
	// Allowance is asked, by the store, when the toggle would change the
	// roster's away (a chosen change): refused, the heartbeat renews the
	// lease in the mode in force, as a heartbeat of that mode would, and
	// the toggle waits for a later heartbeat. A heartbeat is never refused
	// for its flag: that would end a live lease.
	Allowance Allowance
}

// AwayPlan is what a heartbeat that changes its session's away flag writes.
type AwayPlan struct {
	Session Session
	// Participant is written, a visible change, when WriteParticipant is
	// set: the user's away as the roster shows it, or their session count,
	// changed.
	Participant      Participant
	WriteParticipant bool
	// ExpiredSiblings are the user's other sessions whose leases had ended
	// at now: the recount leaves them out, so the heartbeat deletes them,
	// as a departure does (see ExpiredSiblings).
	ExpiredSiblings []string
	// ChosenChange says the roster's away changes: a chosen change (see
	// Allowance), which waits when the user's allowance is spent.
	ChosenChange bool
}

// PlanAway decides a heartbeat at now that says its session is away or
// back, given the user's entry and sessions (st, as a departure reads
// them). The session takes the flag and a fresh lease of its new mode; the
// entry's away and session count are recounted over the user's live
// sessions, which are judged as a departure judges them: a sibling whose
// lease has ended at now is left out and deleted (ExpiredSiblings).
// Otherwise a foreground tab whose renewal, from an instance whose clock
// is behind, lands after this commit would be live under an entry that
// says away. Returns EStaleGeneration as Renew does.
func (s Settings) PlanAway(now time.Time, st DepartureState, ref SessionRef, away bool) (AwayPlan, error) {
	if err := checkHolder(now, st.Session, ref); err != nil {
		return AwayPlan{}, err
	}
	if st.Participant == nil {
		return AwayPlan{}, Errorf(EStaleGeneration, "you are no longer on the roster; join again")
	}
	sess := *st.Session
	sess.Away = away
	sess.LeaseExpiresAt = leaseEnd(now, s.ForMode(away).Lease)
	sess.ExpireAt = sess.LeaseExpiresAt.Add(s.SessionRetention)
	p := AwayPlan{Session: sess, Participant: *st.Participant}
	sessions := withSession(st.Sessions, sess)
	p.ExpiredSiblings = ExpiredSiblings(now, sessions, sess.ID)
	count, a := liveOthers(now, sessions, sess.ID)+1, allAway(now, sessions)
	p.ChosenChange = a != p.Participant.Away
	if a != p.Participant.Away || count != p.Participant.SessionCount {
		p.Participant.Away, p.Participant.SessionCount = a, count
		p.Participant.ExpireAt = now.Add(s.RecordHorizon)
		p.WriteParticipant = true
	}
	return p, nil
}
