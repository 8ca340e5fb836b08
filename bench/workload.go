package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"
)

// WorkloadConfig describes one load run against a running API.
type WorkloadConfig struct {
	Name       string
	RoomPrefix string // room ids are RoomPrefix-0 … RoomPrefix-(Rooms-1)
	Rooms      int
	PerRoom    int     // users per room at the start
	TwoTabs    float64 // fraction of users that open a second session (tab)
	// Steady is a phase without churn after all joins: heartbeats (and room
	// reads) only. Listener deliveries per heartbeat are measured here.
	Steady time.Duration
	// Churn is a phase of random events, drawn at every heartbeat tick of
	// every user with these probabilities.
	Churn            time.Duration
	CrashProb        float64 // the whole user crashes (all tabs stop, no leave)
	LeaveProb        float64 // the user leaves gracefully (all tabs), later rejoins
	TabToggleProb    float64 // open a second tab, or close it gracefully
	TabCrashProb     float64 // the second tab crashes (the user stays listed)
	RoomSwitchProb   float64 // a rejoin goes to another room
	ReconnectEarly   float64 // fraction of crashes that reconnect before the lease ends (new generation)
	ReadEveryTicks   int     // each user reads its room every N ticks (0: never)
	Grace            time.Duration
	Drain            bool          // at the end everyone departs: leave (even rooms) or crash (odd rooms)
	DrainWait        time.Duration // how long to wait for the rooms' teardown
	JoinConcurrency  int
	JoinAttempts     int  // per tab, on 5xx or transport errors; default 5
	AllowNoJoin      bool // report a run in which every join failed (a burst) instead of failing
	UserConcurrency  int  // sign-ups in parallel
	Seed             uint64
	ListenerProject  string // project the API writes to
	AuthHost         string
	ServerPID        int // sampled for memory when non-zero
	RSSInterval      time.Duration
	ProgressInterval time.Duration
	Progress         func(string)
}

// WorkloadReport is what a run measured.
type WorkloadReport struct {
	Name            string               `json:"name"`
	Rooms           int                  `json:"rooms"`
	Users           int                  `json:"users"`
	HeartbeatSecs   float64              `json:"heartbeatSeconds"`
	LeaseSecs       float64              `json:"leaseSeconds"`
	GraceSecs       float64              `json:"graceSeconds"`
	ElapsedSecs     float64              `json:"elapsedSeconds"`
	Ops             map[Op]OpReport      `json:"ops"`
	Steady          SteadyReport         `json:"steady"`
	GhostTime       Summary              `json:"ghostTime"`
	GhostBeyond     Summary              `json:"ghostBeyondLease"`
	LeaveVisible    Summary              `json:"leaveVisible"`
	LeaveDrain      Summary              `json:"leaveVisibleAllAtOnce"`
	TeardownLag     Summary              `json:"teardownLag"`
	TeardownLeave   Summary              `json:"teardownLagAfterLeave"`
	TeardownExpiry  Summary              `json:"teardownLagAfterExpiry"`
	RoomsDeleted    int64                `json:"roomsDeleted"`
	RoomsLeft       int                  `json:"roomsNotTornDown"`
	TeardownNoCause int64                `json:"teardownsWithoutObservedDeparture"`
	Events          map[string]int64     `json:"events"`
	FalseRemovals   int64                `json:"falseRemovals"`
	FalseDetails    []string             `json:"falseRemovalDetails,omitempty"`
	LateExpiries    int64                `json:"heartbeatsRejectedAfterLeaseEnd"`
	ListenerErrors  int64                `json:"listenerErrors"`
	Memory          *MemoryReport        `json:"serverMemory,omitempty"`
	Samples         map[string][]float64 `json:"-"`
}

// SteadyReport is the no-churn phase: heartbeats and what listeners saw.
type SteadyReport struct {
	Seconds              float64 `json:"seconds"`
	Heartbeats           int64   `json:"heartbeats"`
	RosterDeliveries     int64   `json:"rosterListenerDeliveries"`
	RosterDocReads       int64   `json:"rosterListenerDocReads"`
	RoomDocDeliveries    int64   `json:"roomDocListenerDeliveries"`
	DeliveriesPerHB      float64 `json:"rosterDeliveriesPerHeartbeat"`
	RoomDeliveriesPerHB  float64 `json:"roomDocDeliveriesPerHeartbeat"`
	HeartbeatsPerSecond  float64 `json:"heartbeatsPerSecond"`
	HeartbeatLatency     Summary `json:"heartbeatLatency"`
	HeartbeatErrorsOther int64   `json:"heartbeatErrors"`
}

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
	state     sessState
}

