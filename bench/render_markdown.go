package bench

// The Markdown tables the scenarios write (NAME.md), and the number formats
// they share.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
)

// WorkloadMarkdown renders a workload run's tables.
func WorkloadMarkdown(r *workload.WorkloadReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s: %d rooms, %d users, heartbeat %.0f s, lease %.0f s, grace %.0f s (%.0f s run)\n\n",
		r.Name, r.Rooms, r.Users, r.HeartbeatSecs, r.LeaseSecs, r.GraceSecs, r.ElapsedSecs)
	b.WriteString("| HTTP operation | n | p50 | p95 | p99 | max | per second | 2xx | 4xx | 5xx | transport errors |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, op := range workload.Ops {
		o := r.Ops[op]
		fmt.Fprintf(&b, "| %s | %s | %.1f | %d | %d | %d | %d |\n", op, render.LatencyRow(o.Latency), o.PerSecond, o.OK, o.Client4xx, o.Server5xx, o.Transport)
	}
	b.WriteString("\n| distribution | n | p50 | p95 | p99 | max |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| ghost time (crash → listener sees removal) | %s |\n", render.SecondsRow(r.GhostTime))
	fmt.Fprintf(&b, "| … of which after the lease end (sweep + listener lag) | %s |\n", render.SecondsRow(r.GhostBeyond))
	fmt.Fprintf(&b, "| graceful leave → listener sees removal (churn: one user at a time) | %s |\n", render.SecondsRow(r.LeaveVisible))
	fmt.Fprintf(&b, "| graceful leave → listener sees removal (end of run: a whole room leaves at once) | %s |\n", render.SecondsRow(r.LeaveDrain))
	fmt.Fprintf(&b, "| teardown lag (last departure → room deleted, seen by listener) | %s |\n", render.SecondsRow(r.TeardownLag))
	fmt.Fprintf(&b, "| … last departure by leave | %s |\n", render.SecondsRow(r.TeardownLeave))
	fmt.Fprintf(&b, "| … last departure by lease expiry | %s |\n", render.SecondsRow(r.TeardownExpiry))
	s := r.Steady
	if s.Heartbeats > 0 {
		fmt.Fprintf(&b, "\nSteady phase (%.0f s, no churn): %d sessions, %d heartbeats (%.1f/s, %d errors), roster-listener deliveries %d (%.3f per heartbeat, %d document reads), room-document-listener deliveries %d.\n",
			s.Seconds, s.Sessions, s.Heartbeats, s.HeartbeatsPerSecond, s.HeartbeatErrorsOther, s.RosterDeliveries, s.DeliveriesPerHB, s.RosterDocReads, s.RoomDocDeliveries)
	}
	fmt.Fprintf(&b, "\nFalse removals: **%d**. Rooms torn down: %d (still present at the end: %d; teardowns without an observed departure: %d). Heartbeats refused after their lease had ended (client late, not a false removal): %d. Listener errors: %d.\n",
		r.FalseRemovals, r.RoomsDeleted, r.RoomsLeft, r.TeardownNoCause, r.LateExpiries, r.ListenerErrors)
	if len(r.Events) > 0 {
		b.WriteString("\nEvents: ")
		first := true
		for _, k := range slices.Sorted(maps.Keys(r.Events)) {
			if !first {
				b.WriteString(", ")
			}
			first = false
			fmt.Fprintf(&b, "%s %d", k, r.Events[k])
		}
		b.WriteString(".\n")
	}
	for _, d := range r.FalseDetails {
		fmt.Fprintf(&b, "- %s\n", d)
	}
	if c := r.ServerCPU; c != nil {
		fmt.Fprintf(&b, "\nServer CPU time (/proc/PID/stat, user + system, the in-process sweeper included): %.1f s for %d requests answered, **%.2f ms a request**.\n",
			c.Seconds, c.Requests, c.MillisPerRequest)
	}
	return b.String()
}

// SoakMarkdown renders the soak's report.
func SoakMarkdown(r *workload.WorkloadReport) string {
	var b strings.Builder
	b.WriteString(WorkloadMarkdown(r))
	var five int64
	for _, o := range r.Ops {
		five += o.Server5xx
	}
	fmt.Fprintf(&b, "\n5xx responses: **%d**. False removals: **%d**.\n", five, r.FalseRemovals)
	if m := r.Memory; m != nil {
		fmt.Fprintf(&b, "Server memory (VmRSS, %d samples): first %.1f MiB, after warm-up %.1f MiB, last tenth %.1f MiB, peak %.1f MiB; growth from warm-up to the end %+.1f MiB.\n",
			m.Samples, kib(m.FirstKB), kib(m.WarmKB), kib(m.LateKB), kib(m.PeakKB), kib(m.GrowthKB))
	}
	return b.String()
}

