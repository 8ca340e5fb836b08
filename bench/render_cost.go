package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
)

// CostMarkdown renders the participant-hour before and after, priced
// whole per setting and traffic level, the runs' ghost times and false
// removals, the fixed costs with their arithmetic, and the monthly cost of
// a deployment.
func CostMarkdown(in costInputs, f FixedCosts) string {
	var b strings.Builder
	b.WriteString("#### Per participant-hour, before (commit 44580c2: a heartbeat every interval, each reading the session) and after (at renewAt, fenced by the lease token)\n\n")
	b.WriteString("| heartbeat / lease | requests | reads | writes | Firestore, US$ per 1 000 participant-hours | ghost p50 | ghost p99 | ghost max | crashes (n) | false removals |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range in.Settings {
		pb, pa := s.Before[0].PerHour, s.After[0].PerHour
		gb, ga := s.BeforeRun.Report.GhostTime, s.AfterRun.Report.GhostTime
		fmt.Fprintf(&b, "| %.0f s / %.0f s | %.0f → **%.0f** | %.0f → **%.0f** | %.0f → **%.0f** | $%.2f → **$%.2f** | %s → %s | %s → %s | %s → %s | %d → %d | %d → %d |\n",
			s.HeartbeatSecs, s.LeaseSecs, pb.Requests, pa.Requests, pb.Reads, pa.Reads, pb.Writes, pa.Writes,
			1000*pb.FirestoreUSD(), 1000*pa.FirestoreUSD(),
			render.Secs(gb.P50), render.Secs(ga.P50), render.Secs(gb.P99), render.Secs(ga.P99), render.Secs(gb.Max), render.Secs(ga.Max), gb.N, ga.N,
			s.BeforeRun.Report.FalseRemovals, s.AfterRun.Report.FalseRemovals)
	}
	b.WriteString("\n| run (5 s / 15 s) | server CPU per request | ghost p50 | ghost p99 | ghost max | beyond lease p99 | crashes (n) | false removals | heartbeats rejected after the lease end |\n|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, bf, a *workload.WorkloadReport) {
		if a == nil || a.Name == "" {
			fmt.Fprintf(&b, "| %s | not run | | | | | | | |\n", name)
			return
		}
		if bf == nil || bf.Name == "" { // after only
			fmt.Fprintf(&b, "| %s (after only) | %s | %s | %s | %s | %s | %d | %d | %d |\n", name, cpuCell(a),
				render.Secs(a.GhostTime.P50), render.Secs(a.GhostTime.P99), render.Secs(a.GhostTime.Max), render.Secs(a.GhostBeyond.P99),
				a.GhostTime.N, a.FalseRemovals, a.LateExpiries)
			return
		}
		fmt.Fprintf(&b, "| %s | %s → %s | %s → %s | %s → %s | %s → %s | %s → %s | %d → %d | %d → %d | %d → %d |\n", name,
			cpuCell(bf), cpuCell(a),
			render.Secs(bf.GhostTime.P50), render.Secs(a.GhostTime.P50), render.Secs(bf.GhostTime.P99), render.Secs(a.GhostTime.P99),
			render.Secs(bf.GhostTime.Max), render.Secs(a.GhostTime.Max), render.Secs(bf.GhostBeyond.P99), render.Secs(a.GhostBeyond.P99),
			bf.GhostTime.N, a.GhostTime.N, bf.FalseRemovals, a.FalseRemovals, bf.LateExpiries, a.LateExpiries)
	}
	row(fmt.Sprintf("load (%d users)", in.AfterLoad.Users), in.BeforeLoad, in.AfterLoad)
	soakName := "soak"
	switch {
	case in.AfterSoak != nil && in.BeforeSoak != nil:
		soakName = fmt.Sprintf("soak (%d users; before %.0f min, after %.0f min)", in.AfterSoak.Users, in.BeforeSoak.ElapsedSecs/60, in.AfterSoak.ElapsedSecs/60)
	case in.AfterSoak != nil:
		soakName = fmt.Sprintf("soak (%d users, %.0f min)", in.AfterSoak.Users, in.AfterSoak.ElapsedSecs/60)
	}
	row(soakName, in.BeforeSoak, in.AfterSoak)

	p := in.Presence
	fmt.Fprintf(&b, "\n#### Priced whole, per setting: US$ per 1 000 participant-hours, before → after\n\n"+
		"Presence as `terraform/modules/roomlease` deploys it: %.0f vCPU, %s, %d requests at once, billed per request (CPU only during requests). "+
		"Instance time: each request holds its instance for its latency (the run's median heartbeat on the emulator) rounded up to %.0f ms; "+
		"an instance is billed for the share of the hour in which it holds at least one (1 − e^(−λT)), at $%.6f per vCPU-second and $%.7f per GiB-second; "+
		"instances enough to stay at %.0f %% of their CPU (at the measured CPU per request) and of their concurrency. Before free tiers.\n",
		p.VCPU, p.Memory, p.Concurrency, 1000*billingQuantum, CloudPrices.VCPUSecond, CloudPrices.GiBSecond, 100*autoscaleTarget)
	for _, s := range in.Settings {
		fmt.Fprintf(&b, "\n**%.0f s / %.0f s**\n\n| |", s.HeartbeatSecs, s.LeaseSecs)
		for _, n := range trafficLevels {
			fmt.Fprintf(&b, " %s participants online |", thousands(float64(n)))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(trafficLevels)) + "\n")
		cells := func(name string, v func(FullCost) float64, bold bool) {
			fmt.Fprintf(&b, "| %s |", name)
			for i := range trafficLevels {
				x, y := 1000*v(s.Before[i]), 1000*v(s.After[i])
				if bold {
					fmt.Fprintf(&b, " $%.2f → **$%.2f** (%+.0f %%) |", x, y, 100*(y-x)/x)
				} else {
					fmt.Fprintf(&b, " $%.2f → $%.2f |", x, y)
				}
			}
			b.WriteString("\n")
		}
		cells("Firestore", func(c FullCost) float64 { return c.PerHour.FirestoreUSD() }, false)
		cells(fmt.Sprintf("requests ($%.2f per million)", CloudPrices.PerMillionRequests), func(c FullCost) float64 { return c.PerHour.RequestsUSD() }, false)
		cells("instance time", func(c FullCost) float64 { return c.Instance.USD }, false)
		cells("**total**", FullCost.USD, true)
		fmt.Fprintf(&b, "| instance arithmetic |")
		for i := range trafficLevels {
			fmt.Fprintf(&b, " %s → %s |", instanceCell(s.Before[i].Instance), instanceCell(s.After[i].Instance))
		}
		b.WriteString("\n")
	}
	for _, s := range in.Settings {
		if s.HeartbeatSecs != 5 {
			continue
		}
		b.WriteString("\nAt 5 s / 15 s the whole price of a participant-hour falls by")
		for i, n := range trafficLevels {
			fmt.Fprintf(&b, " **%.0f %%** with %s participants online", 100*fullCostDrop(s.Before[i], s.After[i]), thousands(float64(n)))
			if i < len(trafficLevels)-1 {
				b.WriteString(" and")
			}
		}
		b.WriteString(" (issue 22's target: at least 40 %).\n")
	}

	d := f.Sweep
	cpuNote := "set by `available_cpu`"
	if d.CPUFromDefault {
		cpuNote = "the default for " + d.Memory + "; no `available_cpu` is set"
	}
	b.WriteString("\n#### Fixed monthly costs (730 h), as `terraform/modules/roomlease` deploys them\n\n")
	b.WriteString("| item | arithmetic | US$ per month |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| Sweep instance time | %s runs (one a minute) × %.0f s busy = %s s; × %.3f vCPU (%s) = %s vCPU-s × $%.6f; × %.3f GiB (%s) = %s GiB-s × $%.7f | **$%.2f** ($%.2f if the billing account's free %s vCPU-s and %s GiB-s are otherwise unused) |\n",
		thousands(f.Requests), d.BudgetSeconds, thousands(f.BusySecondsPerMonth), d.VCPU, cpuNote, thousands(f.VCPUSeconds), CloudPrices.VCPUSecond,
		d.MemoryGiB, d.Memory, thousands(f.GiBSeconds), CloudPrices.GiBSecond, f.Compute, f.ComputeAfterFreeTier, thousands(CloudPrices.FreeVCPUSeconds), thousands(CloudPrices.FreeGiBSeconds))
	fmt.Fprintf(&b, "| Sweep requests | %s, inside the %s free requests a month | $0 ($%.2f per million beyond) |\n", thousands(f.Requests), thousands(CloudPrices.FreeRequests), CloudPrices.PerMillionRequests)
	fmt.Fprintf(&b, "| Sweep Firestore, idle | %.0f passes a run (%.0f s ÷ %.0f s) × (%.0f reads a pass + %d of the next-deadline query, measured with %s rooms) = %.0f reads a run × %s runs = %s reads × $%.2f/100 000; + %s status writes × $%.2f/100 000 (a named database has no free quota) | **$%.2f** |\n",
		math.Ceil(d.BudgetSeconds/sweepMaxPause), d.BudgetSeconds, sweepMaxPause, in.Sweep.Idle10k.ReadsPerPass, in.Sweep.Idle10k.NextDeadlineReads, thousands(float64(in.Sweep.Idle10k.Rooms)),
		f.IdleReadsPerRun, thousands(f.Requests), thousands(f.IdleReadsPerMonth), Prices.Reads, thousands(f.StatusWritesPerMonth), Prices.Writes, f.Firestore)
	fmt.Fprintf(&b, "| Cloud Scheduler | %d job × $%.2f (3 jobs a month are free per billing account) | **$%.2f** ($0 within the free jobs) |\n", d.SchedulerJobs, CloudPrices.SchedulerJobMonth, f.Scheduler)
	fmt.Fprintf(&b, "| Log-based metrics | %d metrics × one point a minute = %s points; chargeable at $%.3f/MiB beyond %.0f MiB a month per billing account, which they stay within unless a point is billed at more than %.0f bytes (the billed size of a point was not found on the pages consulted) | **$0** (assumed within the free allotment) |\n",
		d.LogMetrics, thousands(f.MetricPointsPerMonth), CloudPrices.MonitoringPerMiB, CloudPrices.FreeMonitoringMiB, f.FreeBytesPerPoint)
	fmt.Fprintf(&b, "| Alert policies | %d policies | not priced (see below) |\n", d.AlertPolicies)
	fmt.Fprintf(&b, "| **total** | | **$%.2f** ($%.2f after free tiers) |\n", f.Total, f.TotalAfterFreeTiers)

	b.WriteString("\n#### A deployment per month (730 h), before free tiers\n\n")
	b.WriteString("Fixed costs as above, plus each participant-hour priced whole (Firestore, Presence requests and instance time). Not included: Cloud Logging's request logs, listener reads (they depend on the audience), storage and network.\n\n")
	b.WriteString("| heartbeat / lease | participants online | participant-hours a month | per participant-hour, before → after | fixed | total a month, before → after |\n|---|---|---|---|---|---|\n")
	for _, s := range in.Settings {
		for i, n := range trafficLevels {
			hours := float64(n) * HoursPerMonth
			ub, ua := s.Before[i].USD(), s.After[i].USD()
			fmt.Fprintf(&b, "| %.0f s / %.0f s | %s | %s | $%.5f → $%.5f | $%.2f | $%s → **$%s** |\n", s.HeartbeatSecs, s.LeaseSecs, thousands(float64(n)), thousands(hours),
				ub, ua, f.Total, money(f.Total+hours*ub), money(f.Total+hours*ua))
		}
	}
	return b.String()
}

// cpuCell is a run's server CPU per request, or a dash without one.
func cpuCell(r *workload.WorkloadReport) string {
	if r.ServerCPU == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", r.ServerCPU.MillisPerRequest)
}

// instanceCell writes out how an instance time was priced.
func instanceCell(it InstanceTime) string {
	return fmt.Sprintf("%.0f req/h, CPU %.2f ms, T %.0f ms, %d inst., busy %.0f %%, %.1f inst.-s",
		it.RequestsPerHour, 1000*it.CPUSeconds, 1000*it.HeldSeconds, it.Instances, 100*it.BusyShare, it.InstanceSeconds)
}

// fullCostDrop is the fall of the whole price from before to after, as a
// fraction of before.
func fullCostDrop(before, after FullCost) float64 {
	return 1 - after.USD()/math.Max(before.USD(), 1e-12)
}
