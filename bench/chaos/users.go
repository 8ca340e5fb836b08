package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	"github.com/roomlease/roomlease/bench/workload"
)

// A chaos user is a client of the API in the manner of the real clients
// (client.Session, @roomlease/client): it heartbeats each of its tabs on
// schedule, retries a failed request on another process while its lease
// lasts, joins again after a 409, and now and then crashes, leaves, opens
// or closes a second tab. Each request goes to a random process that is
// not down (chaosProcs.pick), as Cloud Functions spreads one client's
// requests over its instances.

type chaosSessState int

const (
	sessNone    chaosSessState = iota // never joined, or the join failed: no claim
	sessJoining                       // a join is under way: no claim yet
	sessLive                          // heartbeating
	sessCrashed                       // stopped without leaving: the lease runs out
	sessLeft                          // the client left (or began to): no claim
)

// chaosSession is one session of one user in one room, as its client sees
// it. The same (room, session id) is reused across rejoins, so that the
// doubt left by an unanswered join carries over to the next generation.
type chaosSession struct {
	room, sid      string
	state          chaosSessState
	gen            int64
	since          time.Time // the join answer that issued gen
	until          time.Time // the lease end the latest answer for gen gave
	doubt          time.Time // an unanswered join of this session may commit until then
	doubtful       bool      // gen was issued while such a join was outstanding
	leaseMovedBack int       // answers for gen that moved the lease end back (should stay 0)
}

// joined records a join answered 200: sent is when the request left, done
// when its answer came. The generation is doubtful if an earlier join of
// this session, whose answer never came, may still commit after this one.
func (s *chaosSession) joined(gen int64, sent, done, until time.Time) {
	s.gen, s.since, s.until, s.state = gen, done, until, sessLive
	s.doubtful = s.doubt.After(sent)
}

// unanswered records a join whose outcome the client never learned and
// that may commit until then.
func (s *chaosSession) unanswered(until time.Time) {
	if until.After(s.doubt) {
		s.doubt = until
	}
}

// renewed records a heartbeat for gen, sent at sent, answered 200 with
// lease end until. A heartbeat sent when no unanswered join can commit any
// more, that finds gen still current, ends the doubt about gen: nothing can
// supersede it now but the client's own next join.
func (s *chaosSession) renewed(gen int64, sent, until time.Time) {
	if s.gen != gen {
		return
	}
	if sent.After(s.doubt) {
		s.doubtful = false
	}
	if until.Before(s.until) {
		s.leaseMovedBack++
		return
	}
	s.until = until
}

// held is the session as a lease the client claims, if it claims one.
func (s *chaosSession) held(uid string) (heldLease, bool) {
	if (s.state != sessLive && s.state != sessCrashed) || s.gen == 0 {
		return heldLease{}, false
	}
	return heldLease{UID: uid, Room: s.room, Session: s.sid, Gen: s.gen, Since: s.since, Until: s.until, Doubtful: s.doubtful}, true
}

type chaosUser struct {
	idx        int
	uid, token string
	rng        *rand.Rand

	// op serializes what changes a session (joins, leaves, crashes)
	// between the user's two loops: two joins of one session in flight
	// at once would leave the client unsure which generation is current.
	op sync.Mutex

	mu       sync.Mutex
	room     string
	tabs     []string // session ids of the tabs open in room
	tabSeq   int
	sessions map[string]*chaosSession // by workload.TabKey(room, session id)
	trail    []string                 // the latest requests and events, for a violation's report
}

const trailLength = 80

// note appends to u's trail; the caller holds no lock.
func (u *chaosUser) note(format string, args ...any) {
	line := time.Now().Format("15:04:05.000") + " " + fmt.Sprintf(format, args...)
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.trail) >= trailLength {
		u.trail = append(u.trail[:0], u.trail[1:]...)
	}
	u.trail = append(u.trail, line)
}

func (u *chaosUser) trailCopy() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.trail...)
}

// session returns u's session sid in room, creating it; u.mu is held.
func (u *chaosUser) session(room, sid string) *chaosSession {
	k := workload.TabKey(room, sid)
	s := u.sessions[k]
	if s == nil {
		s = &chaosSession{room: room, sid: sid}
		u.sessions[k] = s
	}
	return s
}

