// Package chaos is `scripts/bench chaos`: users churning through several
// roomlease-dev processes, each with its own sweeper, while the processes
// are killed, restarted, frozen and thawed; then the drain. chaos.go runs
// it, procs.go holds the processes and the chaos loop, users.go the
// simulated clients, reads.go what it reads from the emulator directly,
// checks.go the verdicts (free of I/O, tested on their own) and report.go
// renders chaos.md.
package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/httpapi"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/workload"
)

// Config shapes `scripts/bench chaos`: users churning through several
// roomlease-dev processes, each with its own sweeper, on one emulator,
// while the processes are killed, restarted, frozen and thawed.
type Config struct {
	Processes int
	Port      int // process i listens on Port+i (0: free ports from the first)
	Users     int
	Rooms     int
	TwoTabs   float64 // share of users starting with a second tab
	Duration  time.Duration
	Seed      uint64

	// The server's settings: short, so that leases end, rooms empty and are
	// torn down many times a minute.
	Heartbeat, Lease, Grace time.Duration

	// Per user and heartbeat tick, while the chaos lasts.
	CrashProb, LeaveProb, TabToggleProb, TabCrashProb float64
	RoomSwitchProb                                    float64 // a rejoin goes to a random room
	ReconnectEarly                                    float64 // share of crashes that reconnect within the lease

	Chaos chaosPlan

	// The client: each attempt's timeout, and how long a join is retried.
	HeartbeatTimeout, JoinTimeout, LeaveTimeout, JoinBudget time.Duration
	// AmbiguityWindow is how long after it was sent an unanswered join may
	// still commit: the server's bound on a request, counted from when a
	// frozen process gets to it, plus a margin.
	AmbiguityWindow time.Duration

	// The checks.
	Tolerance     time.Duration // a 409 this close to the lease end is the client's lateness
	RosterMargin  time.Duration // a lease must span the roster read by this much on both sides
	RosterEvery   time.Duration
	RevisionEvery time.Duration
	DrainWait     time.Duration // the longest wait for the teardowns after everyone departed

	Progress func(string)
}

// DefaultConfig is the configuration `scripts/bench chaos` runs.
func DefaultConfig() Config {
	c := Config{Processes: 4, Users: 40, Rooms: 16, TwoTabs: 0.3, Duration: 10 * time.Minute, Seed: 19,
		Heartbeat: 2 * time.Second, Lease: 6 * time.Second, Grace: 5 * time.Second,
		CrashProb: 0.01, LeaveProb: 0.015, TabToggleProb: 0.03, TabCrashProb: 0.008, RoomSwitchProb: 0.4, ReconnectEarly: 0.3,
		Chaos: chaosPlan{MinGap: 3 * time.Second, MaxGap: 8 * time.Second, MinDown: time.Second, MaxDown: 6 * time.Second,
			MinFreeze: time.Second, MaxFreeze: 5 * time.Second, Healthy: 2},
		HeartbeatTimeout: 2 * time.Second, JoinTimeout: 25 * time.Second, LeaveTimeout: 10 * time.Second, JoinBudget: time.Minute,
		Tolerance: 250 * time.Millisecond, RosterMargin: time.Second, RosterEvery: 3 * time.Second, RevisionEvery: 2 * time.Second,
		DrainWait: 4 * time.Minute}
	c.AmbiguityWindow = httpapi.RequestTimeout + c.Chaos.MaxFreeze + 10*time.Second
	return c
}

// The kinds of violation (all must stay 0), and the excused 409s.
const (
	violation409      = "falseRemoval409"
	violationMissing  = "missingRosterEntry"
	violationRevision = "revisionDecrease"
	violationRoom     = "roomNotTornDown"
	violationDocument = "documentLeftBehind"
	excused409        = "excused409"
)

