package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/roomlease/roomlease/bench/fanout"
	"github.com/roomlease/roomlease/bench/harness"
)

// fanoutSizes are the rooms the fan-out is measured in; largeSizes those
// whose summary listeners are measured under churn (large-room mode).
var (
	fanoutSizes = []int{10, 100, 1000, 10000}
	largeSizes  = []int{1000, 10000}
)

// largeChurn is the churn large-room mode is measured under: 10 joins and
// 10 leaves a second, for largeDuration.
const (
	largeChurn    = 10
	largeDuration = 20 * time.Second
)

// FanoutRun is what `scripts/bench fanout` measured.
type FanoutRun struct {
	Changes []fanout.Result          `json:"changes"`
	Hours   []fanout.ParticipantHour `json:"participantHours"`
	Large   []fanout.LargeResult     `json:"largeRooms"`
}

// runFanout is `scripts/bench fanout`: what each change costs the listeners
// of rooms of 10, 100 and 1 000, and an hour of heartbeats in the
// foreground and away, in process on a project of its own (fanout.json,
// fanout.md).
func runFanout(ctx context.Context, o harness.Options) error {
	client, err := harness.ProjectClient(ctx, "fanout")
	if err != nil {
		return err
	}
	defer client.Close()
	sizes, large := fanoutSizes, largeSizes
	if o.Quick {
		sizes, large = sizes[:2], []int{100}
	}
	var run FanoutRun
	// Settle: on a busy machine a listener of a room of 10 000 can take
	// more than the default 750 ms to hear a change.
	run.Changes, err = fanout.Measure(ctx, client, fanout.Options{Sizes: sizes, Settle: 2 * time.Second,
		Log: func(format string, args ...any) { o.Log(fmt.Sprintf(format, args...)) }})
	if err != nil {
		return err
	}
	// The bounds are checked where they are measured, so that a run that
	// breaks one fails instead of writing a table that shows it.
	if err := fanout.CheckChanges(run.Changes); err != nil {
		return err
	}
	if run.Hours, err = fanout.MeasureHours(ctx, client); err != nil {
		return err
	}
	for _, n := range large {
		res, err := fanout.MeasureLarge(ctx, client, fanout.LargeOptions{Participants: n, ChurnPerSecond: largeChurn,
			Duration: largeDuration, Sample: 10, Log: func(format string, args ...any) { o.Log(fmt.Sprintf(format, args...)) }})
		if err != nil {
			return fmt.Errorf("large room of %d: %w", n, err)
		}
		o.Log(fmt.Sprintf("fanout large: %d participants: %d summaries to each listener in %.1f s (%.2f a second), %d inexact; full mode %.2f documents per change",
			n, res.DocsPerListener, res.Seconds, res.ReadsPerListenerPerSecond, res.Inexact, res.FullModeDocsPerChange))
		o.Log(fmt.Sprintf("fanout large: %d participants: a round's joins %.0f ms, its leaves %.0f ms; a join's steps (ms) %v, a leave's %v",
			n, res.JoinPhaseMs, res.LeavePhaseMs, res.JoinStepsMs, res.LeaveStepsMs))
		run.Large = append(run.Large, res)
		if err := res.Check(); err != nil {
			return err
		}
	}
	return o.Write("fanout", FanoutMarkdown(run, sizes), run)
}

// FanoutMarkdown renders one row per change (its own request, what each
// listener receives, and the listener reads of each room size), then the
// participant-hour in each mode, priced at Prices.
func FanoutMarkdown(run FanoutRun, sizes []int) string {
	var b strings.Builder
	b.WriteString("| change | its request: reads / writes | documents each listener receives |")
	for _, n := range sizes {
		fmt.Fprintf(&b, " room of %s |", thousands(float64(n)))
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(sizes)) + "\n")
	for _, ch := range fanout.Changes {
		var first *fanout.Result
		cells := make([]string, len(sizes))
		for i, n := range sizes {
			cells[i] = "–"
			for j := range run.Changes {
				r := &run.Changes[j]
				if r.Change == ch.Name && r.Listeners == n {
					if first == nil {
						first = r
					}
					cells[i] = thousands(float64(r.ListenerReads)) + " reads"
				}
			}
		}
		if first == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %d | %s |\n", ch.Name, first.WriterReads, first.WriterWrites, first.DocsPerListener, strings.Join(cells, " | "))
	}
	if len(run.Large) > 0 {
		b.WriteString("\nLarge-room mode: listeners follow the room's summary (one document, refreshed at most once a second) under a churn of joins and leaves; the full-mode listener set measured in the same room for comparison.\n\n")
		b.WriteString("| participants | churn (joins + leaves) | seconds | summary documents per listener | per second | summaries seen | inexact counts | full mode: documents per change | full mode: reads per listener per second |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, l := range run.Large {
			perSecond := float64(l.Joins+l.Leaves) / l.Seconds
			full := "not watched | not watched"
			if l.FullModeDocsPerChange >= 0 {
				full = fmt.Sprintf("%.2f | %.1f", l.FullModeDocsPerChange, l.FullModeDocsPerChange*perSecond)
			}
			fmt.Fprintf(&b, "| %s | %d + %d (%.1f a second) | %.1f | %d | %.2f | %d | %d | %s |\n",
				thousands(float64(l.Participants)), l.Joins, l.Leaves, perSecond, l.Seconds, l.DocsPerListener,
				l.ReadsPerListenerPerSecond, l.Summaries, l.Inexact, full)
		}
		b.WriteString("\nWhere a churn round went (milliseconds, on average): its joins at once until the last committed, then its leaves, and each request's steps.\n\n")
		b.WriteString("| participants | a round's joins | its leaves | a join: its transaction / the size-and-revision snapshot within it | a leave: its transaction / the emptiness check after it |\n|---|---|---|---|---|\n")
		for _, l := range run.Large {
			fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.0f / %.0f | %.0f / %.0f |\n", thousands(float64(l.Participants)), l.JoinPhaseMs, l.LeavePhaseMs,
				l.JoinStepsMs["join-txn"], l.JoinStepsMs["join-size"], l.LeaveStepsMs["leave-txn"], l.LeaveStepsMs["leave-settle"])
		}
	}
	b.WriteString("\n| mode | lease / heartbeat | requests | reads | writes | Firestore cost per 1 000 participant-hours |\n|---|---|---|---|---|---|\n")
	for _, h := range run.Hours {
		usd := 1000 * (float64(h.Reads)*Prices.Reads + float64(h.Writes)*Prices.Writes) / 100000
		fmt.Fprintf(&b, "| %s | %.0f s / %.1f s | %d | %d | %d | $%.2f |\n", h.Mode, h.LeaseSeconds, h.HeartbeatSeconds, h.Requests, h.Reads, h.Writes, usd)
	}
	return b.String()
}
