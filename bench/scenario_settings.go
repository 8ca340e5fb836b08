package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
)

// Prices are list-price assumptions (see BENCHMARKS.md), US$ per 100 000.
var Prices = struct{ Reads, Writes, Deletes float64 }{0.03, 0.09, 0.01}

// SettingRun is one heartbeat/lease setting.
type SettingRun struct {
	HeartbeatSecs float64         `json:"heartbeatSeconds"`
	LeaseSecs     float64         `json:"leaseSeconds"`
	Report        *WorkloadReport `json:"report"`
	// Per participant-hour (one session, one join and one leave per hour).
	Reads, Writes, Deletes float64 `json:"-"`
}

// runSettings is `scripts/bench settings`: the churn workload at three
// heartbeat/lease settings, priced with the per-operation counts measured
// first (settings.json, settings.md, ghost-time-by-setting.svg).
func runSettings(ctx context.Context, o Options) error {
	client, err := projectClient(ctx, "cost")
	if err != nil {
		return err
	}
	counts, err := MeasureOps(ctx, client, "cost-room")
	client.Close()
	if err != nil {
		return err
	}
	cost := map[string]OpCount{}
	for _, c := range counts {
		cost[c.Op] = c
	}
	hbCost, joinCost, leaveCost := cost["heartbeat #2"], cost["join: another user"], cost["leave: a user's last tab"]
	grace := 10 * time.Second
	var runs []SettingRun
	for _, s := range [][2]time.Duration{{2 * time.Second, 6 * time.Second}, {5 * time.Second, 15 * time.Second}, {10 * time.Second, 30 * time.Second}} {
		name := fmt.Sprintf("settings-%.0f-%.0f", s[0].Seconds(), s[1].Seconds())
		var rep *WorkloadReport
		err := withStack(ctx, o, name, s[0], s[1], grace, func(url string, pid int, client *firestore.Client) error {
			cfg := churnConfig(o, name, 4, 8, s[0], s[1], grace)
			// The same number of crashes per minute at every setting.
			cfg.CrashProb, cfg.LeaveProb = 0.03*s[0].Seconds()/5, 0.02*s[0].Seconds()/5
			cfg.Churn = 60 * time.Second
			if o.Quick {
				cfg.Churn = 20 * time.Second
			}
			var err error
			rep, err = NewWorkload(cfg, url, client).Run(ctx)
			return err
		})
		if err != nil {
			return err
		}
		hbPerHour := 3600 / s[0].Seconds()
		runs = append(runs, SettingRun{HeartbeatSecs: s[0].Seconds(), LeaseSecs: s[1].Seconds(), Report: rep,
			Reads:  hbPerHour*float64(hbCost.Reads) + float64(joinCost.Reads+leaveCost.Reads),
			Writes: hbPerHour*float64(hbCost.Writes) + float64(joinCost.Writes+leaveCost.Writes)})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured costs (in-process store, Store.Ops()): heartbeat %d reads / %d writes; join of a new user %d / %d; leave of a user's last tab %d / %d (of which 1–2 are deletes, billed as writes here, which overstates the cost slightly).\n\n",
		hbCost.Reads, hbCost.Writes, joinCost.Reads, joinCost.Writes, leaveCost.Reads, leaveCost.Writes)
	b.WriteString("| heartbeat / lease | reads per participant-hour | writes per participant-hour | roster-listener reads per watching client per participant-hour | cost per 1 000 participant-hours (roomlease) | naive design: listener reads per watcher per participant-hour | ghost time p50 | p99 | max | n | beyond lease p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		usd := 1000 * (r.Reads*Prices.Reads + r.Writes*Prices.Writes) / 100000
		g := r.Report.GhostTime
		fmt.Fprintf(&b, "| %.0f s / %.0f s | %.0f | %.0f | 2 (join + leave; heartbeats: %.2f per heartbeat measured) | $%.2f | %.0f | %s | %s | %s | %d | %s |\n",
			r.HeartbeatSecs, r.LeaseSecs, r.Reads, r.Writes, r.Report.Steady.DeliveriesPerHB, usd, 3600/r.HeartbeatSecs+2,
			secs(g.P50), secs(g.P99), secs(g.Max), g.N, secs(r.Report.GhostBeyond.P99))
	}
	b.WriteString("\nPer run (each with grace 10 s):\n\n")
	for _, r := range runs {
		b.WriteString(WorkloadMarkdown(r.Report))
		b.WriteString("\n")
	}
	var series []Series
	for _, r := range runs {
		series = append(series, CDF(fmt.Sprintf("%.0f s / %.0f s", r.HeartbeatSecs, r.LeaseSecs), r.Report.Samples["ghost"], 0.001))
	}
	if err := o.svg("ghost-time-by-setting", Plot{Title: "Ghost time by heartbeat / lease setting", XLabel: "seconds from crash to removal seen", YLabel: "fraction of crashes", Series: series}.SVG()); err != nil {
		return err
	}
	return o.write("settings", b.String(), runs)
}