// Violation is one violation as found, with what it concerns.
type Violation struct {
	Kind       string `json:"kind"`
	At         string `json:"at"`
	Seed       uint64 `json:"seed"`
	Room       string `json:"room,omitempty"`
	UID        string `json:"uid,omitempty"`
	Session    string `json:"session,omitempty"`
	Generation int64  `json:"generation,omitempty"`
	// Process and PID answered the request (-1: found by a read).
	Process int    `json:"process"`
	PID     int    `json:"pid,omitempty"`
	Detail  string `json:"detail"`
	// Trail is the user's latest requests and events, oldest first.
	Trail []string `json:"trail,omitempty"`
	// ChaosBefore lists the chaos actions of the 30 s before.
	ChaosBefore []string `json:"chaosBefore,omitempty"`
	// Documents are the room, the user's roster entry and sessions as read
	// right after the violation was seen.
	Documents []string `json:"documents,omitempty"`
}

// Report is the scenario's result (bench/results/chaos.json).
type Report struct {
	Started          string  `json:"started"`
	Seed             uint64  `json:"seed"`
	Database         string  `json:"database"`
	Processes        int     `json:"processes"`
	Users            int     `json:"users"`
	Rooms            int     `json:"rooms"`
	HeartbeatSeconds float64 `json:"heartbeatSeconds"`
	LeaseSeconds     float64 `json:"leaseSeconds"`
	GraceSeconds     float64 `json:"graceSeconds"`
	ChaosSeconds     float64 `json:"chaosSeconds"`
	DrainSeconds     float64 `json:"drainSeconds"`
	ElapsedSeconds   float64 `json:"elapsedSeconds"`
	AmbiguitySeconds float64 `json:"ambiguityWindowSeconds"`

	// Violations counts each kind; every one must be 0.
	Violations map[string]int `json:"violations"`
	// Excused409 counts 409s to a doubtful generation (see heldLease).
	Excused409 int `json:"excused409"`
	// LeaseMovedBack counts heartbeat answers that put a lease end before
	// one an earlier answer gave for the same generation (should be 0).
	LeaseMovedBack int `json:"leaseMovedBack"`

	// Stalls are the stretches of the chaos in which no heartbeat of any
	// user succeeded for stallGap or longer.
	Stalls []Stall `json:"stalls"`

	Counts  map[string]int64                 `json:"counts"`
	Actions map[string]int                   `json:"chaosActions"`
	Latency map[workload.Op]workload.Summary `json:"latency"`

	RosterReads    int            `json:"rosterReads"`
	RosterChecks   int            `json:"rosterUserChecks"`
	RosterDoubtful int            `json:"rosterUsersSkippedAsDoubtful"`
	RevisionReads  int            `json:"revisionReads"`
	RoomLifetimes  int            `json:"roomLifetimesSeen"`
	MaxRevision    int64          `json:"maxRevisionSeen"`
	ClosingRecords int            `json:"closingRecords"`
	PendingCleanup int            `json:"closingRecordsPendingCleanup"`
	KeptDocuments  map[string]int `json:"keptDocuments"`
	OtherDocuments []string       `json:"otherDocuments,omitempty"`
	LeftPaths      []string       `json:"leftPaths,omitempty"`
	LeftDocs       []string       `json:"leftDocuments,omitempty"`
	DrainError     string         `json:"drainError,omitempty"`
	ProcessPIDs    [][]int        `json:"processPids"`
	ServerLogs     string         `json:"serverLogs"`
	Details        []Violation    `json:"details,omitempty"`
	Timeline       []Action       `json:"timeline"`
	// Events is the events check; absent without the Pub/Sub emulator.
	Events *EventsVerdict `json:"events,omitempty"`
}

// chaosRun is one run's state.
type chaosRun struct {
	cfg       Config
	procs     *chaosProcs
	client    *firestore.Client
	database  string // the one client reads, and the servers write
	prefix    string
	rooms     []string
	users     []*chaosUser
	userByUID map[string]*chaosUser
	churning  atomic.Bool
	latency   map[workload.Op]*workload.Dist

	mu              sync.Mutex
	events          map[string]int64
	violationCounts map[string]int
	detailCounts    map[string]int
	details         []Violation
	revisions       *revisionTracker
	lastCounted     map[string]string
	rosterReads     int
	rosterChecks    int
	rosterDoubtful  int
	revisionReads   int
	maxRevision     int64
	lastHeartbeat   time.Time
	stalls          []Stall

	// published is the events check (events.go); nil without Pub/Sub.
	published *eventsRun
}

