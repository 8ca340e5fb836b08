package bench

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/workload"
)

// churnConfig is the lifecycle workload: rooms of users with second tabs,
// a steady phase, random crashes, leaves, reconnects and tab changes, then
// everyone departs (half the rooms by leave, half by crash).
func churnConfig(o harness.Options, name string, rooms, per int, hb, lease, grace time.Duration) workload.WorkloadConfig {
	churn := 90 * time.Second
	if o.Quick {
		churn = 20 * time.Second
	}
	return workload.WorkloadConfig{Name: name, RoomPrefix: fmt.Sprintf("%s-%d", name, time.Now().Unix()), Rooms: rooms, PerRoom: per,
		TwoTabs: 0.3, Steady: 3 * hb, Churn: churn,
		CrashProb: 0.03, LeaveProb: 0.02, TabToggleProb: 0.02, TabCrashProb: 0.01, RoomSwitchProb: 0.2, ReconnectEarly: 0.3,
		ReadEveryTicks: 4, Grace: grace, Drain: true, DrainWait: lease + grace + 45*time.Second,
		JoinConcurrency: 8, Seed: 7, AuthHost: o.AuthHost, Progress: o.Log, ProgressInterval: 30 * time.Second}
}

// runLoad is `scripts/bench load`: the churn workload over HTTP at the
// default settings, for ghost time and teardown lag (load.json, load.md,
// ghost-time.svg, teardown-lag.svg).
func runLoad(ctx context.Context, o harness.Options) error {
	hb, lease, grace := 5*time.Second, 15*time.Second, 30*time.Second
	rooms, per := 10, 10
	if o.Quick {
		rooms, per = 4, 5
	}
	var rep *workload.WorkloadReport
	err := harness.WithStack(ctx, o, "load", hb, lease, grace, func(url string, pid int, client *firestore.Client) error {
		cfg := churnConfig(o, "load", rooms, per, hb, lease, grace)
		cfg.ServerPID = pid
		var err error
		rep, err = workload.NewWorkload(cfg, url, client).Run(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if err := o.SVG("ghost-time", GhostTimePlot(rep, lease)); err != nil {
		return err
	}
	if err := o.SVG("teardown-lag", TeardownLagPlot(rep, grace)); err != nil {
		return err
	}
	return o.Write("load", WorkloadMarkdown(rep), rep)
}
