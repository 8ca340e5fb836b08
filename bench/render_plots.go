package bench

import (
	"fmt"
	"time"

	"github.com/roomlease/roomlease/bench/render"

	"github.com/roomlease/roomlease/bench/workload"
)

// The SVG plots the scenarios write, each built on render.Plot (bench/render/svg.go).

// LatencyPlot plots heartbeat latency against room size for each design.
func LatencyPlot(res naiveResult) string {
	by := map[string]*[2]render.Series{}
	var order []string
	for _, r := range res.Rooms {
		s, ok := by[r.Design]
		if !ok {
			s = &[2]render.Series{{Name: r.Design + " p50"}, {Name: r.Design + " p99", Dashed: true}}
			by[r.Design] = s
			order = append(order, r.Design)
		}
		s[0].X, s[0].Y = append(s[0].X, float64(r.Size)), append(s[0].Y, r.Latency.P50)
		s[1].X, s[1].Y = append(s[1].X, float64(r.Size)), append(s[1].Y, r.Latency.P99)
	}
	var http [2]render.Series
	http[0].Name, http[1].Name, http[1].Dashed = "roomlease HTTP p50", "roomlease HTTP p99", true
	for _, h := range res.HTTP {
		if h.Kind != "room" {
			continue
		}
		http[0].X, http[0].Y = append(http[0].X, float64(h.Size)), append(http[0].Y, h.Report.Steady.HeartbeatLatency.P50)
		http[1].X, http[1].Y = append(http[1].X, float64(h.Size)), append(http[1].Y, h.Report.Steady.HeartbeatLatency.P99)
	}
	p := render.Plot{Title: "Heartbeat latency against room size (store call, emulator)", XLabel: "participants in the room (log)", YLabel: "latency, ms (log)", LogX: true, LogY: true}
	for _, d := range order {
		p.Series = append(p.Series, by[d][0], by[d][1])
	}
	if len(http[0].X) > 0 {
		p.Series = append(p.Series, http[0], http[1])
	}
	return p.SVG()
}

// GhostTimePlot is the load run's ghost time (crash to the removal seen by a
// roster listener) beside graceful leaves, against the lease.
func GhostTimePlot(rep *workload.WorkloadReport, lease time.Duration) string {
	return render.Plot{Title: "Ghost time: crash → roster listener sees the removal (5 s / 15 s)", XLabel: "seconds", YLabel: "fraction of crashes",
		Series: []render.Series{render.CDF("ghost time", rep.Samples["ghost"], 0.001), render.CDF("graceful leave", rep.Samples["leaveVisible"], 0.001)},
		Marks:  []render.Mark{{X: lease.Seconds(), Label: "lease"}, {X: lease.Seconds() + 1, Label: "target"}}}.SVG()
}

// TeardownLagPlot is the load run's teardown lag (last departure to the room
// deleted) against the grace.
func TeardownLagPlot(rep *workload.WorkloadReport, grace time.Duration) string {
	return render.Plot{Title: "Teardown lag: last departure → room deleted (grace 30 s)", XLabel: "seconds", YLabel: "fraction of rooms",
		Series: []render.Series{render.CDF("teardown lag", rep.Samples["teardown"], 0.001)},
		Marks:  []render.Mark{{X: grace.Seconds(), Label: "grace"}, {X: grace.Seconds() + 1, Label: "target"}}}.SVG()
}

// GhostTimeBySettingPlot is the ghost time of each heartbeat/lease setting.
func GhostTimeBySettingPlot(runs []SettingRun) string {
	var series []render.Series
	for _, r := range runs {
		series = append(series, render.CDF(fmt.Sprintf("%.0f s / %.0f s", r.HeartbeatSecs, r.LeaseSecs), r.Report.Samples["ghost"], 0.001))
	}
	return render.Plot{Title: "Ghost time by heartbeat / lease setting", XLabel: "seconds from crash to removal seen", YLabel: "fraction of crashes", Series: series}.SVG()
}

// MemoryPlot plots a server's RSS over time.
func MemoryPlot(m *workload.MemoryReport) string {
	s := render.Series{Name: "VmRSS"}
	for _, x := range m.Series {
		s.X = append(s.X, x.AtSeconds/60)
		s.Y = append(s.Y, float64(x.KiB)/1024)
	}
	return render.Plot{Title: "roomlease-dev resident memory during the soak", XLabel: "minutes", YLabel: "MiB", Series: []render.Series{s}}.SVG()
}

// WritesBySettingPlot is Firestore writes per participant-hour against the
// heartbeat interval, before (every heartbeat renews) and after.
func WritesBySettingPlot(before, after []SettingRun) string {
	line := func(name string, runs []SettingRun, dashed bool) render.Series {
		s := render.Series{Name: name, Dashed: dashed}
		for _, r := range runs {
			s.X, s.Y = append(s.X, r.HeartbeatSecs), append(s.Y, r.Writes)
		}
		return s
	}
	return render.Plot{Title: "Firestore writes per participant-hour (lease = 3 × heartbeat)", XLabel: "heartbeat interval, s (log)", YLabel: "writes (log)", LogX: true, LogY: true,
		Series: []render.Series{line("before: every heartbeat renews", before, true), line("after: renew when ≤ half the lease is left", after, false)}}.SVG()
}

// GhostBeforeAfterPlot is ghost time (crash to the removal a roster
// listener sees) as a multiple of the lease, p50 and max, against the
// heartbeat interval, before and after: skipping renewals may shorten it,
// never lengthen it.
func GhostBeforeAfterPlot(before, after []SettingRun) string {
	line := func(name string, runs []SettingRun, dashed bool, pick func(workload.Summary) float64) render.Series {
		s := render.Series{Name: name, Dashed: dashed}
		for _, r := range runs {
			s.X, s.Y = append(s.X, r.HeartbeatSecs), append(s.Y, pick(r.Report.GhostTime)/1000/r.LeaseSecs)
		}
		return s
	}
	p50 := func(s workload.Summary) float64 { return s.P50 }
	mx := func(s workload.Summary) float64 { return s.Max }
	return render.Plot{Title: "Ghost time ÷ lease, before (dashed) and after", XLabel: "heartbeat interval, s (log)", YLabel: "ghost time ÷ lease", LogX: true,
		Series: []render.Series{line("before p50", before, true, p50), line("before max", before, true, mx), line("after p50", after, false, p50), line("after max", after, false, mx)}}.SVG()
}

// CostGhostPlot is the whole price of 1 000 participant-hours against the
// ghost time the setting gives (its measured p99), before (dashed) and
// after, at each traffic level: what a shorter ghost costs.
func CostGhostPlot(settings []CostSetting) string {
	var series []render.Series
	for i, n := range trafficLevels {
		for _, side := range []struct {
			name   string
			dashed bool
		}{{"before", true}, {"after", false}} {
			s := render.Series{Name: fmt.Sprintf("%s, %d online", side.name, n), Dashed: side.dashed, Color: render.PaletteColor(i)}
			for _, c := range settings {
				run, cost := c.AfterRun, c.After[i]
				if side.dashed {
					run, cost = c.BeforeRun, c.Before[i]
				}
				s.X = append(s.X, run.Report.GhostTime.P99/1000)
				s.Y = append(s.Y, 1000*cost.USD())
			}
			series = append(series, s)
		}
	}
	return render.Plot{Title: "Whole price against ghost time, by heartbeat / lease setting", XLabel: "ghost time p99, s (2/6, 5/15, 10/30)",
		YLabel: "US$ per 1 000 participant-hours", Series: series}.SVG()
}