// stallGap is the longest the whole fleet may go without a successful
// heartbeat before the run records a stall: 40 users heartbeat about
// twenty times a second, so a gap this long means every heartbeat failed.
const stallGap = 5 * time.Second

// Stall is a stretch of the chaos phase in which no heartbeat of any
// user succeeded.
type Stall struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	Seconds float64 `json:"seconds"`
	// ChaosBefore lists the chaos actions from 10 s before it began to
	// its end.
	ChaosBefore []string `json:"chaosBefore"`
}

// heartbeatAnswered notes a heartbeat answered 200 at t, and records a
// stall if none had been for stallGap.
func (c *chaosRun) heartbeatAnswered(t time.Time) {
	c.mu.Lock()
	last := c.lastHeartbeat
	if t.After(last) {
		c.lastHeartbeat = t
	}
	churning := c.churning.Load()
	c.mu.Unlock()
	if !churning || last.IsZero() || t.Sub(last) < stallGap {
		return
	}
	stall := Stall{From: last.Format("15:04:05.000"), To: t.Format("15:04:05.000"), Seconds: t.Sub(last).Seconds(),
		ChaosBefore: c.procs.actionsAround(t, t.Sub(last)+10*time.Second)}
	c.cfg.Progress(fmt.Sprintf("chaos: no heartbeat succeeded from %s to %s (%.1f s)", stall.From, stall.To, stall.Seconds))
	c.mu.Lock()
	c.stalls = append(c.stalls, stall)
	c.mu.Unlock()
}

func (c *chaosRun) event(name string) {
	c.mu.Lock()
	c.events[name]++
	c.mu.Unlock()
}

