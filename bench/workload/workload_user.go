package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

type sessState int

const (
	sLive sessState = iota
	sCrashed
	sLeft
)

type session struct {
	room, sid string
	gen       int64
	deadline  time.Time
	// renewAt and leaseToken are the server's last word on when to
	// heartbeat and with what; a zero renewAt (a server that sends none)
	// means at every tick of the heartbeat interval.
	renewAt    time.Time
	leaseToken string
	state      sessState
}

type simUser struct {
	uid, token string
	mu         sync.Mutex
	room       string
	sessions   map[string]*session // by TabKey(room, sid)
	tabs       []string            // session ids in use in room
	tabSeq     int
	crashedAt  time.Time // whole-user crash not yet observed
	crashRoom  string
	crashDrain bool      // a crash at the end of a run, at a random point of the interval
	leftAt     time.Time // graceful leave of the last tab, not yet observed
	leftRoom   string
	leftDrain  bool
}

// joinTab joins sid of u into roomID, retrying on 5xx/409 transients, and
// records the session. It reports success.
func (w *Workload) joinTab(ctx context.Context, u *simUser, roomID, sid string) bool {
	attempts := w.cfg.JoinAttempts
	if attempts == 0 {
		attempts = 5
	}
	for attempt := 0; attempt < attempts && ctx.Err() == nil; attempt++ {
		r, jr := w.api.Join(ctx, u.token, roomID, sid, u.uid[:6])
		if r.Status == 200 {
			u.mu.Lock()
			u.sessions[TabKey(roomID, sid)] = &session{room: roomID, sid: sid, gen: jr.Generation, deadline: jr.LeaseExpiresAt,
				renewAt: jr.RenewAt, leaseToken: jr.LeaseToken, state: sLive}
			if u.crashRoom == roomID {
				u.crashedAt = time.Time{}
			}
			if u.leftRoom == roomID {
				u.leftAt = time.Time{}
			}
			u.mu.Unlock()
			w.leaseNanos.CompareAndSwap(0, int64(jr.Lease*float64(time.Second)))
			w.hbNanos.CompareAndSwap(0, int64(jr.Heartbeat*float64(time.Second)))
			return true
		}
		w.event(fmt.Sprintf("joinFailed %d %s", r.Status, r.Code))
		if r.Status >= 400 && r.Status < 500 && r.Code != "unavailable" {
			return false
		}
		SleepCtx(ctx, time.Duration(200*(attempt+1))*time.Millisecond)
	}
	return false
}

func (w *Workload) liveTabs(u *simUser) []*session {
	u.mu.Lock()
	defer u.mu.Unlock()
	return OpenTabs(u.sessions, u.room, u.tabs, func(s *session) bool { return s.state == sLive })
}

// NextTab advances a user's tab counter and returns the new tab's session
// id ("tab-N").
func NextTab(seq *int) string {
	*seq++
	return fmt.Sprintf("tab-%d", *seq)
}

// TabKey is a session's key among a simulated user's sessions: the room
// and the session id, since one tab's id is reused in every room it joins.
func TabKey(room, sid string) string { return room + "/" + sid }