// tabsIn returns u's tabs open in its room whose session is in state; u.mu
// is held.
func (u *chaosUser) tabsIn(state chaosSessState) []*chaosSession {
	return workload.OpenTabs(u.sessions, u.room, u.tabs, func(s *chaosSession) bool { return s.state == state })
}

func (u *chaosUser) liveTabs() []*chaosSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tabsIn(sessLive)
}

// tabsWithout lists the tabs open in u's room whose join gave up.
func (u *chaosUser) tabsWithout() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, s := range u.tabsIn(sessNone) {
		out = append(out, s.sid)
	}
	return out
}

func (u *chaosUser) currentRoom() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.room
}

// ambiguous reports whether a request may have taken effect although no
// answer says so: it timed out, its connection broke after it was sent,
// or the server answered 5xx (a commit may precede a deadline). A refused
// connection never reached a process.
func ambiguous(r workload.Result) bool {
	if r.Err != nil {
		return !errors.Is(r.Err, syscall.ECONNREFUSED)
	}
	return r.Status >= 500
}

// answered reports whether r is an answer the client acts on as final:
// any status below 500.
func answered(r workload.Result) bool { return r.Err == nil && r.Status < 500 }

// describe is a trail entry's account of one attempt: the process, its
// outcome, and how long it took.
func describe(r workload.Result, slot *chaosSlot, pid int) string {
	return fmt.Sprintf("p%d/pid %d: %s in %s", slot.idx, pid, r.Outcome(), r.Done.Sub(r.Sent).Round(time.Millisecond))
}

// attempt counts one request attempt and its outcome.
func (c *chaosRun) attempt(op workload.Op, r workload.Result, retry bool) {
	if retry {
		c.event("retries")
	}
	c.event(fmt.Sprintf("%s attempts", op))
	switch {
	case r.Err != nil && errors.Is(r.Err, syscall.ECONNREFUSED):
		c.event(fmt.Sprintf("%s refused (process down)", op))
	case r.Err != nil:
		c.event(fmt.Sprintf("%s %s", op, r.Outcome()))
	case r.Status != 200:
		c.event(fmt.Sprintf("%s %d %s", op, r.Status, r.Code))
	}
	if r.Err == nil {
		c.latency[op].Add(r.Done.Sub(r.Sent))
	}
}

// joinSession joins sid of u into room, trying process after process until
// an answer below 500 or JoinBudget. It reports success.
func (c *chaosRun) joinSession(ctx context.Context, u *chaosUser, room, sid string) bool {
	u.op.Lock()
	defer u.op.Unlock()
	u.mu.Lock()
	s := u.session(room, sid)
	s.state = sessJoining
	u.mu.Unlock()
	avoid := -1
	deadline := time.Now().Add(c.cfg.JoinBudget)
	for attempt := 0; ctx.Err() == nil && time.Now().Before(deadline); attempt++ {
		if attempt > 0 {
			workload.SleepCtx(ctx, 200*time.Millisecond)
		}
		slot, srv := c.procs.pick(avoid)
		pid := srv.ProcessID()
		actx, cancel := context.WithTimeout(ctx, c.cfg.JoinTimeout)
		r, jr := slot.api.Join(actx, u.token, room, sid, u.uid[:6])
		cancel()
		c.attempt(workload.OpJoin, r, attempt > 0)
		if r.Status == 200 {
			u.mu.Lock()
			s.joined(jr.Generation, r.Sent, r.Done, jr.LeaseExpiresAt)
			doubtful := s.doubtful
			u.mu.Unlock()
			u.note("join %s/%s %s → gen %d until %s (doubtful %v)", room, sid, describe(r, slot, pid), jr.Generation, jr.LeaseExpiresAt.Format("15:04:05.000"), doubtful)
			c.event("joins")
			if jr.Database != "" && jr.Database != c.database {
				c.event("joins naming another database than the checks read")
			}
			return true
		}
		u.note("join %s/%s %s", room, sid, describe(r, slot, pid))
		if answered(r) {
			break
		}
		if ambiguous(r) {
			// A live process (slow, or frozen) may still commit the join
			// until the server's bound on a request has passed, counted
			// from when it gets to it. A dead one can no longer: what it
			// had sent to the emulator before it died lands within
			// moments, for which a lease is ample.
			until := r.Sent.Add(c.cfg.AmbiguityWindow)
			if srv != nil && srv.Exited() {
				until = time.Now().Add(c.cfg.Lease)
				c.event("joins unanswered by a process that died")
			}
			u.mu.Lock()
			s.unanswered(until)
			u.mu.Unlock()
			c.event("joins unanswered")
		}
		avoid = slot.idx
	}
	u.mu.Lock()
	if s.state == sessJoining {
		s.state = sessNone
	}
	u.mu.Unlock()
	c.event("joins given up")
	return false
}