type simUser struct {
	uid, token string
	mu         sync.Mutex
	room       string
	sessions   map[string]*session // by room + "/" + sid
	tabs       []string            // session ids in use in room
	tabSeq     int
	crashedAt  time.Time // whole-user crash not yet observed
	crashRoom  string
	crashDrain bool      // a crash at the end of a run, at a random point of the interval
	leftAt     time.Time // graceful leave of the last tab, not yet observed
	leftRoom   string
	leftDrain  bool
}

// Workload runs one WorkloadConfig.
type Workload struct {
	cfg    WorkloadConfig
	api    *API
	client *firestore.Client
	users  map[string]*simUser
	rooms  map[string]*roomWatch

	hbNanos, leaseNanos atomic.Int64
	churning            atomic.Bool
	draining            atomic.Bool
	steadyHB            atomic.Int64
	steadyHBErr         atomic.Int64
	steadyLat           Dist

	ghost, ghostBeyond, leaveVisible, leaveVisibleDrain             Dist
	teardownLag, teardownAfterLeave, teardownAfterExpiry            Dist
	roomsDeleted, teardownUnattributed, falseRemovals, lateExpiries atomic.Int64
	listenerErrors                                                  atomic.Int64
	evMu                                                            sync.Mutex
	events                                                          map[string]int64
	falseDetails                                                    []string
}

// NewWorkload prepares a run against the API at baseURL, watching through
// client (a Firestore client on the API's project).
func NewWorkload(cfg WorkloadConfig, baseURL string, client *firestore.Client) *Workload {
	if cfg.JoinConcurrency == 0 {
		cfg.JoinConcurrency = 32
	}
	if cfg.UserConcurrency == 0 {
		cfg.UserConcurrency = 16
	}
	if cfg.RSSInterval == 0 {
		cfg.RSSInterval = 2 * time.Second
	}
	if cfg.Progress == nil {
		cfg.Progress = func(string) {}
	}
	return &Workload{cfg: cfg, api: NewAPI(baseURL), client: client, users: map[string]*simUser{},
		rooms: map[string]*roomWatch{}, events: map[string]int64{}}
}

func (w *Workload) event(name string) {
	w.evMu.Lock()
	w.events[name]++
	w.evMu.Unlock()
}

func (w *Workload) falseRemoval(format string, args ...any) {
	w.falseRemovals.Add(1)
	w.evMu.Lock()
	if len(w.falseDetails) < 20 {
		w.falseDetails = append(w.falseDetails, fmt.Sprintf(format, args...))
	}
	w.evMu.Unlock()
}

func (w *Workload) roomID(i int) string { return fmt.Sprintf("%s-%d", w.cfg.RoomPrefix, i) }

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

