package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cloud.google.com/go/firestore"
)

// Options configure a benchmark invocation.
type Options struct {
	ServerBin     string
	OutDir        string
	Project       string
	FirestoreHost string
	AuthHost      string
	Duration      time.Duration // soak
	SoakClients   int
	Quick         bool
	Sizes         []int // naive: room sizes (default 10, 50, 100, 200, 500)
	Rounds        int   // naive: heartbeat rounds per participant (default 3)
	Log           func(string)
}

// ScenarioNames lists what RunScenarios accepts ("all" runs every one but soak).
var ScenarioNames = []string{"ops", "load", "settings", "sweep", "naive", "soak"}

// RunScenarios runs the named scenarios and writes their results.
func RunScenarios(ctx context.Context, o Options, names []string) error {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	var expanded []string
	for _, n := range names {
		if n == "all" {
			expanded = append(expanded, "ops", "load", "settings", "sweep", "naive")
			continue
		}
		expanded = append(expanded, n)
	}
	for _, n := range expanded {
		o.Log("== " + n)
		var err error
		switch n {
		case "soak":
			err = runSoak(ctx, o)
		case "ops":
			err = runOps(ctx, o)
		case "load":
			err = runLoad(ctx, o)
		case "settings":
			err = runSettings(ctx, o)
		case "sweep":
			err = runSweep(ctx, o)
		case "naive":
			err = runNaive(ctx, o)
		default:
			err = fmt.Errorf("unknown scenario %q (want one of %v or all)", n, ScenarioNames)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// serverEnv returns the environment for a roomlease-dev with these settings.
func (o Options) serverEnv(hb, lease, grace time.Duration) map[string]string {
	return map[string]string{
		"ROOMLEASE_PROJECT_ID":         o.Project,
		"ROOMLEASE_HEARTBEAT_INTERVAL": hb.String(),
		"ROOMLEASE_LEASE":              lease.String(),
		"ROOMLEASE_EMPTY_ROOM_GRACE":   grace.String(),
		"ROOMLEASE_LOG_LEVEL":          "warning",
		"ROOMLEASE_CLEANUP_MODE":       "enforce",
	}
}

// withStack starts roomlease-dev with the given settings and a Firestore
// client on its project, runs f, and stops the server.
func withStack(ctx context.Context, o Options, name string, hb, lease, grace time.Duration, f func(url string, pid int, client *firestore.Client) error) error {
	if o.ServerBin == "" {
		return fmt.Errorf("-server-bin is required for %s", name)
	}
	srv, err := StartServer(ctx, o.ServerBin, o.serverEnv(hb, lease, grace), filepath.Join(os.TempDir(), "roomlease-bench-server-"+name+".log"))
	if err != nil {
		return err
	}
	defer srv.Stop()
	client, err := firestore.NewClient(ctx, o.Project)
	if err != nil {
		return err
	}
	defer client.Close()
	return f(srv.URL, srv.PID, client)
}

func runSoak(ctx context.Context, o Options) error {
	hb, lease, grace := 5*time.Second, 15*time.Second, 30*time.Second
	rooms := 20
	per := max(o.SoakClients/rooms, 1)
	var rep *WorkloadReport
	err := withStack(ctx, o, "soak", hb, lease, grace, func(url string, pid int, client *firestore.Client) error {
		cfg := WorkloadConfig{Name: "soak", RoomPrefix: fmt.Sprintf("soak-%d", time.Now().Unix()), Rooms: rooms, PerRoom: per,
			TwoTabs: 0.2, Steady: 15 * time.Second, Churn: o.Duration,
			CrashProb: 0.004, LeaveProb: 0.004, TabToggleProb: 0.01, TabCrashProb: 0.004, RoomSwitchProb: 0.3,
			ReconnectEarly: 0.3, ReadEveryTicks: 6, Grace: grace, Drain: true, DrainWait: lease + grace + 60*time.Second,
			Seed: 42, AuthHost: o.AuthHost, ServerPID: pid, RSSInterval: 5 * time.Second,
			ProgressInterval: time.Minute, Progress: o.Log}
		var err error
		rep, err = NewWorkload(cfg, url, client).Run(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(o.OutDir, "soak.json"), rep); err != nil {
		return err
	}
	md := SoakMarkdown(rep)
	if err := os.WriteFile(filepath.Join(o.OutDir, "soak.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if rep.Memory != nil {
		if err := os.WriteFile(filepath.Join(o.OutDir, "soak-memory.svg"), []byte(MemoryPlot(rep.Memory)), 0o644); err != nil {
			return err
		}
	}
	o.Log("\n" + md)
	return nil
}
