package bench

import (
	"fmt"
	"strings"
)

func ms(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 10000:
		return fmt.Sprintf("%.1f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	default:
		return fmt.Sprintf("%.1f ms", v)
	}
}

func secs(v float64) string { return fmt.Sprintf("%.2f s", v/1000) }

// LatencyRow formats a Summary as table cells: n | p50 | p95 | p99 | max.
func LatencyRow(s Summary) string {
	if s.N == 0 {
		return "0 | – | – | – | –"
	}
	return fmt.Sprintf("%d | %s | %s | %s | %s", s.N, ms(s.P50), ms(s.P95), ms(s.P99), ms(s.Max))
}

// SecondsRow formats a Summary of long durations in seconds.
func SecondsRow(s Summary) string {
	if s.N == 0 {
		return "0 | – | – | – | –"
	}
	return fmt.Sprintf("%d | %s | %s | %s | %s", s.N, secs(s.P50), secs(s.P95), secs(s.P99), secs(s.Max))
}

// WorkloadMarkdown renders a workload run's tables.
func WorkloadMarkdown(r *WorkloadReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s: %d rooms, %d users, heartbeat %.0f s, lease %.0f s, grace %.0f s (%.0f s run)\n\n",
		r.Name, r.Rooms, r.Users, r.HeartbeatSecs, r.LeaseSecs, r.GraceSecs, r.ElapsedSecs)
	b.WriteString("| HTTP operation | n | p50 | p95 | p99 | max | per second | 2xx | 4xx | 5xx | transport errors |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, op := range Ops {
		o := r.Ops[op]
		fmt.Fprintf(&b, "| %s | %s | %.1f | %d | %d | %d | %d |\n", op, LatencyRow(o.Latency), o.PerSecond, o.OK, o.Client4xx, o.Server5xx, o.Transport)
	}
	b.WriteString("\n| distribution | n | p50 | p95 | p99 | max |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| ghost time (crash → listener sees removal) | %s |\n", SecondsRow(r.GhostTime))
	fmt.Fprintf(&b, "| … of which after the lease end (sweep + listener lag) | %s |\n", SecondsRow(r.GhostBeyond))
	fmt.Fprintf(&b, "| graceful leave → listener sees removal (churn: one user at a time) | %s |\n", SecondsRow(r.LeaveVisible))
	fmt.Fprintf(&b, "| graceful leave → listener sees removal (end of run: a whole room leaves at once) | %s |\n", SecondsRow(r.LeaveDrain))
	fmt.Fprintf(&b, "| teardown lag (last departure → room deleted, seen by listener) | %s |\n", SecondsRow(r.TeardownLag))
	fmt.Fprintf(&b, "| … last departure by leave | %s |\n", SecondsRow(r.TeardownLeave))
	fmt.Fprintf(&b, "| … last departure by lease expiry | %s |\n", SecondsRow(r.TeardownExpiry))
	s := r.Steady
	if s.Heartbeats > 0 {
		fmt.Fprintf(&b, "\nSteady phase (%.0f s, no churn): %d heartbeats (%.1f/s, %d errors), roster-listener deliveries %d (%.3f per heartbeat, %d document reads), room-document-listener deliveries %d.\n",
			s.Seconds, s.Heartbeats, s.HeartbeatsPerSecond, s.HeartbeatErrorsOther, s.RosterDeliveries, s.DeliveriesPerHB, s.RosterDocReads, s.RoomDocDeliveries)
	}
	fmt.Fprintf(&b, "\nFalse removals: **%d**. Rooms torn down: %d (still present at the end: %d; teardowns without an observed departure: %d). Heartbeats refused after their lease had ended (client late, not a false removal): %d. Listener errors: %d.\n",
		r.FalseRemovals, r.RoomsDeleted, r.RoomsLeft, r.TeardownNoCause, r.LateExpiries, r.ListenerErrors)
	if len(r.Events) > 0 {
		b.WriteString("\nEvents: ")
		first := true
		for _, k := range sortedKeys(r.Events) {
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
	return b.String()
}

// SoakMarkdown renders the soak's report.
func SoakMarkdown(r *WorkloadReport) string {
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