func kib(v int64) float64 { return float64(v) / 1024 }

// OpsMarkdown renders per-operation counts.
func OpsMarkdown(counts []measure.OpCount) string {
	var b strings.Builder
	b.WriteString("| store operation | reads | writes | room document written | roster entry written |\n|---|---|---|---|---|\n")
	for _, c := range counts {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", c.Op, c.Reads, c.Writes, render.YesNo(c.RoomWritten), render.YesNo(c.RosterWritten))
	}
	return b.String()
}

// SweepMarkdown renders the sweeper's idle cost and teardown throughput.
func SweepMarkdown(res sweepResult) string {
	var b strings.Builder
	b.WriteString("| idle sweeper (every lease live) | rooms | reads per pass | writes per pass | pass p50 | pass p99 | reads of the next-deadline query |\n|---|---|---|---|---|---|---|\n")
	for _, c := range []measure.SweepCost{res.Idle10, res.Idle10k} {
		fmt.Fprintf(&b, "| | %d | %.1f | %.1f | %s | %s | %d |\n", c.Rooms, c.ReadsPerPass, c.WritesPerPass, render.Ms(c.PassLatency.P50), render.Ms(c.PassLatency.P99), c.NextDeadlineReads)
	}
	fmt.Fprintf(&b, "\nIdle reads ratio (%d rooms ÷ 10 rooms): **%.2f**.\n", res.Idle10k.Rooms, res.Ratio)
	t := res.Teardown
	fmt.Fprintf(&b, "\nBacklog of %d due empty rooms: %d torn down in %d passes and %.1f s: **%.1f rooms/s** (batch %d), %.1f reads and %.1f writes per room.\n",
		t.Rooms, t.Deleted, t.Passes, t.Seconds, t.RoomsPerSecond, t.BatchSize, t.ReadsPerRoom, t.WritesPerRoom)
	g := res.BigRoom
	fmt.Fprintf(&b, "\nOne room that %d people joined and left: torn down and purged in %d passes and %.1f s (longest pass %.1f s), %d failed steps; %d reads and %d writes.\n",
		g.Participants, g.Passes, g.Seconds, g.LongestPass, g.FailedSteps, g.Reads, g.Writes)
	return b.String()
}

// NaiveMarkdown renders the comparison.
func NaiveMarkdown(res naiveResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Store calls in process, every participant heartbeating every %.0f s for %d rounds, a roster listener attached.\n\n", res.Interval, res.Rounds)
	b.WriteString("| design | room size | heartbeats | success | p50 | p95 | p99 | max | per second | reads/hb | writes/hb | listener deliveries/hb |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range res.Rooms {
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f%% | %s | %s | %s | %s | %.1f | %.2f | %.2f | %.2f |\n", r.Design, r.Size, r.Heartbeats, 100*r.SuccessRate,
			render.Ms(r.Latency.P50), render.Ms(r.Latency.P95), render.Ms(r.Latency.P99), render.Ms(r.Latency.Max), r.PerSecond, r.ReadsPerHB, r.WritesPerHB, r.DeliveriesPerHB)
	}
	// Ratios naive / roomlease and roomlease / bare.
	idx := map[string]measure.RoomRun{}
	for _, r := range res.Rooms {
		idx[fmt.Sprintf("%s/%d", r.Design, r.Size)] = r
	}
	b.WriteString("\n| room size | naive ÷ roomlease p99 | naive ÷ roomlease deliveries | roomlease p99 ÷ bare-transaction p99 |\n|---|---|---|---|\n")
	for _, r := range res.Rooms {
		if r.Design != "roomlease" {
			continue
		}
		n, bare := idx[fmt.Sprintf("naive/%d", r.Size)], idx[fmt.Sprintf("bare transaction/%d", r.Size)]
		fmt.Fprintf(&b, "| %d | %.1f× | %s | %.2f× |\n", r.Size, workload.Ratio(n.Latency.P99, r.Latency.P99),
			deliveriesRatio(n.Deliveries, r.Deliveries), workload.Ratio(r.Latency.P99, bare.Latency.P99))
	}
	b.WriteString("\n| burst of simultaneous joins into one room | joins | succeeded | p50 | p95 | p99 | max | wall time | listener deliveries | reads | writes | errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range res.Bursts {
		fmt.Fprintf(&b, "| %s (store) | %d | %d (%.1f%%) | %s | %s | %s | %s | %.1f s | %d | %d | %d | %v |\n", x.Design, x.Joins, x.OK, 100*x.SuccessRate,
			render.Ms(x.Latency.P50), render.Ms(x.Latency.P95), render.Ms(x.Latency.P99), render.Ms(x.Latency.Max), x.WallSecs, x.Deliveries, x.Reads, x.Writes, x.Errors)
	}
	for _, h := range res.HTTP {
		if h.Kind == "burst" {
			j := h.Report.Ops[workload.OpJoin]
			fmt.Fprintf(&b, "| roomlease (HTTP) | %d | %d (%.1f%%) | %s | %s | %s | %s | %.1f s | – | – | – | %v |\n", h.Size, j.OK, 100*workload.Ratio(float64(j.OK), float64(h.Size)),
				render.Ms(j.Latency.P50), render.Ms(j.Latency.P95), render.Ms(j.Latency.P99), render.Ms(j.Latency.Max), h.WallSecs, j.Codes)
		}
	}
	if len(res.HTTP) > 0 {
		b.WriteString("\nroomlease over HTTP (roomlease-dev, token verification included), steady heartbeats:\n\n| room size | heartbeats | errors | p50 | p95 | p99 | max | roster deliveries/hb |\n|---|---|---|---|---|---|---|---|\n")
		for _, h := range res.HTTP {
			if h.Kind != "room" {
				continue
			}
			s := h.Report.Steady
			fmt.Fprintf(&b, "| %d | %d | %d | %s | %s | %s | %s | %.3f |\n", h.Size, s.Heartbeats, s.HeartbeatErrorsOther, render.Ms(s.HeartbeatLatency.P50), render.Ms(s.HeartbeatLatency.P95),
				render.Ms(s.HeartbeatLatency.P99), render.Ms(s.HeartbeatLatency.Max), s.DeliveriesPerHB)
		}
	}
	return b.String()
}

