package chaos

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/bench/workload"
)

// Markdown renders the chaos scenario's report.
func Markdown(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d roomlease-dev processes, each with its own sweeper, on one Firestore emulator (database `%s`); %d users in %d rooms; heartbeat %.0f s, lease %.0f s, grace %.0f s. Chaos for %.0f s (seed %d), then the drain (%.0f s). Run started %s, took %.0f s.\n\n",
		r.Processes, r.Database, r.Users, r.Rooms, r.HeartbeatSeconds, r.LeaseSeconds, r.GraceSeconds, r.ChaosSeconds, r.Seed, r.DrainSeconds, r.Started, r.ElapsedSeconds)

	b.WriteString("| violation (each must be 0) | count |\n|---|---|\n")
	for _, row := range []struct{ kind, label string }{
		{violation409, "false removals: 409 `stale_generation` answered while the lease, by the server's own earlier answer, was live"},
		{violationMissing, "false removals: roster entry missing for a user holding a live lease (roster samples)"},
		{violationRevision, "revision decreases within a room's lifetime"},
		{violationRoom, "rooms not torn down after the drain"},
		{violationDocument, "documents left under rooms/ after the drain"},
	} {
		if row.kind == violationRevision && revisionUnchecked(r) {
			// A check that read only zeros could not have failed.
			fmt.Fprintf(&b, "| %s | **not checked: %d readings, none saw a change** |\n", row.label, r.RevisionReads)
			continue
		}
		fmt.Fprintf(&b, "| %s | **%d** |\n", row.label, r.Violations[row.kind])
	}

	writeEvents(&b, r.Events)

	c := r.Counts
	b.WriteString("\n| what happened | count |\n|---|---|\n")
	row := func(label string, value any) { fmt.Fprintf(&b, "| %s | %v |\n", label, value) }
	row("joins answered 200 (first joins, rejoins, second tabs)", c["joins"])
	row("heartbeats answered 200", c["heartbeats"])
	row("leaves answered 200", c["leaves"])
	row("crashes (a user's every tab stops without leaving)", c["crashes"])
	row("second tabs crashed", c["second tabs crashed"])
	row("processes killed (SIGKILL)", r.Actions["kill"])
	row("processes frozen (SIGSTOP, then SIGCONT)", r.Actions["freeze"])
	row("processes restarted", r.Actions["restart"])
	row("processes that exited by themselves", r.Actions["exitedByItself"])
	row("restarts that failed", r.Actions["restartFailed"])
	row("retries (an attempt after a failed one, on another process)", c["retries"])
	row("joins whose answer never came (timeout, broken connection, 5xx)", c["joins unanswered"])
	row("409s after the lease end (the client was late; it rejoined)", c["409 "+string(late409)])
	row("409s to a doubtful generation (an own join unanswered; excused)", r.Excused409)
	row("rejoins after a 409", c["rejoins after 409"])
	row("heartbeat answers that moved a lease end back", r.LeaseMovedBack)
	row("roster reads / user checks / users skipped as doubtful", fmt.Sprintf("%d / %d / %d", r.RosterReads, r.RosterChecks, r.RosterDoubtful))
	row("revision readings / room lifetimes seen / highest revision", fmt.Sprintf("%d / %d / %d", r.RevisionReads, r.RoomLifetimes, r.MaxRevision))
	row("closing records (teardowns) / still pending cleanup", fmt.Sprintf("%d / %d", r.ClosingRecords, r.PendingCleanup))

	if len(r.Stalls) > 0 {
		var total, longest float64
		for _, st := range r.Stalls {
			total += st.Seconds
			longest = max(longest, st.Seconds)
		}
		fmt.Fprintf(&b, "\nStalls (no heartbeat of any user succeeded for %.0f s or more): %d, %.0f s in all, the longest %.1f s.\n\n", stallGap.Seconds(), len(r.Stalls), total, longest)
		b.WriteString("| from | to | seconds | chaos actions from 10 s before to the end |\n|---|---|---|---|\n")
		for _, st := range r.Stalls {
			fmt.Fprintf(&b, "| %s | %s | %.1f | %s |\n", st.From, st.To, st.Seconds, strings.Join(st.ChaosBefore, "; "))
		}
	}

	b.WriteString("\n| HTTP operation | n | p50 | p95 | p99 | max |\n|---|---|---|---|---|---|\n")
	for _, op := range []workload.Op{workload.OpJoin, workload.OpHeartbeat, workload.OpLeave} {
		fmt.Fprintf(&b, "| %s (every attempt answered) | %s |\n", op, render.LatencyRow(r.Latency[op]))
	}

	fmt.Fprintf(&b, "\nKept after the drain, as designed: %d closing records, %d `roomlease/*` control documents, %d `roomleaseUsers` documents.",
		r.KeptDocuments[docClosing], r.KeptDocuments[docControl], r.KeptDocuments[docUserRooms])
	if len(r.OtherDocuments) > 0 {
		fmt.Fprintf(&b, " Other documents: %s.", strings.Join(r.OtherDocuments, ", "))
	}
	if r.DrainError != "" {
		fmt.Fprintf(&b, " The last inspection failed: %s.", r.DrainError)
	}
	b.WriteString("\n\nOther outcomes: ")
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	b.WriteString(strings.Join(parts, ", ") + ".\n")

	if len(r.LeftPaths) > 0 {
		b.WriteString("\nLeft after the drain:\n\n")
		for _, p := range r.LeftPaths {
			fmt.Fprintf(&b, "- `%s`\n", p)
		}
		for _, d := range r.LeftDocs {
			fmt.Fprintf(&b, "    - `%s`\n", d)
		}
	}
	if len(r.Details) > 0 {
		b.WriteString("\n### Violations and excused 409s in detail\n")
		for _, v := range r.Details {
			fmt.Fprintf(&b, "\n**%s** at %s, room `%s`", v.Kind, v.At, v.Room)
			if v.UID != "" {
				fmt.Fprintf(&b, ", user `%s`, session `%s`, generation %d", v.UID, v.Session, v.Generation)
			}
			if v.Process >= 0 {
				fmt.Fprintf(&b, ", answered by process %d (pid %d)", v.Process, v.PID)
			}
			fmt.Fprintf(&b, ", seed %d: %s\n\n", v.Seed, v.Detail)
			writeList(&b, "documents right after", v.Documents)
			writeList(&b, "chaos in the 30 s before", v.ChaosBefore)
			writeList(&b, "the user's latest requests", v.Trail)
		}
	}
	fmt.Fprintf(&b, "\nServer logs (per process and incarnation): `%s`.\n", r.ServerLogs)
	return b.String()
}