// heartbeat renews s, retrying on other processes until its lease ends. A
// 409 is judged (classify409) and answered by joining again.
func (c *chaosRun) heartbeat(ctx context.Context, u *chaosUser, s *chaosSession) {
	u.mu.Lock()
	held, ok := s.held(u.uid)
	u.mu.Unlock()
	if !ok {
		return
	}
	avoid := -1
	for attempt := 0; ctx.Err() == nil; attempt++ {
		if attempt > 0 {
			if !time.Now().Before(held.Until) {
				c.event("heartbeats given up at the lease end")
				return
			}
			workload.SleepCtx(ctx, 100*time.Millisecond)
			u.mu.Lock()
			current := s.gen == held.Gen && s.state == sessLive
			u.mu.Unlock()
			if !current {
				return // crashed, left or joined again meanwhile
			}
		}
		slot, srv := c.procs.pick(avoid)
		pid := srv.ProcessID()
		actx, cancel := context.WithTimeout(ctx, heartbeatAttemptTimeout(c.cfg.HeartbeatTimeout, time.Until(held.Until)))
		r, until := slot.api.Heartbeat(actx, u.token, s.room, s.sid, held.Gen)
		cancel()
		c.attempt(workload.OpHeartbeat, r, attempt > 0)
		switch {
		case r.Status == 200:
			u.mu.Lock()
			s.renewed(held.Gen, r.Sent, until)
			u.mu.Unlock()
			u.note("heartbeat %s/%s gen %d %s → until %s", s.room, s.sid, held.Gen, describe(r, slot, pid), until.Format("15:04:05.000"))
			c.event("heartbeats")
			c.heartbeatAnswered(r.Done)
			return
		case r.Status == 409:
			u.note("heartbeat %s/%s gen %d %s (lease held until %s)", s.room, s.sid, held.Gen, describe(r, slot, pid), held.Until.Format("15:04:05.000"))
			c.on409(ctx, u, s, held, r, slot, pid)
			return
		case answered(r):
			u.note("heartbeat %s/%s gen %d %s", s.room, s.sid, held.Gen, describe(r, slot, pid))
			return
		}
		u.note("heartbeat %s/%s gen %d %s", s.room, s.sid, held.Gen, describe(r, slot, pid))
		avoid = slot.idx
	}
}

// heartbeatAttemptTimeout bounds one heartbeat attempt: at most half of
// what is left of the lease (but 300 ms at least), so that an attempt
// stuck on a frozen process leaves time to try another before the lease
// ends, and never more than limit.
func heartbeatAttemptTimeout(limit, left time.Duration) time.Duration {
	return min(limit, max(300*time.Millisecond, left/2))
}

