package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
)

// runRollout is `scripts/bench rollout`: a few dozen rooms, half of whose
// clients come back after their room became a teardown candidate, half of
// which leave for good, with a sweeper enforcing half the rooms. The
// sweeper's classification counts must equal the workload's ground truth,
// slice by slice (rollout.json, rollout.md); a disagreement fails the run.
func runRollout(ctx context.Context, o harness.Options) error {
	rooms := 40
	if o.Quick {
		rooms = 20
	}
	client, err := harness.ProjectClient(ctx, "rollout")
	if err != nil {
		return err
	}
	defer client.Close()
	o.Log(fmt.Sprintf("rollout: %d rooms, half coming back after becoming candidates, enforced share 50%%", rooms))
	res, err := measure.Rollout(ctx, client, rooms, 50)
	if err != nil {
		return err
	}
	if err := o.Write("rollout", RolloutMarkdown(res), res); err != nil {
		return err
	}
	if !res.Agree {
		return fmt.Errorf("the sweeper's classification %v differs from the ground truth %v", res.Sweeper, res.Truth)
	}
	return nil
}

// RolloutMarkdown renders the comparison.
func RolloutMarkdown(res measure.RolloutRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rooms on the emulator, lease %.0f s, grace %.0f s, reconnect window %.0f s, %.0f %% of rooms enforced; "+
		"clients of even rooms crash and join again a third of the window after their room became a candidate, the others leave for good.\n\n",
		res.Rooms, res.Lease, res.Grace, res.Window, res.SharePercent)
	b.WriteString("| slice | | candidates | confirmed | reconnect after candidate | violation |\n|---|---|---|---|---|---|\n")
	for _, slice := range []string{"observed", "enforced"} {
		for _, side := range []struct {
			name   string
			counts map[string]measure.RolloutCounts
		}{{"sweeper", res.Sweeper}, {"ground truth", res.Truth}} {
			c := side.counts[slice]
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d |\n", slice, side.name, c.Candidates, c.Confirmed, c.Reconnects, c.Violations)
		}
	}
	verdict := "**agree exactly**"
	if !res.Agree {
		verdict = "**disagree**"
	}
	delays := slices.Clone(res.ReconnectAfterS)
	slices.Sort(delays)
	spread := ""
	if n := len(delays); n > 0 {
		spread = fmt.Sprintf(" Returners joined again %.1f to %.1f s after their room's candidate check.", delays[0], delays[n-1])
	}
	fmt.Fprintf(&b, "\nThe sweeper's counts and the ground truth %s (%.0f s).%s\n", verdict, res.Seconds, spread)
	return b.String()
}
