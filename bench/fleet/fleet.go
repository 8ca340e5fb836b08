// Package fleet is `scripts/bench fleet`: crowds of users joining and
// leaving one room at once through several roomlease-dev processes, beside
// the same crowds in rooms of their own (the floor). fleet.go runs it,
// burst.go sends the crowds, cases.go runs the two cases and watches the
// room, stats.go and verify.go summarize and judge them, report.go renders
// fleet.md and fleet.svg.
package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/workload"
)

// Config shapes the fleet scenario: crowds joining and leaving one room
// through several roomlease-dev processes at once, against the same crowds
// in rooms of their own (the floor).
type Config struct {
	Processes []int // fleet sizes to measure (default 1, 2, 4, 8)
	Crowds    []int // crowd sizes (default 200, 500)
	// Port is the first server port; process i listens on Port+i. Zero picks
	// free ports.
	Port int
}

// The fleet's fixed settings. The lease and grace are far longer than a run
// so that nothing expires or is torn down behind the checks' backs: what
// the roster and the room show afterwards is what the joins and leaves did.
const (
	fleetTimeout   = 10 * time.Second // the crowd's client timeout
	fleetHeartbeat = 5 * time.Second
	fleetLease     = 30 * time.Minute
	fleetGrace     = 2 * time.Hour
)

// Report is the scenario's result (bench/results/fleet.json).
type Report struct {
	Started        string     `json:"started"`
	TimeoutSeconds float64    `json:"clientTimeoutSeconds"`
	LeaseSeconds   float64    `json:"leaseSeconds"`
	GraceSeconds   float64    `json:"graceSeconds"`
	Processes      []int      `json:"processes"`
	Crowds         []int      `json:"crowds"`
	Cases          []Case     `json:"cases"`
	Ratios         []P99Ratio `json:"p99Ratios"`
	ElapsedSeconds float64    `json:"elapsedSeconds"`
	Cores          int        `json:"cores"` // of the machine: CPU-seconds it has a second
}

// Case is one crowd through one fleet, in one room or in separate rooms.
type Case struct {
	Processes int          `json:"processes"`
	Crowd     int          `json:"crowd"`
	Rooms     string       `json:"rooms"` // "one" or "separate"
	Join      BurstSummary `json:"join"`
	Leave     BurstSummary `json:"leave"`
	// Unacknowledged joins and leaves redone afterwards through one process
	// (unmeasured), and how many of those still failed.
	JoinRepairs        int          `json:"joinRepairs"`
	JoinRepairFailures int          `json:"joinRepairFailures"`
	LeaveRepairs       int          `json:"leaveRepairs"`
	LeaveRepairFails   int          `json:"leaveRepairFailures"`
	Roster             *RosterCheck `json:"rosterCheck,omitempty"`
	Empty              *EmptyCheck  `json:"emptyCheck,omitempty"`
	// For separate rooms: how many of the rooms ended suspected_empty.
	RoomsSuspectedEmpty int    `json:"roomsSuspectedEmpty,omitempty"`
	CheckError          string `json:"checkError,omitempty"`
}

