package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/render"

	"github.com/roomlease/roomlease/bench/workload"
)

// runSoak is `scripts/bench soak`: a long churn run at the default
// settings that samples the server's memory (soak.json, soak.md,
// soak-memory.svg).
func runSoak(ctx context.Context, o harness.Options) error {
	hb, lease, grace := 5*time.Second, 15*time.Second, 30*time.Second
	rooms := 20
	per := max(o.SoakClients/rooms, 1)
	var rep *workload.WorkloadReport
	err := harness.WithStack(ctx, o, "soak", hb, lease, grace, func(url string, pid int, client *firestore.Client) error {
		cfg := workload.WorkloadConfig{Name: "soak", RoomPrefix: fmt.Sprintf("soak-%d", time.Now().Unix()), Rooms: rooms, PerRoom: per,
			TwoTabs: 0.2, Steady: 15 * time.Second, Churn: o.Duration,
			CrashProb: 0.004, LeaveProb: 0.004, TabToggleProb: 0.01, TabCrashProb: 0.004, RoomSwitchProb: 0.3,
			ReconnectEarly: 0.3, ReadEveryTicks: 6, Grace: grace, Drain: true, DrainWait: lease + grace + 60*time.Second,
			Seed: 42, AuthHost: o.AuthHost, ServerPID: pid, RSSInterval: 5 * time.Second,
			ProgressInterval: time.Minute, Progress: o.Log}
		var err error
		rep, err = workload.NewWorkload(cfg, url, client).Run(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if err := render.WriteJSON(filepath.Join(o.OutDir, "soak.json"), rep); err != nil {
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