// Run runs the chaos scenario and writes chaos.json and chaos.md to
// o.OutDir.
func Run(ctx context.Context, o harness.Options, cfg Config) error {
	if o.ServerBin == "" {
		return fmt.Errorf("-server-bin is required for chaos")
	}
	if cfg.Progress == nil {
		cfg.Progress = o.Log
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	// The checks read where the servers write: the database the
	// environment names (as scripts/dev names one), else the default, and
	// the servers are told the same explicitly. Checks of another database
	// than the servers' would find nothing wrong, ever.
	database := os.Getenv("ROOMLEASE_DATABASE")
	if database == "" {
		database = firestore.DefaultDatabaseID
	}
	client, err := firestore.NewClientWithDatabase(ctx, o.Project, database)
	if err != nil {
		return err
	}
	defer client.Close()
	began := time.Now()
	c := &chaosRun{cfg: cfg, client: client, database: database, prefix: fmt.Sprintf("chaos-%d-", began.Unix()), userByUID: map[string]*chaosUser{},
		latency: map[workload.Op]*workload.Dist{workload.OpJoin: {}, workload.OpHeartbeat: {}, workload.OpLeave: {}}, events: map[string]int64{},
		violationCounts: map[string]int{}, detailCounts: map[string]int{}, revisions: newRevisionTracker(), lastCounted: map[string]string{}}
	for i := range cfg.Rooms {
		c.rooms = append(c.rooms, fmt.Sprintf("%s%d", c.prefix, i))
	}
	o.Log(fmt.Sprintf("chaos: signing up %d users at the Auth emulator", cfg.Users))
	crowd, err := workload.SignUpAll(ctx, o.AuthHost, cfg.Users, 8, 10*time.Second)
	if err != nil {
		return err
	}
	tabRng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	for i, cu := range crowd {
		seed := cfg.Seed + uint64(i+1)*7919
		u := &chaosUser{idx: i, uid: cu.UID, token: cu.Token, rng: rand.New(rand.NewPCG(seed, seed+1)),
			room: c.rooms[i%len(c.rooms)], sessions: map[string]*chaosSession{}}
		u.tabs = append(u.tabs, workload.NextTab(&u.tabSeq))
		if tabRng.Float64() < cfg.TwoTabs {
			u.tabs = append(u.tabs, workload.NextTab(&u.tabSeq))
		}
		c.users = append(c.users, u)
		c.userByUID[u.uid] = u
	}

	env := o.ServerEnv(cfg.Heartbeat, cfg.Lease, cfg.Grace)
	env["ROOMLEASE_DATABASE"] = database
	if c.published, err = startEvents(ctx, o.Project, c.prefix); err != nil {
		return err
	}
	if c.published != nil {
		env["ROOMLEASE_EVENTS_TOPIC"] = c.published.topic
		o.Log("chaos: the processes publish events on " + c.published.topic + "; a subscriber takes them")
	}
	o.Log(fmt.Sprintf("chaos: starting %d roomlease-dev processes, each with its sweeper (heartbeat %v, lease %v, grace %v)", cfg.Processes, cfg.Heartbeat, cfg.Lease, cfg.Grace))
	port := cfg.Port
	if port == 0 {
		if port, err = workload.FreePort(); err != nil {
			return err
		}
	}
	procs, err := startChaosProcs(ctx, o, env, cfg.Processes, port, cfg.Seed)
	if err != nil {
		return err
	}
	c.procs = procs
	defer procs.stopAll()
	o.Log("chaos: server logs in " + procs.logDir)

	// The checks run from before the first join to the verdict.
	checkCtx, stopChecks := context.WithCancel(ctx)
	var checks sync.WaitGroup
	checks.Add(2)
	go func() { defer checks.Done(); c.sampleRosters(checkCtx) }()
	go func() { defer checks.Done(); c.pollRevisions(checkCtx) }()
	defer func() { stopChecks(); checks.Wait() }()

	// The users, then the chaos beside them.
	loopCtx, stopLoops := context.WithCancel(ctx)
	defer stopLoops()
	var users sync.WaitGroup
	c.churning.Store(true)
	for _, u := range c.users {
		users.Add(1)
		go func() { defer users.Done(); c.runUser(ctx, loopCtx, u) }()
	}
	chaosStart := time.Now()
	chaosCtx, stopChaos := context.WithTimeout(ctx, cfg.Duration)
	defer stopChaos()
	chaosDone := make(chan struct{})
	go func() { defer close(chaosDone); procs.runChaos(chaosCtx, ctx, cfg.Chaos) }()
	for chaosCtx.Err() == nil {
		workload.SleepCtx(chaosCtx, 30*time.Second)
		c.progress(time.Until(chaosStart.Add(cfg.Duration)))
	}
	<-chaosDone
	chaosSecs := time.Since(chaosStart).Seconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}

	// The drain: every process back, then everyone departs (half by leave,
	// half by crash), then the rooms must go.
	o.Log("chaos: churn over; every process up again, everyone departs")
	procs.restoreAll(ctx)
	c.churning.Store(false)
	stopLoops()
	users.Wait()
	departed := time.Now()
	left, drainErr := c.awaitDrain(ctx, departed)
	stopChecks()
	checks.Wait()

	rep := c.buildReport(began, chaosSecs, time.Since(departed).Seconds(), left, drainErr)
	rep.Database = database
	rep.Events = c.published.finish(ctx, client)
	return o.Write("chaos", Markdown(rep), rep)
}

// awaitDrain waits until every room of the run is gone with everything
// beneath it, or until DrainWait after everyone departed. It does not
// decide before the longest of: a lease, the grace and three sweep
// pauses, for the last crashed leases to run out and their rooms to be
// torn down; and the ambiguity window, after which no request sent before
// the departures can still commit and recreate something.
func (c *chaosRun) awaitDrain(ctx context.Context, departed time.Time) (leftovers, error) {
	cfg := c.cfg
	minWait := max(cfg.Lease+cfg.Grace+3*5*time.Second, cfg.AmbiguityWindow)
	deadline := departed.Add(cfg.DrainWait)
	workload.SleepCtx(ctx, minWait)
	for {
		left, err := c.inspectLeftovers(ctx)
		if err == nil && left.clean() {
			cfg.Progress(fmt.Sprintf("chaos: every room torn down and purged %.0f s after the departures", time.Since(departed).Seconds()))
			return left, nil
		}
		if err != nil {
			cfg.Progress("chaos: inspecting the emulator: " + err.Error())
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return left, err
		}
		workload.SleepCtx(ctx, 3*time.Second)
	}
}

