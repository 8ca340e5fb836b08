package workload

import (
	"context"
	"fmt"
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
	ServerPID        int // sampled for memory and CPU time when non-zero
	RSSInterval      time.Duration
	ProgressInterval time.Duration
	Progress         func(string)
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

func (w *Workload) roomID(i int) string { return fmt.Sprintf("%s-%d", w.cfg.RoomPrefix, i) }

// Run executes the workload and returns its report. Its phases, in order:
//
//  1. sign up every user at the Auth emulator;
//  2. attach listeners to every room, before anyone joins;
//  3. open each user's tabs, join them, and start each user's client loop
//     (heartbeats; churn events while the churn phase lasts);
//  4. steady: heartbeats only, to measure what they cost listeners;
//  5. churn: crashes, leaves, rejoins and tab changes;
//  6. drain: stop the users (everyone departs when Drain is set) and wait
//     for the rooms' teardown;
//  7. report what the listeners and the API calls measured.
func (w *Workload) Run(ctx context.Context) (*WorkloadReport, error) {
	cfg := w.cfg
	start := time.Now()
	var rss *RSSSampler
	cpuStart := -1.0
	if cfg.ServerPID != 0 {
		rss = SampleRSS(cfg.ServerPID, cfg.RSSInterval)
		if s, err := ReadCPUSeconds(cfg.ServerPID); err == nil {
			cpuStart = s
		}
	}
	users, err := w.signUpUsers(ctx, start)
	if err != nil {
		return nil, err
	}
	stopListeners := w.watchRooms()
	defer stopListeners()
	w.openTabs(users)
	joinStart := time.Now()
	loops := w.joinAndStartUsers(ctx, users)
	defer loops.stop()
	if w.hb() == 0 {
		// No join succeeded, so the server never announced its heartbeat
		// interval and there is nothing to run.
		loops.stop()
		if cfg.AllowNoJoin {
			loops.done.Wait()
			stopListeners()
			return &WorkloadReport{Name: cfg.Name, Rooms: cfg.Rooms, Users: len(users), ElapsedSecs: time.Since(start).Seconds(), Ops: w.api.Reports(time.Since(start))}, nil
		}
		return nil, fmt.Errorf("%s: no join succeeded (%v)", cfg.Name, w.api.Reports(time.Second)[OpJoin].Codes)
	}
	cfg.Progress(fmt.Sprintf("%s: joins done in %.1fs; heartbeat %v, lease %v", cfg.Name, time.Since(joinStart).Seconds(), w.hb(), w.leaseD()))
	var steady SteadyReport
	if cfg.Steady > 0 {
		steady = w.measureSteady(ctx)
	}
	if cfg.Churn > 0 {
		w.churn(ctx, start)
	}
	roomsLeft := w.drain(ctx, loops)
	stopListeners()
	rep := w.report(time.Since(start), len(users), steady, roomsLeft, rss)
	if cpuStart >= 0 {
		if s, err := ReadCPUSeconds(cfg.ServerPID); err == nil {
			c := CPUReport{Seconds: s - cpuStart, Requests: answered(rep.Ops)}
			if c.Requests > 0 {
				c.MillisPerRequest = 1000 * c.Seconds / float64(c.Requests)
			}
			rep.ServerCPU = &c
		}
	}
	return rep, nil
}

// hb and leaseD are the heartbeat interval and lease the server announced in
// the first successful join (zero until then).
func (w *Workload) hb() time.Duration     { return time.Duration(w.hbNanos.Load()) }
func (w *Workload) leaseD() time.Duration { return time.Duration(w.leaseNanos.Load()) }