func deliveriesRatio(a, b int64) string {
	if b == 0 {
		return fmt.Sprintf("%d vs 0", a)
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}

// SettingsMarkdown renders the cost and ghost time of each heartbeat/lease
// setting, priced with the measured per-operation costs c, then each run's
// own tables.
func SettingsMarkdown(c settingsCosts, runs []SettingRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured costs (in-process store, Store.Ops()): a renewing heartbeat without a lease token %d reads / %d writes (with one, at renewAt: 0 reads / 1 write, see the fan-out table), one with more than RenewWhenLeft of its lease left 1 read / 0 writes; join of a new user %d / %d; leave of a user's last tab %d / %d (of which 1–2 are deletes, billed as writes here, which overstates the cost slightly). Reads and writes per participant-hour are counted, not multiplied: one join, a heartbeat at every renewAt for an hour on a stopped clock, with the lease token, one leave (RenewWhenLeft %s).\n\n",
		c.Heartbeat.Reads, c.Heartbeat.Writes, c.Join.Reads, c.Join.Writes, c.Leave.Reads, c.Leave.Writes, renewShares(runs))
	b.WriteString("| heartbeat / lease | requests per participant-hour | reads per participant-hour | writes per participant-hour | roster-listener reads per watching client per participant-hour | cost per 1 000 participant-hours (roomlease) | naive design: listener reads per watcher per participant-hour | ghost time p50 | p99 | max | n | beyond lease p99 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		usd := 1000 * (r.Reads*Prices.Reads + r.Writes*Prices.Writes) / 100000
		g := r.Report.GhostTime
		fmt.Fprintf(&b, "| %.0f s / %.0f s | %.0f | %.0f | %.0f | 2 (join + leave; heartbeats: %.2f per heartbeat measured) | $%.2f | %.0f | %s | %s | %s | %d | %s |\n",
			r.HeartbeatSecs, r.LeaseSecs, perHourOf(r).Requests, r.Reads, r.Writes, r.Report.Steady.DeliveriesPerHB, usd, 3600/r.HeartbeatSecs+2,
			render.Secs(g.P50), render.Secs(g.P99), render.Secs(g.Max), g.N, render.Secs(r.Report.GhostBeyond.P99))
	}
	b.WriteString("\nPer run (each with grace 10 s):\n\n")
	for _, r := range runs {
		b.WriteString(WorkloadMarkdown(r.Report))
		b.WriteString("\n")
	}
	return b.String()
}

func renewShares(runs []SettingRun) string {
	var shares []string
	for _, r := range runs {
		if v := strconv.FormatFloat(r.RenewWhenLeft, 'g', 3, 64); !slices.Contains(shares, v) {
			shares = append(shares, v)
		}
	}
	return strings.Join(shares, ", ")
}