// on409 judges a heartbeat's 409 and joins again, as the API asks. A 409
// to a session the client left, or joined again, while the heartbeat was
// in flight is the client's own doing: neither judged nor answered. One
// to a session that crashed meanwhile is judged (a crash writes nothing)
// but not answered: the crashed tab is gone.
func (c *chaosRun) on409(ctx context.Context, u *chaosUser, s *chaosSession, held heldLease, r workload.Result, slot *chaosSlot, pid int) {
	u.mu.Lock()
	own := s.gen != held.Gen || (s.state != sessLive && s.state != sessCrashed)
	crashed := s.state == sessCrashed
	u.mu.Unlock()
	if own {
		c.event("409s after the client's own leave or join")
		return
	}
	v := classify409(held, r.Done, c.cfg.Tolerance)
	c.event("409 " + string(v))
	if v != late409 {
		v := Violation{Kind: violation409, At: r.Done.Format(time.RFC3339Nano), Room: held.Room, UID: held.UID, Session: held.Session,
			Generation: held.Gen, Process: slot.idx, PID: pid,
			Detail: fmt.Sprintf("heartbeat sent %s, answered 409 %s at %s; the lease of generation %d ran until %s by the answer of %s",
				r.Sent.Format("15:04:05.000"), r.Code, r.Done.Format("15:04:05.000"), held.Gen, held.Until.Format("15:04:05.000"), held.Since.Format("15:04:05.000"))}
		if held.Doubtful {
			v.Kind = excused409
			v.Detail += "; a join of this session sent earlier was never answered and may have superseded it"
		}
		c.report(ctx, u, v)
	}
	if crashed {
		return
	}
	c.event("rejoins after 409")
	c.joinSession(ctx, u, s.room, s.sid)
}

// leave leaves s, on up to four processes; the client gives up its claim
// before it sends.
func (c *chaosRun) leave(ctx context.Context, u *chaosUser, s *chaosSession) {
	u.op.Lock()
	defer u.op.Unlock()
	u.mu.Lock()
	gen := s.gen
	live := s.state == sessLive
	s.state = sessLeft
	u.mu.Unlock()
	if !live {
		return
	}
	avoid := -1
	for attempt := 0; attempt < 4 && ctx.Err() == nil; attempt++ {
		if attempt > 0 {
			workload.SleepCtx(ctx, 200*time.Millisecond)
		}
		slot, srv := c.procs.pick(avoid)
		pid := srv.ProcessID()
		actx, cancel := context.WithTimeout(ctx, c.cfg.LeaveTimeout)
		r := slot.api.Leave(actx, u.token, s.room, s.sid, gen)
		cancel()
		c.attempt(workload.OpLeave, r, attempt > 0)
		u.note("leave %s/%s gen %d %s", s.room, s.sid, gen, describe(r, slot, pid))
		if r.Status == 200 {
			c.event("leaves")
			return
		}
		if answered(r) {
			return
		}
		avoid = slot.idx
	}
	c.event("leaves given up")
}

// crash stops u's live tabs in its room without leaving.
func (c *chaosRun) crash(u *chaosUser) {
	u.op.Lock()
	defer u.op.Unlock()
	u.mu.Lock()
	live := u.tabsIn(sessLive)
	for _, s := range live {
		s.state = sessCrashed
	}
	n := len(live)
	u.mu.Unlock()
	if n > 0 {
		u.note("crash: %d tab(s) in %s", n, u.room)
		c.event("crashes")
	}
}

func (c *chaosRun) leaveAll(ctx context.Context, u *chaosUser) {
	for _, s := range u.liveTabs() {
		c.leave(ctx, u, s)
	}
}

// runUser is one user's client: it joins, then heartbeats its live tabs
// every interval in a loop of its own (heartbeatLoop), as each tab of a
// real client does whatever else the page is doing, and, while churning,
// draws an event every interval. When loop ends the user departs, by leave
// or by crash (half each).
func (c *chaosRun) runUser(ctx, loop context.Context, u *chaosUser) {
	u.mu.Lock()
	room, tabs := u.room, append([]string(nil), u.tabs...)
	u.mu.Unlock()
	for _, sid := range tabs {
		c.joinSession(ctx, u, room, sid)
	}
	beating := make(chan struct{})
	go func() { defer close(beating); c.heartbeatLoop(ctx, loop, u) }()
	workload.SleepCtx(loop, time.Duration(u.rng.Int64N(int64(c.cfg.Heartbeat))))
	for loop.Err() == nil {
		tick := time.Now()
		if c.churning.Load() {
			c.churnEvent(ctx, loop, u)
		}
		workload.SleepCtx(loop, c.cfg.Heartbeat-time.Since(tick))
	}
	<-beating
	if u.idx%2 == 0 {
		c.leaveAll(ctx, u)
		c.event("drain leaves")
	} else {
		c.crash(u)
		c.event("drain crashes")
	}
}

