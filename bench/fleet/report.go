package fleet

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
)

// Markdown renders the fleet scenario's tables.
func Markdown(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Crowds joining and leaving at once through N roomlease-dev processes on one Firestore emulator (round robin, one request per user, client timeout %.0f s; lease %.0f min and grace %.0f h, so nothing expires during the run). Latency covers every attempt, failures at the moment they failed; \"≥\" marks a figure that is the client timeout, i.e. a lower bound. Run started %s, took %.0f s.\n\n",
		r.TimeoutSeconds, r.LeaseSeconds/60, r.GraceSeconds/3600, r.Started, r.ElapsedSeconds)
	b.WriteString("| processes | crowd | operation | one room: OK | p50 | p99 | max | separate rooms: OK | p50 | p99 | max | p99 one room ÷ separate |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range burstPairs(r) {
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s |\n", p.ratio.Processes, p.ratio.Crowd, p.ratio.Op, burstCells(p.one), burstCells(p.sep), ratioCell(p.ratio))
	}

	writePastGates(&b, r)
	writeSteps(&b, r)
	writeCPU(&b, r)

	b.WriteString("\nChecks of the one-room cases (after the joins settled, the roster read with `GET /v1/rooms/{id}` as a participant; after the leaves, the room document as a Firestore listener saw it):\n\n")
	b.WriteString("| processes | crowd | acknowledged joins on the roster | listed without an acknowledged join | sessionCount ≠ 1 | roster / entries in Firestore | redone unmeasured (joins, leaves) | entered suspected_empty | generation unchanged | verdict |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Cases {
		if c.Rooms != "one" {
			continue
		}
		if c.Roster == nil || c.Empty == nil {
			fmt.Fprintf(&b, "| %d | %d | – | – | – | – | – | – | – | not checked: %s |\n", c.Processes, c.Crowd, c.CheckError)
			continue
		}
		rc, ec := c.Roster, c.Empty
		verdict := "ok"
		if problems := append(slices.Clone(rc.Problems), ec.Problems...); len(problems) > 0 {
			verdict = "**" + strings.Join(problems, "; ") + "**"
		}
		fmt.Fprintf(&b, "| %d | %d | %d / %d | %d | %d | %d / %d | %s, %s | %d × | %s | %s |\n",
			c.Processes, c.Crowd, rc.Acknowledged-rc.AckMissing, rc.Acknowledged, rc.LateListed, rc.BadSessionCounts,
			rc.Listed, rc.CollectionCount, repairCell(c.JoinRepairs, c.JoinRepairFailures), repairCell(c.LeaveRepairs, c.LeaveRepairFails),
			ec.Transitions, render.YesNo(ec.GenerationBefore == ec.GenerationAfter), verdict)
	}

	b.WriteString("\nOutcomes other than 200, and the separate rooms' end state:\n\n")
	for _, c := range r.Cases {
		var parts []string
		for _, op := range []string{"join", "leave"} {
			if s := otherOutcomes(c.burst(op)); s != "" {
				parts = append(parts, op+": "+s)
			}
		}
		if c.Rooms == "separate" {
			parts = append(parts, fmt.Sprintf("rooms suspected_empty after the leaves: %d / %d; redone unmeasured: %s joins, %s leaves",
				c.RoomsSuspectedEmpty, c.Crowd, repairCell(c.JoinRepairs, c.JoinRepairFailures), repairCell(c.LeaveRepairs, c.LeaveRepairFails)))
		}
		if c.CheckError != "" {
			parts = append(parts, "check failed: "+c.CheckError)
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		rooms := "one room"
		if c.Rooms == "separate" {
			rooms = "separate rooms"
		}
		fmt.Fprintf(&b, "- %d process(es), %d users, %s: %s.\n", c.Processes, c.Crowd, rooms, strings.Join(parts, "; "))
	}
	return b.String()
}

// stepOrder is the order in which a join's and a leave's steps happen.
var stepOrder = []string{"gates", "join-preread", "join-txn", "join-begin", "join-read", "join-claim", "join-size", "join-retried", "join-commit", "join-contest", "join-room", "join-create", "join-revision",
	"leave-txn", "leave-begin", "leave-read", "leave-retried", "leave-commit", "leave-settle"}