// Run executes the workload and returns its report.
func (w *Workload) Run(ctx context.Context) (*WorkloadReport, error) {
	cfg := w.cfg
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	start := time.Now()
	var rss *RSSSampler
	if cfg.ServerPID != 0 {
		rss = SampleRSS(cfg.ServerPID, cfg.RSSInterval)
	}

	// Users and their tokens.
	n := cfg.Rooms * cfg.PerRoom
	users := make([]*simUser, n)
	hc := &http.Client{Timeout: 30 * time.Second}
	sem := make(chan struct{}, cfg.UserConcurrency)
	var wg sync.WaitGroup
	var signErr atomic.Value
	for i := range users {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			uid, tok, err := SignUp(ctx, hc, cfg.AuthHost)
			if err != nil {
				signErr.Store(err)
				return
			}
			users[i] = &simUser{uid: uid, token: tok, room: w.roomID(i % cfg.Rooms), sessions: map[string]*session{}}
		}(i)
	}
	wg.Wait()
	if err, _ := signErr.Load().(error); err != nil {
		return nil, err
	}
	for _, u := range users {
		w.users[u.uid] = u
	}
	cfg.Progress(fmt.Sprintf("%s: %d users signed up in %.1fs", cfg.Name, n, time.Since(start).Seconds()))

	// Listeners on every room, ready before the first join.
	lctx, stopListeners := context.WithCancel(context.Background())
	defer stopListeners()
	var ready sync.WaitGroup
	for i := range cfg.Rooms {
		rw := &roomWatch{id: w.roomID(i), w: w, members: map[string]bool{}}
		w.rooms[rw.id] = rw
		ready.Add(2)
		go rw.run(lctx, w.client, &ready)
	}
	ready.Wait()

	// Joins: every user joins its room, with a second tab for some.
	jsem := make(chan struct{}, cfg.JoinConcurrency)
	for i, u := range users {
		tabs := 1
		if rng.Float64() < cfg.TwoTabs {
			tabs = 2
		}
		_ = i
		for range tabs {
			u.tabSeq++
			u.tabs = append(u.tabs, fmt.Sprintf("tab-%d", u.tabSeq))
		}
	}
	// Each user joins (all its tabs) and starts heartbeating at once, as a
	// client does; joins are limited to JoinConcurrency at a time.
	joinStart := time.Now()
	runCtx, stopUsers := context.WithCancel(ctx)
	defer stopUsers()
	var uwg sync.WaitGroup
	for i, u := range users {
		wg.Add(1)
		uwg.Add(1)
		seed := cfg.Seed + uint64(i)*7919
		go func(u *simUser) {
			defer uwg.Done()
			jsem <- struct{}{}
			for _, sid := range u.tabs {
				w.joinTab(ctx, u, u.room, sid)
			}
			<-jsem
			wg.Done()
			w.runUser(runCtx, u, rand.New(rand.NewPCG(seed, seed+1)))
		}(u)
	}
	wg.Wait()
	if w.hb() == 0 {
		stopUsers()
		if cfg.AllowNoJoin {
			uwg.Wait()
			stopListeners()
			return &WorkloadReport{Name: cfg.Name, Rooms: cfg.Rooms, Users: n, ElapsedSecs: time.Since(start).Seconds(), Ops: w.api.Reports(time.Since(start))}, nil
		}
		return nil, fmt.Errorf("%s: no join succeeded (%v)", cfg.Name, w.api.Reports(time.Second)[OpJoin].Codes)
	}
	cfg.Progress(fmt.Sprintf("%s: joins done in %.1fs; heartbeat %v, lease %v", cfg.Name, time.Since(joinStart).Seconds(), w.hb(), w.leaseD()))

	// Steady phase: after a breath for the joins' deliveries to land.
	var steady SteadyReport
	if cfg.Steady > 0 {
		sleepCtx(ctx, time.Second)
		s0, d0, r0 := w.listenerTotals()
		hb0 := w.api.stats[OpHeartbeat].latency.Values()
		w.steadyHB.Store(0)
		w.steadyHBErr.Store(0)
		t0 := time.Now()
		sleepCtx(ctx, cfg.Steady)
		s1, d1, r1 := w.listenerTotals()
		hb1 := w.api.stats[OpHeartbeat].latency.Values()
		steady = SteadyReport{Seconds: time.Since(t0).Seconds(), Heartbeats: w.steadyHB.Load(),
			RosterDeliveries: s1 - s0, RosterDocReads: d1 - d0, RoomDocDeliveries: r1 - r0,
			HeartbeatErrorsOther: w.steadyHBErr.Load(), HeartbeatLatency: Summarize(hb1[len(hb0):])}
		steady.DeliveriesPerHB = Ratio(float64(steady.RosterDeliveries), float64(steady.Heartbeats))
		steady.RoomDeliveriesPerHB = Ratio(float64(steady.RoomDocDeliveries), float64(steady.Heartbeats))
		steady.HeartbeatsPerSecond = Ratio(float64(steady.Heartbeats), steady.Seconds)
		cfg.Progress(fmt.Sprintf("%s: steady %.0fs: %d heartbeats, %d roster deliveries", cfg.Name, steady.Seconds, steady.Heartbeats, steady.RosterDeliveries))
	}

	// Churn phase.
	if cfg.Churn > 0 {
		w.churning.Store(true)
		end := time.Now().Add(cfg.Churn)
		for time.Now().Before(end) && ctx.Err() == nil {
			step := min(time.Until(end), max(cfg.ProgressInterval, time.Second))
			if cfg.ProgressInterval == 0 {
				step = time.Until(end)
			}
			sleepCtx(ctx, step)
			if cfg.ProgressInterval > 0 {
				r := w.api.Reports(time.Since(start))
				cfg.Progress(fmt.Sprintf("%s: %.0fs left; hb ok %d 5xx %d; false removals %d; ghosts %d; teardowns %d",
					cfg.Name, time.Until(end).Seconds(), r[OpHeartbeat].OK, r[OpHeartbeat].Server5xx+r[OpJoin].Server5xx+r[OpLeave].Server5xx+r[OpRead].Server5xx,
					w.falseRemovals.Load(), len(w.ghost.Values()), w.roomsDeleted.Load()))
			}
		}
		w.churning.Store(false)
	}

	// Drain: everyone departs; wait for the rooms to go.
	if cfg.Drain {
		w.draining.Store(true)
	}
	stopUsers()
	uwg.Wait()
	roomsLeft := 0
	if cfg.Drain {
		deadline := time.Now().Add(cfg.DrainWait)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			roomsLeft = w.roomsAlive()
			if roomsLeft == 0 {
				break
			}
			sleepCtx(ctx, 250*time.Millisecond)
		}
		sleepCtx(ctx, 500*time.Millisecond) // let teardownSeen attribute the last ones
	}
	stopListeners()
	elapsed := time.Since(start)

	rep := &WorkloadReport{Name: cfg.Name, Rooms: cfg.Rooms, Users: n, HeartbeatSecs: w.hb().Seconds(), LeaseSecs: w.leaseD().Seconds(),
		GraceSecs: cfg.Grace.Seconds(), ElapsedSecs: elapsed.Seconds(), Ops: w.api.Reports(elapsed), Steady: steady,
		GhostTime: w.ghost.Summary(), GhostBeyond: w.ghostBeyond.Summary(), LeaveVisible: w.leaveVisible.Summary(), LeaveDrain: w.leaveVisibleDrain.Summary(),
		TeardownLag: w.teardownLag.Summary(), TeardownLeave: w.teardownAfterLeave.Summary(), TeardownExpiry: w.teardownAfterExpiry.Summary(),
		RoomsDeleted: w.roomsDeleted.Load(), RoomsLeft: roomsLeft, TeardownNoCause: w.teardownUnattributed.Load(),
		FalseRemovals: w.falseRemovals.Load(), LateExpiries: w.lateExpiries.Load(), ListenerErrors: w.listenerErrors.Load(),
		Samples: map[string][]float64{"ghost": w.ghost.Values(), "teardown": w.teardownLag.Values(), "leaveVisible": w.leaveVisible.Values()}}
	w.evMu.Lock()
	rep.Events = w.events
	rep.FalseDetails = w.falseDetails
	w.evMu.Unlock()
	if rss != nil {
		m := rss.Stop()
		rep.Memory = &m
	}
	return rep, nil
}

