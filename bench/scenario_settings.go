package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/workload"
)

// Prices are list-price assumptions (see BENCHMARKS.md), US$ per 100 000.
var Prices = struct{ Reads, Writes, Deletes float64 }{0.03, 0.09, 0.01}

// settingsCosts are per-operation counts shown beside the settings: a
// renewing heartbeat, a join, a leave.
type settingsCosts struct{ Heartbeat, Join, Leave measure.OpCount }

// settingsCostsOf picks the measurements shown beside the settings out of
// measure.MeasureOps' results. A label measure.MeasureOps no longer uses is an error:
// read from a map it would price the operation at zero.
func settingsCostsOf(counts []measure.OpCount) (settingsCosts, error) {
	find := func(label string) (measure.OpCount, error) {
		for _, c := range counts {
			if c.Op == label {
				return c, nil
			}
		}
		return measure.OpCount{}, fmt.Errorf("MeasureOps measured no %q, which the settings are priced with", label)
	}
	hb, err1 := find(measure.HeartbeatRenewLabel)
	join, err2 := find("join: another user")
	leave, err3 := find("leave: a user's last tab")
	return settingsCosts{Heartbeat: hb, Join: join, Leave: leave}, errors.Join(err1, err2, err3)
}

// SettingRun is one heartbeat/lease setting.
type SettingRun struct {
	HeartbeatSecs float64                  `json:"heartbeatSeconds"`
	LeaseSecs     float64                  `json:"leaseSeconds"`
	Report        *workload.WorkloadReport `json:"report"`
	// Per participant-hour: one join, an hour of heartbeats on schedule and
	// one leave, counted exactly (measure.ParticipantHour). Requests is
	// absent from results older than the count: theirs was one heartbeat
	// every interval.
	Requests      float64 `json:"requestsPerParticipantHour,omitempty"`
	Reads         float64 `json:"readsPerParticipantHour"`
	Writes        float64 `json:"writesPerParticipantHour"`
	RenewWhenLeft float64 `json:"renewWhenLeft"`
}

// runSettings is `scripts/bench settings`: the churn workload at three
// heartbeat/lease settings, priced with the per-operation counts measured
// first (settings.json, settings.md, ghost-time-by-setting.svg).
func runSettings(ctx context.Context, o harness.Options) error {
	client, err := harness.ProjectClient(ctx, "cost")
	if err != nil {
		return err
	}
	counts, err := measure.MeasureOps(ctx, client, "cost-room")
	client.Close()
	if err != nil {
		return err
	}
	c, err := settingsCostsOf(counts)
	if err != nil {
		return err
	}
	grace := 10 * time.Second
	var runs []SettingRun
	for _, s := range [][2]time.Duration{{2 * time.Second, 6 * time.Second}, {5 * time.Second, 15 * time.Second}, {10 * time.Second, 30 * time.Second}} {
		name := fmt.Sprintf("settings-%.0f-%.0f", s[0].Seconds(), s[1].Seconds())
		var rep *workload.WorkloadReport
		err := harness.WithStack(ctx, o, name, s[0], s[1], grace, func(url string, pid int, client *firestore.Client) error {
			cfg := churnConfig(o, name, 4, 8, s[0], s[1], grace)
			cfg.ServerPID = pid // for its CPU time per request
			// The same number of crashes per minute at every setting.
			cfg.CrashProb, cfg.LeaveProb = 0.03*s[0].Seconds()/5, 0.02*s[0].Seconds()/5
			cfg.Churn = 60 * time.Second
			if o.Quick {
				cfg.Churn = 20 * time.Second
			}
			var err error
			rep, err = workload.NewWorkload(cfg, url, client).Run(ctx)
			return err
		})
		if err != nil {
			return err
		}
		hour, settings, err := measure.ParticipantHour(ctx, s[0], s[1])
		if err != nil {
			return err
		}
		runs = append(runs, SettingRun{HeartbeatSecs: s[0].Seconds(), LeaseSecs: s[1].Seconds(), Report: rep,
			Requests: float64(hour.Requests), Reads: float64(hour.Reads), Writes: float64(hour.Writes), RenewWhenLeft: settings.RenewWhenLeft})
	}
	if err := o.SVG("ghost-time-by-setting", GhostTimeBySettingPlot(runs)); err != nil {
		return err
	}
	return o.Write("settings", SettingsMarkdown(c, runs), runs)
}
