package workload

// What the run records as the listeners and the API calls report it.

import (
	"fmt"
	"time"
)

// event counts one occurrence of name for the report's Events.
func (w *Workload) event(name string) {
	w.evMu.Lock()
	w.events[name]++
	w.evMu.Unlock()
}

// falseRemoval records a participant removed while one of its leases was
// still live: the failure the design must never show. The first 20 are kept
// word for word for the report.
func (w *Workload) falseRemoval(format string, args ...any) {
	w.falseRemovals.Add(1)
	w.evMu.Lock()
	if len(w.falseDetails) < 20 {
		w.falseDetails = append(w.falseDetails, fmt.Sprintf(format, args...))
	}
	w.evMu.Unlock()
}

// observeRemoval is called by a roster listener that saw uid leave roomID at
// now. It checks the removal against what the user knows of its sessions and
// returns the departure it reflects (a leave's send time, or the lease end).
func (w *Workload) observeRemoval(roomID, uid string, now time.Time) (time.Time, bool) {
	u := w.users[uid]
	if u == nil {
		return time.Time{}, false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var latest time.Time
	for _, s := range u.sessions {
		if s.room != roomID || s.state == sLeft {
			continue
		}
		if s.deadline.After(now) {
			w.falseRemoval("roster listener: %s removed from %s at %s while session %s gen %d holds a lease until %s",
				uid, roomID, now.Format(time.StampMilli), s.sid, s.gen, s.deadline.Format(time.StampMilli))
		}
		if s.deadline.After(latest) {
			latest = s.deadline
		}
	}
	switch {
	case !u.crashedAt.IsZero() && u.crashRoom == roomID:
		if !u.crashDrain {
			w.ghost.Add(now.Sub(u.crashedAt))
		}
		w.ghostBeyond.Add(now.Sub(latest))
		u.crashedAt = time.Time{}
		return latest, true
	case !u.leftAt.IsZero() && u.leftRoom == roomID:
		if u.leftDrain {
			w.leaveVisibleDrain.Add(now.Sub(u.leftAt))
		} else {
			w.leaveVisible.Add(now.Sub(u.leftAt))
		}
		at := u.leftAt
		u.leftAt = time.Time{}
		return at, false
	default:
		w.event("removedByExpiryOther")
		return latest, true
	}
}
