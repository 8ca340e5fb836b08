package firestoredb_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
)

// The model test looks for the next race (docs/races.md, "The model
// test"). Each schedule runs random requests of a few users with one or two
// tabs in two rooms through modelInstances stores on separate Firestore
// clients, each with its own clock a few milliseconds off a shared test
// clock, and the sweeper's passes on each of them. At the test seams a
// schedule pauses a request and runs another one inside it, on another
// instance (see installSeams; model_sweeper_test.go for the teardown's),
// and some instances die in the middle of a request
// (model_requests_test.go). After every step and at the end, when
// everything has drained, it checks the invariants of checkModel and
// checkDrained.
//
// A failing schedule prints its seed; replay it with
//
//	ROOMLEASE_MODEL_SEED=<seed> go test ./functions/firestoredb -run TestModel -v
//
// ROOMLEASE_MODEL_SCHEDULES=N runs N schedules (scripts/bench model runs
// 10 000); by default the test runs as many as fit in modelBudget.

const (
	modelInstances = 3
	modelSteps     = 24
	modelBudget    = 40 * time.Second
)

var (
	modelRooms    = []string{"r1", "r2"}
	modelUsers    = []string{"alice", "bob", "carol"}
	modelSessions = []string{"s1", "s2"}
)

func TestModel_RandomSchedulesKeepTheInvariants(t *testing.T) {
	emulatortest.FirestoreHost(t)
	if seed := os.Getenv("ROOMLEASE_MODEL_SEED"); seed != "" {
		n, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			t.Fatalf("ROOMLEASE_MODEL_SEED: %v", err)
		}
		runSchedule(t, n, true)
		return
	}
	schedules, budget := 0, modelBudget
	if n := os.Getenv("ROOMLEASE_MODEL_SCHEDULES"); n != "" {
		var err error
		if schedules, err = strconv.Atoi(n); err != nil {
			t.Fatalf("ROOMLEASE_MODEL_SCHEDULES: %v", err)
		}
		budget = 0
	}
	start := time.Now()
	base := uint64(time.Now().UnixNano())
	ran := 0
	for i := 0; ; i++ {
		if schedules > 0 && i >= schedules || budget > 0 && time.Since(start) > budget {
			break
		}
		if !runSchedule(t, base+uint64(i), false) {
			return
		}
		ran++
		// A long run says how far it has come, so that one stopped early
		// still tells how many schedules it proved.
		if schedules > 0 && ran%500 == 0 {
			t.Logf("%d of %d schedules, 0 violations, in %v", ran, schedules, time.Since(start).Round(time.Second))
		}
	}
	t.Logf("%d schedules, 0 violations, in %v", ran, time.Since(start).Round(time.Second))
	if ran == 0 {
		t.Fatal("no schedule ran")
	}
}

// runSchedule runs one schedule and reports whether it kept the invariants.
func runSchedule(t *testing.T, seed uint64, verbose bool) bool {
	t.Helper()
	m := newModel(t, seed)
	defer m.close()
	for step := range modelSteps {
		m.step(step)
		if m.failed() {
			break
		}
		m.checkModel()
		if m.failed() {
			break
		}
	}
	if !m.failed() {
		m.drain()
	}
	if m.failed() || verbose {
		t.Logf("schedule seed %d (replay: ROOMLEASE_MODEL_SEED=%d):\n  %s", seed, seed, strings.Join(m.trace, "\n  "))
	}
	if m.failed() {
		t.Errorf("schedule %d broke an invariant:\n  %s", seed, strings.Join(m.violations, "\n  "))
		return false
	}
	return true
}

// clientKey names one tab of one user in one room.
type clientKey struct{ room, user, session string }

func (k clientKey) String() string { return k.room + "/" + k.user + "/" + k.session }

// client is what a tab believes: its generation, and its lease's end as
// the last successful join or heartbeat answered it.
type client struct {
	gen      int64
	leaseEnd time.Time
	live     bool
	// token and older are the last lease token answered and the one
	// before it: heartbeats and typing send one of them, or none, so that
	// renewals are fenced by the token's condition or by a read, and
	// replayed tokens come too.
	token, older string
	away         bool // as last answered
}

