package bench

import (
	"fmt"
	"strings"

	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
)

// verdict says whether a measured p99 is within its target; a distribution
// without samples meets nothing.
func verdict(s workload.Summary, targetMs float64) string {
	switch {
	case s.N == 0:
		return "no samples"
	case s.P99 <= targetMs:
		return "**met**"
	default:
		return "**missed**"
	}
}

// AbuseMarkdown renders the abuse scenario: the cap's counts, the room
// read's cost against its bound, and the ordinary rooms against their targets.
func AbuseMarkdown(r abuseResult) string {
	var b strings.Builder
	a, rd, w := r.Abuser, r.Read, r.Workload
	fmt.Fprintf(&b, "### abuse: one uid, %d joins with distinct session ids into one room (%d at a time, from %.0f s to %.0f s of the run)\n\n",
		a.Attempts, a.Concurrency, a.StartSecs, a.EndSecs)
	b.WriteString("| measure | value | target | verdict |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| joins accepted | %d | 10 | %s |\n", a.Accepted, met(a.Accepted == 10))
	fmt.Fprintf(&b, "| joins refused 409 `too_many_sessions` | %d | %d (the rest) | %s |\n", a.TooManySessions, a.Attempts-10, met(a.TooManySessions == int64(a.Attempts)-10))
	if len(a.Other) > 0 {
		fmt.Fprintf(&b, "| other outcomes | %v | none | **missed** |\n", a.Other)
	}
	fmt.Fprintf(&b, "| abuser's join latency p50 / p99 | %s / %s | – | reported |\n", render.Ms(a.JoinLatency.P50), render.Ms(a.JoinLatency.P99))
	fmt.Fprintf(&b, "| room read by a participant: Firestore reads | %d (roster of %d entries, %d listed, the abuser with %d sessions; HTTP %d) | ≤ 1 + E + 10 × E + 1 (revision) = %d | %s |\n",
		rd.Reads, rd.Entries, rd.Participants, rd.AbuserSessionCount, rd.HTTPStatus, rd.Bound, met(rd.Reads <= rd.Bound))
	if w != nil {
		fmt.Fprintf(&b, "| other rooms: ghost time p99 | %s (n = %d; beyond the lease p99 %s) | ≤ lease + 1 s = %s | %s |\n",
			render.Secs(w.GhostTime.P99), w.GhostTime.N, render.Secs(w.GhostBeyond.P99), render.Secs(r.GhostTargetMs), verdict(w.GhostTime, r.GhostTargetMs))
		fmt.Fprintf(&b, "| other rooms: teardown lag p99 | %s (n = %d) | ≤ grace + 1 s = %s | %s |\n",
			render.Secs(w.TeardownLag.P99), w.TeardownLag.N, render.Secs(r.TeardownTargetMs), verdict(w.TeardownLag, r.TeardownTargetMs))
		fmt.Fprintf(&b, "| other rooms: false removals, rooms not torn down | %d, %d | 0, 0 | %s |\n", w.FalseRemovals, w.RoomsLeft, met(w.FalseRemovals == 0 && w.RoomsLeft == 0))
	}
	fmt.Fprintf(&b, "\nThe abuser heartbeated its accepted sessions (%d heartbeats, %d errors), so they stayed live throughout.\n", a.Heartbeats, a.HBErrors)
	if w != nil {
		b.WriteString("\nThe ordinary workload beside it:\n\n")
		b.WriteString(WorkloadMarkdown(w))
	}
	return b.String()
}

func met(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**missed**"
}