// writeSteps renders, for each crowd and operation, the server's own time
// in each step (its Server-Timing header), p50 / p99 in one room beside
// the same in separate rooms: which step the shared room makes slow.
func writeSteps(b *strings.Builder, r *Report) {
	wrote := false
	for _, p := range burstPairs(r) {
		ratio, ob, sb := p.ratio, p.one, p.sep
		for _, step := range stepOrder {
			os, okOne := ob.Steps[step]
			ss, okSep := sb.Steps[step]
			if !okOne && !okSep && !hasPart(ob, step) && !hasPart(sb, step) {
				continue
			}
			if !wrote {
				b.WriteString("\nWhere the time went, as each server process timed its steps (Server-Timing; answered requests only; p50 / p99, n):\n\n")
				b.WriteString("| processes | crowd | step | one room | separate rooms |\n|---|---|---|---|---|\n")
				wrote = true
			}
			fmt.Fprintf(b, "| %d | %d | %s | %s | %s |\n", ratio.Processes, ratio.Crowd, step, partCell(ob, step, os, okOne), partCell(sb, step, ss, okSep))
		}
	}
}

// writeCPU renders, for every burst, the CPU time each party of the run
// used while it ran: whether the crowd waited for the Firestore emulator,
// for the rest of the machine, or for roomlease itself.
func writeCPU(b *strings.Builder, r *Report) {
	wrote := false
	for _, c := range r.Cases {
		for _, op := range []string{"join", "leave"} {
			u := c.burst(op).CPU
			if u == nil {
				continue
			}
			if !wrote {
				fmt.Fprintf(b, "\nWhere the machine's CPU went while each burst ran (CPU-seconds, from /proc; %d cores give %d CPU-seconds a second; \"rest\" is the kernel's and other processes' share):\n\n", r.Cores, r.Cores)
				b.WriteString("| processes | crowd | rooms | operation | wall | machine busy | Firestore emulator | Auth emulator | roomlease-dev processes | load generator | rest |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
				wrote = true
			}
			share := func(v float64) string {
				if v < 0 {
					return "–" // not measured: no PID given
				}
				if u.MachineSeconds <= 0 {
					return fmt.Sprintf("%.1f s", v)
				}
				return fmt.Sprintf("%.1f s (%.0f %%)", v, 100*v/u.MachineSeconds)
			}
			fmt.Fprintf(b, "| %d | %d | %s | %s | %.1f s | %.1f s | %s | %s | %s | %s | %s |\n", c.Processes, c.Crowd, c.Rooms, op,
				u.WallSeconds, u.MachineSeconds, share(u.FirestoreSeconds), share(u.AuthSeconds), share(u.ServersSeconds), share(u.LoadSeconds), share(u.RestSeconds))
		}
	}
}

// reportedOnlyWhenTaken are steps a request reports only when it took
// them, with the step every such request reports: a leave that retried no
// attempt has no leave-retried, so its absence, among answered leaves,
// is a count of zero, and the report says so.
var reportedOnlyWhenTaken = map[string]string{"leave-retried": "leave-txn", "join-retried": "join-txn"}

// hasPart reports whether step is absent from b only because no request
// took it.
func hasPart(b BurstSummary, step string) bool {
	whole, ok := reportedOnlyWhenTaken[step]
	return ok && b.Steps[whole].N > 0
}

// partCell is stepCell, or "none of N" for a step no answered request took.
func partCell(b BurstSummary, step string, s workload.Summary, ok bool) string {
	if !ok && hasPart(b, step) {
		return fmt.Sprintf("none of %d", b.Steps[reportedOnlyWhenTaken[step]].N)
	}
	return stepCell(s, ok)
}

func stepCell(s workload.Summary, ok bool) string {
	if !ok || s.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%s / %s (%d)", render.Ms(s.P50), render.Ms(s.P99), s.N)
}

func (c *Case) burst(op string) BurstSummary {
	if op == "leave" {
		return c.Leave
	}
	return c.Join
}

// burstPair is one operation's burst in one room beside the same crowd's
// in separate rooms, with their ratio.
type burstPair struct {
	ratio    P99Ratio
	one, sep BurstSummary
}

// burstPairs lists, in the order of r.Ratios, the bursts each compares.
func burstPairs(r *Report) []burstPair {
	var out []burstPair
	for _, ratio := range r.Ratios {
		one, sep := findCase(r.Cases, ratio.Processes, ratio.Crowd, "one"), findCase(r.Cases, ratio.Processes, ratio.Crowd, "separate")
		if one == nil || sep == nil {
			continue
		}
		out = append(out, burstPair{ratio: ratio, one: one.burst(ratio.Op), sep: sep.burst(ratio.Op)})
	}
	return out
}

func findCase(cases []Case, processes, crowd int, rooms string) *Case {
	for i := range cases {
		if c := &cases[i]; c.Processes == processes && c.Crowd == crowd && c.Rooms == rooms {
			return c
		}
	}
	return nil
}

// burstCells renders OK | p50 | p99 | max, marking figures at the timeout.
func burstCells(s BurstSummary) string {
	if s.Attempts == 0 {
		return "0 / 0 | – | – | –"
	}
	cell := func(v float64, censored bool) string {
		if censored {
			return "≥ " + render.Ms(v)
		}
		return render.Ms(v)
	}
	l := s.Latency
	return fmt.Sprintf("%d / %d | %s | %s | %s", s.OK, s.Attempts, cell(l.P50, s.P50Censored), cell(l.P99, s.P99Censored), cell(l.Max, s.MaxCensored))
}

// writePastGates renders each answered request's latency less its gates,
// p50 / p99, in one room beside separate rooms, and the ratio of the p99s:
// the comparison without the token check, which on the emulators is a
// round trip to the Auth emulator that both cases share.
func writePastGates(b *strings.Builder, r *Report) {
	wrote := false
	for _, p := range burstPairs(r) {
		ratio, ob, sb := p.ratio, p.one, p.sep
		if ob.PastGates == nil || sb.PastGates == nil {
			continue
		}
		if !wrote {
			b.WriteString("\nPast the gates: each answered request's latency less its `gates` step (the rates, App Check and the ID token check, which on the emulators waits for the Auth emulator), p50 / p99 (n):\n\n")
			b.WriteString("| processes | crowd | operation | one room | separate rooms | p99 one room ÷ separate |\n|---|---|---|---|---|---|\n")
			wrote = true
		}
		ratioText := "–"
		if sb.PastGates.P99 > 0 {
			ratioText = fmt.Sprintf("%.2f", ob.PastGates.P99/sb.PastGates.P99)
		}
		fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s |\n", ratio.Processes, ratio.Crowd, ratio.Op,
			pastGatesCell(*ob.PastGates), pastGatesCell(*sb.PastGates), ratioText)
	}
}