func (w *Workload) roomsAlive() int {
	n := 0
	for _, rw := range w.rooms {
		rw.mu.Lock()
		if rw.everExisted {
			n++
		}
		rw.mu.Unlock()
	}
	return n
}

func (w *Workload) listenerTotals() (snaps, changes, roomSnaps int64) {
	for _, rw := range w.rooms {
		a, b, c := rw.counts()
		snaps, changes, roomSnaps = snaps+a, changes+b, roomSnaps+c
	}
	return
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
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
			u.sessions[roomID+"/"+sid] = &session{room: roomID, sid: sid, gen: jr.Generation, deadline: jr.LeaseExpiresAt, state: sLive}
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
		sleepCtx(ctx, time.Duration(200*(attempt+1))*time.Millisecond)
	}
	return false
}

func (w *Workload) liveTabs(u *simUser) []*session {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []*session
	for _, sid := range u.tabs {
		if s := u.sessions[u.room+"/"+sid]; s != nil && s.state == sLive {
			out = append(out, s)
		}
	}
	return out
}

func (w *Workload) heartbeatTab(ctx context.Context, u *simUser, s *session) {
	u.mu.Lock()
	gen, prev := s.gen, s.deadline
	u.mu.Unlock()
	r, deadline := w.api.Heartbeat(ctx, u.token, s.room, s.sid, gen)
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
			s.deadline = deadline
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
		sleepCtx(ctx, 50*time.Millisecond)
	}
	// Spread the first heartbeats over one interval.
	sleepCtx(ctx, time.Duration(rng.Int64N(int64(w.hb()))))
	tick := 0
	for ctx.Err() == nil {
		tickStart := time.Now()
		tick++
		for _, s := range w.liveTabs(u) {
			w.heartbeatTab(ctx, u, s)
		}
		// Events come right after a heartbeat: a crash then leaves a full
		// lease to run out, the worst case for ghost time.
		if w.churning.Load() {
			if w.churnEvent(ctx, u, rng) {
				continue
			}
		}
		if cfg.ReadEveryTicks > 0 && tick%cfg.ReadEveryTicks == 0 && len(w.liveTabs(u)) > 0 {
			w.api.Read(ctx, u.token, u.room)
		}
		sleepCtx(ctx, w.hb()-time.Since(tickStart))
	}
	if w.draining.Load() {
		w.depart(u, w.drainByCrash(u.room))
	}
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
		sleepCtx(ctx, off)
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
		sleepCtx(ctx, time.Second+time.Duration(rng.Float64()*float64(cfg.Grace)*1.2))
		w.rejoin(ctx, u, rng)
		return true
	case x < cfg.CrashProb+cfg.LeaveProb+cfg.TabToggleProb:
		tabs := w.liveTabs(u)
		switch len(tabs) {
		case 1:
			u.mu.Lock()
			u.tabSeq++
			sid := fmt.Sprintf("tab-%d", u.tabSeq)
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
		sleepCtx(ctx, 100*time.Millisecond)
	}
	if ctx.Err() == nil {
		w.event("crashRemovalNotSeenInTime")
	}
}

func (w *Workload) hb() time.Duration     { return time.Duration(w.hbNanos.Load()) }
func (w *Workload) leaseD() time.Duration { return time.Duration(w.leaseNanos.Load()) }