type model struct {
	t        *testing.T
	ctx      context.Context
	rng      *rand.Rand
	clock    *testclock.Clock
	client   *firestore.Client // for the checks
	settings presence.Settings // every instance's; the grace is drawn per schedule

	mu        sync.Mutex
	skews     [modelInstances]time.Duration
	highWater time.Time // see latest
	stores    [modelInstances]*firestoredb.Store
	sweepers  [modelInstances]*sweep.Sweeper
	clients   map[clientKey]*client
	// excluded users of each room's policy: their sessions may go at any
	// pass, which is no false removal.
	excluded map[string]string
	// inFlight is the tab whose request runs on each instance, for the
	// seams to pick an interleaving that cannot deadlock with it.
	inFlight [modelInstances]clientKey
	nested   atomic.Int32 // requests run at a seam in this step
	exact    bool         // this step is one client request
	draining bool         // no more requests at the seams
	depth    atomic.Int32 // >0 while a seam runs a request
	seq      int64
	settling bool // a settling pass: no time passes in it, no seams
	// dies says where each instance's request in flight dies, if it does
	// (see model_requests_test.go).
	dies [modelInstances]death
	// tearingDown is the room each instance's sweeper is checking for
	// teardown; closed, the rooms its pass tore down, not yet purged (see
	// model_sweeper_test.go).
	tearingDown [modelInstances]string
	closed      [modelInstances][]string

	project    string
	closers    []func() error
	lifetimes  map[string]lifetime
	trace      []string
	violations []string
}

// lifetime is what checkModel last saw of a room.
type lifetime struct {
	createdAt time.Time
	revision  int64
	entries   map[string]string // uid → visible fields
}

func newModel(t *testing.T, seed uint64) *model {
	// Clients of a schedule are closed and its project wiped when the
	// schedule ends (close), not when the test does: a long run makes
	// thousands of schedules, and the emulator runs out of connections.
	project := emulatortest.NewProjectID(t)
	checker, err := firestore.NewClient(context.Background(), project)
	if err != nil {
		t.Fatal(err)
	}
	m := &model{project: project, closers: []func() error{checker.Close}, t: t, ctx: context.Background(), rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), client: checker,
		clock: testclock.New(testclock.Start), clients: map[clientKey]*client{}, excluded: map[string]string{},
		lifetimes: map[string]lifetime{}, settings: presence.DefaultSettings()}
	// A grace shorter than the lease puts a room's teardown within reach
	// of a lease that a join in its grace brought: two schedules in three
	// draw one.
	m.settings.EmptyRoomGrace = []time.Duration{m.settings.EmptyRoomGrace, 10 * time.Second, 5 * time.Second}[m.rng.IntN(3)]
	// A short window makes departure records foldable within a schedule
	// (fold.go), so that folds meet returns and teardowns; 0 writes records
	// that show nobody.
	m.settings.RecentlyLeft = []time.Duration{m.settings.RecentlyLeft, 5 * time.Second, 0}[m.rng.IntN(3)]
	m.drawSkews()
	m.logf("grace %v, recently left %v, skews %v", m.settings.EmptyRoomGrace, m.settings.RecentlyLeft, m.skews)
	for i := range modelInstances {
		c, err := firestore.NewClient(m.ctx, project)
		if err != nil {
			t.Fatal(err)
		}
		m.closers = append(m.closers, c.Close)
		now := func() time.Time { m.mu.Lock(); defer m.mu.Unlock(); return m.clock.Now().Add(m.skews[i]) }
		m.stores[i] = withTokens(firestoredb.New(c, m.settings, now))
		// One candidate at a time: a schedule replays from its seed only
		// if each sweeper's steps come in one order. Candidates acted on
		// at once are two sweepers acting at once, which the model's
		// instances already are.
		sw, err := sweep.New(sweeperStore{m.stores[i], m, i}, sweep.Config{RunBudget: time.Millisecond, Concurrency: 1}, now,
			func(ctx context.Context, d time.Duration) error { m.clock.Advance(d); return ctx.Err() },
			logging.New(discard{}, slog.LevelError))
		if err != nil {
			t.Fatal(err)
		}
		m.sweepers[i] = sw
		m.stores[i].PublishEvents(keepInOutbox{}) // see checkEvents
		m.installSeams(i)
	}
	return m
}

func (m *model) close() {
	for _, c := range m.closers {
		c()
	}
	emulatortest.Reset(m.t, emulatortest.FirestoreHost(m.t), m.project)
}

func (m *model) failed() bool { return len(m.violations) > 0 }

func (m *model) violate(format string, args ...any) {
	m.violations = append(m.violations, fmt.Sprintf(format, args...))
}

func (m *model) logf(format string, args ...any) {
	m.trace = append(m.trace, fmt.Sprintf(format, args...))
}

// latest is the latest now any instance has had so far: a lease that ends
// after it is live by every instance's judgement, then and before. (Skews
// are redrawn, so one instance's clock may step back; the high-water mark
// keeps what was already judged.)
func (m *model) latest() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.skews {
		m.highWater = maxTime(m.highWater, m.clock.Now().Add(s))
	}
	return m.highWater
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
