package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/roomlease/roomlease/bench/fanout"
	"github.com/roomlease/roomlease/bench/harness"
)

// fanoutSizes are the rooms the fan-out is measured in.
var fanoutSizes = []int{10, 100, 1000}

// FanoutRun is what `scripts/bench fanout` measured.
type FanoutRun struct {
	Changes []fanout.Result          `json:"changes"`
	Hours   []fanout.ParticipantHour `json:"participantHours"`
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
	sizes := fanoutSizes
	if o.Quick {
		sizes = sizes[:2]
	}
	var run FanoutRun
	run.Changes, err = fanout.Measure(ctx, client, fanout.Options{Sizes: sizes,
		Log: func(format string, args ...any) { o.Log(fmt.Sprintf(format, args...)) }})
	if err != nil {
		return err
	}
	if run.Hours, err = fanout.MeasureHours(ctx, client); err != nil {
		return err
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
	b.WriteString("\n| mode | lease / heartbeat | requests | reads | writes | Firestore cost per 1 000 participant-hours |\n|---|---|---|---|---|---|\n")
	for _, h := range run.Hours {
		usd := 1000 * (float64(h.Reads)*Prices.Reads + float64(h.Writes)*Prices.Writes) / 100000
		fmt.Fprintf(&b, "| %s | %.0f s / %.1f s | %d | %d | %d | $%.2f |\n", h.Mode, h.LeaseSeconds, h.HeartbeatSeconds, h.Requests, h.Reads, h.Writes, usd)
	}
	return b.String()
}