// Run runs the fleet scenario and writes fleet.json, fleet.md and
// fleet.svg to o.OutDir.
func Run(ctx context.Context, o harness.Options, fc Config) error {
	if o.ServerBin == "" {
		return fmt.Errorf("-server-bin is required for fleet")
	}
	if len(fc.Processes) == 0 {
		fc.Processes = []int{1, 2, 4, 8}
	}
	if len(fc.Crowds) == 0 {
		fc.Crowds = []int{200, 500}
	}
	if o.Quick {
		fc.Processes, fc.Crowds = []int{1, 2}, []int{20}
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	client, err := firestore.NewClient(ctx, o.Project)
	if err != nil {
		return err
	}
	defer client.Close()

	// Everyone signs up before the clock starts; the largest crowd is
	// everyone, smaller crowds are its first members.
	n := maxOf(fc.Crowds)
	o.Log(fmt.Sprintf("fleet: signing up %d users at the Auth emulator", n))
	users, err := workload.SignUpAll(ctx, o.AuthHost, n, 8, 10*time.Second)
	if err != nil {
		return err
	}
	rep := &Report{Started: time.Now().UTC().Format(time.RFC3339), TimeoutSeconds: fleetTimeout.Seconds(),
		LeaseSeconds: fleetLease.Seconds(), GraceSeconds: fleetGrace.Seconds(), Processes: fc.Processes, Crowds: fc.Crowds,
		Cores: runtime.NumCPU()}
	began := time.Now()
	prefix := fmt.Sprintf("fleet-%d", time.Now().Unix())
	for _, n := range fc.Processes {
		cases, err := runSize(ctx, o, fc, client, users, prefix, n)
		rep.Cases = append(rep.Cases, cases...)
		if err != nil {
			return fmt.Errorf("%d processes: %w", n, err)
		}
	}
	rep.ElapsedSeconds = time.Since(began).Seconds()
	rep.Ratios = ratios(rep.Cases)
	if err := o.SVG("fleet", Plot(rep)); err != nil {
		return err
	}
	return o.Write("fleet", Markdown(rep), rep)
}

// runSize starts n processes (only the first runs the sweeper, as one
// scheduled Sweep would beside many Presence instances), runs every crowd
// through them, and stops them.
func runSize(ctx context.Context, o harness.Options, fc Config, client *firestore.Client, users []workload.Account, prefix string, n int) ([]Case, error) {
	var servers []*workload.Server
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	env := o.ServerEnv(fleetHeartbeat, fleetLease, fleetGrace)
	// The away lease may be no shorter than the lease, which the fleet
	// stretches far beyond the default away lease: without this, every
	// process refuses its settings at start-up.
	env["ROOMLEASE_AWAY_LEASE"] = fleetLease.String()
	for i := range n {
		port := fc.Port + i
		if fc.Port == 0 {
			p, err := workload.FreePort()
			if err != nil {
				return nil, err
			}
			port = p
		}
		args := []string{"-sweep=" + fmt.Sprint(i == 0)}
		logPath := filepath.Join(os.TempDir(), fmt.Sprintf("roomlease-bench-fleet-%d-%d.log", n, i))
		// A port inside the kernel's ephemeral range can be held for a
		// while by some outgoing connection (the crowd opens hundreds); a
		// few patient retries ride that out, and the error names the port.
		var s *workload.Server
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			if s, err = workload.StartServerOnPort(ctx, o.ServerBin, port, env, logPath, args...); err == nil {
				break
			}
			workload.SleepCtx(ctx, 2*time.Second)
		}
		if err != nil {
			return nil, fmt.Errorf("port %d: %w", port, err)
		}
		servers = append(servers, s)
	}
	apis := make([]*workload.API, n)
	for i, s := range servers {
		apis[i] = workload.NewAPI(s.URL)
		apis[i].HTTP.Timeout = fleetTimeout
		defer apis[i].HTTP.CloseIdleConnections()
	}
	// The unmeasured helper: a patient client of the first process.
	helper := workload.NewAPI(servers[0].URL)
	helper.HTTP.Timeout = 30 * time.Second
	defer helper.HTTP.CloseIdleConnections()

	meter := cpuMeter{firestore: o.FirestorePID, auth: o.AuthPID}
	for _, s := range servers {
		meter.servers = append(meter.servers, s.PID) // each leads its group (Setpgid)
	}
	o.EnterPhase(fmt.Sprintf("%d processes: warm-up", n))
	warmUp(ctx, apis, users, fmt.Sprintf("%s-n%d-warm", prefix, n))
	o.EnterPhase("")
	var cases []Case
	for _, crowd := range fc.Crowds {
		o.Log(fmt.Sprintf("fleet: %d processes, %d users into one room", n, crowd))
		one := runOneRoom(ctx, o, meter, client, apis, helper, users[:crowd], fmt.Sprintf("%s-n%d-c%d-one", prefix, n, crowd))
		cases = append(cases, one)
		o.Log(fmt.Sprintf("fleet: %d processes, %d users into %d rooms", n, crowd, crowd))
		sep := runSeparate(ctx, o, meter, client, apis, helper, users[:crowd], fmt.Sprintf("%s-n%d-c%d-sep", prefix, n, crowd))
		cases = append(cases, sep)
		if ctx.Err() != nil {
			return cases, ctx.Err()
		}
	}
	for _, s := range servers {
		if s.Exited() {
			return cases, fmt.Errorf("a roomlease-dev process (pid %d) exited during the run", s.PID)
		}
	}
	return cases, nil
}

// warmUp sends the whole crowd through the fleet once, unmeasured, each user
// into a room of its own: no measured request pays for a process's first
// connection to Firestore, and the first fleet measured does not pay for
// the emulator's warm-up alone.
func warmUp(ctx context.Context, apis []*workload.API, users []workload.Account, prefix string) {
	var members []*crowdMember
	for i := range users {
		members = append(members, &crowdMember{user: users[i], room: fmt.Sprintf("%s-%d", prefix, i)})
	}
	burst(ctx, apis, members, sendJoin)
	burst(ctx, apis, members, sendLeave)
}

func maxOf(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// ratios pairs each one-room burst with the separate-rooms burst of
// the same fleet and crowd.
func ratios(cases []Case) []P99Ratio {
	var out []P99Ratio
	for _, one := range cases {
		if one.Rooms != "one" {
			continue
		}
		for _, sep := range cases {
			if sep.Rooms != "separate" || sep.Processes != one.Processes || sep.Crowd != one.Crowd {
				continue
			}
			for _, op := range []struct {
				name     string
				one, sep BurstSummary
			}{{"join", one.Join, sep.Join}, {"leave", one.Leave, sep.Leave}} {
				r, bound := CompareP99(op.one, op.sep)
				out = append(out, P99Ratio{Processes: one.Processes, Crowd: one.Crowd, Op: op.name,
					OneRoomP99: op.one.Latency.P99, SeparateP99: op.sep.Latency.P99, Ratio: r, Bound: bound})
			}
		}
	}
	return out
}