func writeList(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n```\n%s\n```\n</details>\n\n", title, strings.Join(lines, "\n"))
}

// writeEvents renders the events check (events.go).
func writeEvents(b *strings.Builder, v *EventsVerdict) {
	if v == nil {
		b.WriteString("\nEvents: not checked (no Pub/Sub emulator).\n")
		return
	}
	fmt.Fprintf(b, "\n| events on topic `%s` | count |\n|---|---|\n", v.Topic)
	fmt.Fprintf(b, "| lost: visible changes without an event (must be 0) | **%d** |\n", v.Lost)
	fmt.Fprintf(b, "| invented: events without a change (must be 0) | **%d** |\n", v.Invented)
	fmt.Fprintf(b, "| duplicates: deliveries of an id already delivered (not errors) | %d |\n", v.Duplicates)
	fmt.Fprintf(b, "| deliveries / distinct events / room lifetimes | %d / %d / %d |\n", v.Delivered, v.Distinct, v.Lifetimes)
	fmt.Fprintf(b, "| outbox records left at the end | %d |\n", v.OutboxLeft)
	b.WriteString("\n| from commit to delivery | n | p50 | p95 | p99 | max |\n|---|---|---|---|---|---|\n")
	for _, typ := range slices.Sorted(maps.Keys(v.Lag)) {
		fmt.Fprintf(b, "| %s | %s |\n", typ, render.LatencyRow(v.Lag[typ]))
	}
	writeList(b, "lost and invented, in detail", v.Details)
}

// revisionUnchecked: the run's users changed rosters, yet no revision
// reading saw a change, so the readings missed where the revision is kept.
func revisionUnchecked(r *Report) bool {
	return r.Counts["joins"] > 0 && r.MaxRevision == 0
}