func (c *chaosRun) progress(left time.Duration) {
	counts := c.procs.counts()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Progress(fmt.Sprintf("chaos: %.0f s left; joins %d, heartbeats %d, leaves %d, crashes %d; kills %d, freezes %d, restarts %d; retries %d; roster checks %d; violations %v",
		max(left, 0).Seconds(), c.events["joins"], c.events["heartbeats"], c.events["leaves"], c.events["crashes"]+c.events["second tabs crashed"],
		counts["kill"], counts["freeze"], counts["restart"], c.events["retries"], c.rosterChecks, c.violationCounts))
}

func (c *chaosRun) buildReport(began time.Time, chaosSecs, drainSecs float64, left leftovers, drainErr error) *Report {
	cfg := c.cfg
	rep := &Report{Started: began.UTC().Format(time.RFC3339), Seed: cfg.Seed, Processes: cfg.Processes, Users: cfg.Users, Rooms: cfg.Rooms,
		HeartbeatSeconds: cfg.Heartbeat.Seconds(), LeaseSeconds: cfg.Lease.Seconds(), GraceSeconds: cfg.Grace.Seconds(),
		ChaosSeconds: chaosSecs, DrainSeconds: drainSecs, ElapsedSeconds: time.Since(began).Seconds(), AmbiguitySeconds: cfg.AmbiguityWindow.Seconds(),
		Actions: c.procs.counts(), Timeline: c.procs.timeline(), ServerLogs: c.procs.logDir, Latency: map[workload.Op]workload.Summary{},
		KeptDocuments: map[string]int{}}
	for op, d := range c.latency {
		rep.Latency[op] = d.Summary()
	}
	for _, s := range c.procs.slots {
		rep.ProcessPIDs = append(rep.ProcessPIDs, append([]int(nil), s.pids...))
	}
	for _, u := range c.users {
		u.mu.Lock()
		for _, s := range u.sessions {
			rep.LeaseMovedBack += s.leaseMovedBack
		}
		u.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rep.Violations = map[string]int{}
	for _, k := range []string{violation409, violationMissing, violationRevision, violationRoom, violationDocument} {
		rep.Violations[k] = c.violationCounts[k]
	}
	rep.Excused409 = c.violationCounts[excused409]
	rep.Stalls = append([]Stall(nil), c.stalls...)
	rep.Counts = map[string]int64{}
	for k, v := range c.events {
		rep.Counts[k] = v
	}
	rep.RosterReads, rep.RosterChecks, rep.RosterDoubtful = c.rosterReads, c.rosterChecks, c.rosterDoubtful
	rep.RevisionReads, rep.RoomLifetimes, rep.MaxRevision = c.revisionReads, c.revisions.lifetimeCount(), c.maxRevision

	rep.Violations[violationRoom] = left.count(docRoom)
	rep.Violations[violationDocument] = left.count(docUnderRoom)
	rep.ClosingRecords, rep.PendingCleanup = left.count(docClosing), left.PendingCleanup
	for _, k := range []string{docControl, docUserRooms, docPolicy, docCandidate} {
		rep.KeptDocuments[k] = left.count(k)
	}
	rep.KeptDocuments[docClosing] = left.count(docClosing)
	rep.OtherDocuments = left.Paths[docOther]
	rep.LeftPaths = append(append([]string(nil), left.Paths[docRoom]...), left.Paths[docUnderRoom]...)
	if len(rep.LeftPaths) > 200 {
		rep.LeftPaths = rep.LeftPaths[:200]
	}
	rep.LeftDocs = left.Docs
	if drainErr != nil {
		rep.DrainError = drainErr.Error()
	}
	rep.Details = append([]Violation(nil), c.details...)
	sort.SliceStable(rep.Details, func(i, j int) bool { return rep.Details[i].At < rep.Details[j].At })
	return rep
}