// OpenTabs returns the sessions, in the order of tabs, of the tabs open in
// room whose session keep accepts; sessions are keyed by TabKey. The
// workload's users and the chaos run's keep their tabs this way.
func OpenTabs[S any](sessions map[string]*S, room string, tabs []string, keep func(*S) bool) []*S {
	var out []*S
	for _, sid := range tabs {
		if s := sessions[TabKey(room, sid)]; s != nil && keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func (w *Workload) heartbeatTab(ctx context.Context, u *simUser, s *session) {
	u.mu.Lock()
	gen, prev, leaseToken := s.gen, s.deadline, s.leaseToken
	u.mu.Unlock()
	r, beat := w.api.Renew(ctx, u.token, s.room, s.sid, gen, leaseToken)
	if !w.churning.Load() && !w.draining.Load() {
		w.steadyHB.Add(1)
		if r.Status != 200 {
			w.steadyHBErr.Add(1)
		}
	}
	switch {
	case r.Status == 200:
		u.mu.Lock()
		if s.gen == gen {
			s.deadline, s.renewAt = beat.LeaseExpiresAt, beat.RenewAt
			if beat.LeaseToken != "" {
				s.leaseToken = beat.LeaseToken
			}
		}
		u.mu.Unlock()
	case r.Status == 409:
		if r.Done.Before(prev) {
			w.falseRemoval("heartbeat: %s/%s/%s gen %d answered 409 at %s, lease ran until %s",
				s.room, u.uid, s.sid, gen, r.Done.Format(time.StampMilli), prev.Format(time.StampMilli))
		} else {
			w.lateExpiries.Add(1)
		}
		// The client joins again, as the API tells it to.
		w.event("rejoinAfter409")
		w.joinTab(ctx, u, s.room, s.sid)
	}
}

// runUser heartbeats u's tabs at the heartbeat interval and, in the churn
// phase, draws events.
func (w *Workload) runUser(ctx context.Context, u *simUser, rng *rand.Rand) {
	cfg := w.cfg
	for w.hb() == 0 {
		if ctx.Err() != nil {
			return
		}
		SleepCtx(ctx, 50*time.Millisecond)
	}
	// Spread the first heartbeats over one interval.
	SleepCtx(ctx, time.Duration(rng.Int64N(int64(w.hb()))))
	tick := 0
	nextTick := time.Now()
	for ctx.Err() == nil {
		now := time.Now()
		ticked := !now.Before(nextTick)
		for _, s := range w.liveTabs(u) {
			if w.heartbeatDue(u, s, now, ticked) {
				w.heartbeatTab(ctx, u, s)
			}
		}
		if ticked {
			tick++
			nextTick = nextTick.Add(w.hb())
			// Events come on the tick, right after any heartbeat due: a
			// crash then leaves at least the lease's renewal margin to run
			// out.
			if w.churning.Load() {
				if w.churnEvent(ctx, u, rng) {
					nextTick = time.Now()
					continue
				}
			}
			if cfg.ReadEveryTicks > 0 && tick%cfg.ReadEveryTicks == 0 && len(w.liveTabs(u)) > 0 {
				w.api.Read(ctx, u.token, u.room)
			}
		}
		SleepCtx(ctx, time.Until(w.wakeAt(u, nextTick)))
	}
	if w.draining.Load() {
		w.depart(u, w.drainByCrash(u.room))
	}
}

// heartbeatDue says whether s heartbeats now: at its renewAt, as the
// clients do, or on every tick for a server that sends no renewAt.
func (w *Workload) heartbeatDue(u *simUser, s *session, now time.Time, ticked bool) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if s.renewAt.IsZero() {
		return ticked
	}
	return !now.Before(s.renewAt)
}

// wakeAt is when u's loop has something to do next: its next tick or the
// earliest renewAt of its tabs.
func (w *Workload) wakeAt(u *simUser, nextTick time.Time) time.Time {
	at := nextTick
	for _, s := range w.liveTabs(u) {
		u.mu.Lock()
		if !s.renewAt.IsZero() && s.renewAt.Before(at) {
			at = s.renewAt
		}
		u.mu.Unlock()
	}
	return at
}

func (w *Workload) drainByCrash(roomID string) bool {
	var i int
	fmt.Sscanf(roomID[len(w.cfg.RoomPrefix)+1:], "%d", &i)
	return i%2 == 1
}

// depart makes u leave (or crash out of) its room with every tab, at the end
// of a run.
func (w *Workload) depart(u *simUser, crash bool) {
	tabs := w.liveTabs(u)
	if len(tabs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if crash {
		w.crash(u)
		return
	}
	w.leaveAll(ctx, u)
}

func (w *Workload) crash(u *simUser) {
	u.mu.Lock()
	defer u.mu.Unlock()
	any := false
	for _, s := range u.sessions {
		if s.room == u.room && s.state == sLive {
			s.state = sCrashed
			any = true
		}
	}
	if any {
		u.crashedAt, u.crashRoom, u.crashDrain = time.Now(), u.room, w.draining.Load()
	}
	w.event("crash")
}

func (w *Workload) leaveAll(ctx context.Context, u *simUser) {
	tabs := w.liveTabs(u)
	for i, s := range tabs {
		u.mu.Lock()
		s.state = sLeft
		last := i == len(tabs)-1
		// Another tab (crashed, lease still running) keeps the user listed.
		for _, o := range u.sessions {
			if o.room == u.room && o.state == sCrashed && o.deadline.After(time.Now()) {
				last = false
			}
		}
		if last {
			u.leftAt, u.leftRoom, u.leftDrain = time.Now(), u.room, w.draining.Load()
		}
		gen := s.gen
		u.mu.Unlock()
		w.api.Leave(ctx, u.token, s.room, s.sid, gen)
	}
	w.event("leave")
}

// churnEvent draws this tick's event; it returns true if it consumed the
// tick (the user is back and should heartbeat from a fresh tick).
func (w *Workload) churnEvent(ctx context.Context, u *simUser, rng *rand.Rand) bool {
	cfg := w.cfg
	x := rng.Float64()
	switch {
	case x < cfg.CrashProb:
		if len(w.liveTabs(u)) == 0 {
			return false
		}
		w.crash(u)
		var off time.Duration
		if rng.Float64() < cfg.ReconnectEarly {
			off = time.Duration(float64(w.leaseD()) * (0.2 + 0.5*rng.Float64()))
			w.event("reconnectBeforeLeaseEnd")
		} else {
			off = w.leaseD() + 2*time.Second + time.Duration(rng.Float64()*float64(cfg.Grace+5*time.Second))
			w.event("reconnectAfterLeaseEnd")
		}
		SleepCtx(ctx, off)
		if off > w.leaseD() {
			w.awaitGhostSeen(ctx, u)
		}
		w.rejoin(ctx, u, rng)
		return true
	case x < cfg.CrashProb+cfg.LeaveProb:
		if len(w.liveTabs(u)) == 0 {
			return false
		}
		w.leaveAll(ctx, u)
		SleepCtx(ctx, time.Second+time.Duration(rng.Float64()*float64(cfg.Grace)*1.2))
		w.rejoin(ctx, u, rng)
		return true
	case x < cfg.CrashProb+cfg.LeaveProb+cfg.TabToggleProb:
		tabs := w.liveTabs(u)
		switch len(tabs) {
		case 1:
			u.mu.Lock()
			sid := NextTab(&u.tabSeq)
			u.tabs = append(u.tabs, sid)
			room := u.room
			u.mu.Unlock()
			w.joinTab(ctx, u, room, sid)
			w.event("secondTabOpened")
		case 2:
			s := tabs[1]
			u.mu.Lock()
			s.state = sLeft
			gen := s.gen
			u.tabs = u.tabs[:1]
			u.mu.Unlock()
			w.api.Leave(ctx, u.token, s.room, s.sid, gen)
			w.event("secondTabClosed")
		}
	case x < cfg.CrashProb+cfg.LeaveProb+cfg.TabToggleProb+cfg.TabCrashProb:
		tabs := w.liveTabs(u)
		if len(tabs) == 2 {
			u.mu.Lock()
			tabs[1].state = sCrashed
			u.tabs = u.tabs[:1]
			u.mu.Unlock()
			w.event("secondTabCrashed")
		}
	}
	return false
}

// rejoin brings u back after a crash or leave: the same tab ids (a crashed
// client reconnecting keeps its session id and gets a new generation),
// possibly in another room.
func (w *Workload) rejoin(ctx context.Context, u *simUser, rng *rand.Rand) {
	if ctx.Err() != nil {
		return
	}
	u.mu.Lock()
	if rng.Float64() < w.cfg.RoomSwitchProb {
		u.room = w.roomID(rng.IntN(w.cfg.Rooms))
	}
	room, tabs := u.room, append([]string(nil), u.tabs...)
	u.mu.Unlock()
	for _, sid := range tabs {
		w.joinTab(ctx, u, room, sid)
	}
	w.event("rejoin")
}

// awaitGhostSeen waits (bounded) until a listener has seen u's crash, so
// that a reconnect does not hide a slow removal from the ghost-time sample.
func (w *Workload) awaitGhostSeen(ctx context.Context, u *simUser) {
	limit := time.Now().Add(w.leaseD() + w.cfg.Grace + 30*time.Second)
	for time.Now().Before(limit) && ctx.Err() == nil {
		u.mu.Lock()
		seen := u.crashedAt.IsZero()
		u.mu.Unlock()
		if seen {
			return
		}
		SleepCtx(ctx, 100*time.Millisecond)
	}
	if ctx.Err() == nil {
		w.event("crashRemovalNotSeenInTime")
	}
}