func pastGatesCell(s workload.Summary) string {
	return fmt.Sprintf("%s / %s (%d)", render.Ms(s.P50), render.Ms(s.P99), s.N)
}

func ratioCell(r P99Ratio) string {
	switch r.Bound {
	case "?":
		return "– (both at the timeout)"
	case ">=":
		return fmt.Sprintf("≥ %.2f", r.Ratio)
	case "<=":
		return fmt.Sprintf("≤ %.2f", r.Ratio)
	}
	return fmt.Sprintf("%.2f", r.Ratio)
}

func repairCell(needed, failed int) string {
	if failed == 0 {
		return fmt.Sprint(needed)
	}
	return fmt.Sprintf("%d (%d failed)", needed, failed)
}

func otherOutcomes(s BurstSummary) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Outcomes)) {
		if k != "200" {
			parts = append(parts, fmt.Sprintf("%s × %d", k, s.Outcomes[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// Plot plots p99 latency against the number of processes, one line per
// crowd, room layout and operation (separate rooms dashed).
func Plot(r *Report) string {
	var series []render.Series
	for _, rooms := range []string{"one", "separate"} {
		for i, crowd := range r.Crowds {
			for j, op := range []string{"join", "leave"} {
				label := "1 room"
				if rooms == "separate" {
					label = fmt.Sprintf("%d rooms", crowd)
				}
				// A case and its floor share a colour; the floor is dashed.
				s := render.Series{Name: fmt.Sprintf("%d, %s, %s", crowd, label, op), Dashed: rooms == "separate",
					Color: render.PaletteColor(2*i + j)}
				for _, n := range r.Processes {
					if c := findCase(r.Cases, n, crowd, rooms); c != nil && c.burst(op).Attempts > 0 {
						s.X = append(s.X, float64(n))
						s.Y = append(s.Y, c.burst(op).Latency.P99/1000)
					}
				}
				series = append(series, s)
			}
		}
	}
	return render.Plot{Title: fmt.Sprintf("Crowd p99 vs processes (%.0f s = client timeout)", r.TimeoutSeconds),
		XLabel: "roomlease-dev processes", YLabel: "p99 latency, seconds (log)", LogY: true, Series: series}.SVG()
}