// heartbeatLoop heartbeats u's live tabs every interval until loop ends,
// the users spread over the interval. A tab whose join (or rejoin after a
// 409) gave up joins again, as a client's heartbeat loop does after a
// failure.
func (c *chaosRun) heartbeatLoop(ctx, loop context.Context, u *chaosUser) {
	workload.SleepCtx(loop, c.cfg.Heartbeat*time.Duration(u.idx)/time.Duration(max(len(c.users), 1)))
	for loop.Err() == nil {
		tick := time.Now()
		for _, s := range u.liveTabs() {
			c.heartbeat(ctx, u, s)
		}
		for _, sid := range u.tabsWithout() {
			c.event("joins retried next tick")
			c.joinSession(ctx, u, u.currentRoom(), sid)
		}
		workload.SleepCtx(loop, c.cfg.Heartbeat-time.Since(tick))
	}
}

// churnEvent draws this tick's event.
func (c *chaosRun) churnEvent(ctx, loop context.Context, u *chaosUser) {
	cfg := c.cfg
	x := u.rng.Float64()
	switch {
	case x < cfg.CrashProb:
		if len(u.liveTabs()) == 0 {
			return
		}
		c.crash(u)
		var away time.Duration
		if u.rng.Float64() < cfg.ReconnectEarly {
			away = time.Duration(float64(cfg.Lease) * (0.2 + 0.5*u.rng.Float64()))
		} else {
			away = cfg.Lease + time.Second + time.Duration(u.rng.Float64()*float64(cfg.Grace+cfg.Lease))
		}
		workload.SleepCtx(loop, away)
		c.rejoin(ctx, loop, u)
	case x < cfg.CrashProb+cfg.LeaveProb:
		if len(u.liveTabs()) == 0 {
			return
		}
		c.leaveAll(ctx, u)
		workload.SleepCtx(loop, 500*time.Millisecond+time.Duration(u.rng.Float64()*1.5*float64(cfg.Grace)))
		c.rejoin(ctx, loop, u)
	case x < cfg.CrashProb+cfg.LeaveProb+cfg.TabToggleProb:
		tabs := u.liveTabs()
		switch len(tabs) {
		case 1:
			u.mu.Lock()
			sid := workload.NextTab(&u.tabSeq)
			u.tabs = append(u.tabs, sid)
			room := u.room
			u.mu.Unlock()
			c.event("second tabs opened")
			c.joinSession(ctx, u, room, sid)
		case 2:
			u.mu.Lock()
			u.tabs = u.tabs[:1]
			u.mu.Unlock()
			c.event("second tabs closed")
			c.leave(ctx, u, tabs[1])
		}
	case x < cfg.CrashProb+cfg.LeaveProb+cfg.TabToggleProb+cfg.TabCrashProb:
		u.op.Lock()
		tabs := u.liveTabs()
		if len(tabs) == 2 {
			u.mu.Lock()
			tabs[1].state = sessCrashed
			u.tabs = u.tabs[:1]
			u.mu.Unlock()
		}
		u.op.Unlock()
		if len(tabs) == 2 {
			u.note("crash: second tab %s", tabs[1].sid)
			c.event("second tabs crashed")
		}
	}
}

// rejoin brings u back after a crash or a leave with the same tab ids (a
// reconnect keeps its session id and gets a new generation), sometimes in
// another room.
func (c *chaosRun) rejoin(ctx, loop context.Context, u *chaosUser) {
	if loop.Err() != nil {
		return
	}
	u.mu.Lock()
	if u.rng.Float64() < c.cfg.RoomSwitchProb {
		u.room = c.rooms[u.rng.IntN(len(c.rooms))]
	}
	room, tabs := u.room, append([]string(nil), u.tabs...)
	u.mu.Unlock()
	for _, sid := range tabs {
		c.joinSession(ctx, u, room, sid)
	}
	c.event("rejoins")
}

// beliefs lists the leases every user claims in room.
func (c *chaosRun) beliefs(room string) []heldLease {
	var out []heldLease
	for _, u := range c.users {
		u.mu.Lock()
		for _, s := range u.sessions {
			if s.room != room {
				continue
			}
			if l, ok := s.held(u.uid); ok {
				out = append(out, l)
			}
		}
		u.mu.Unlock()
	}
	return out
}
