package bench

import (
	"context"
	"fmt"
	"os"

	"github.com/roomlease/roomlease/bench/harness"
)

// ScenarioNames lists what RunScenarios accepts ("all" runs every one but soak).
var ScenarioNames = []string{"ops", "load", "settings", "sweep", "naive", "soak", "cost", "abuse", "fanout", "rollout"}

// RunScenarios runs the named scenarios and writes their results.
func RunScenarios(ctx context.Context, o harness.Options, names []string) error {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	var expanded []string
	for _, n := range names {
		if n == "all" {
			expanded = append(expanded, "ops", "load", "settings", "sweep", "naive", "abuse", "fanout", "rollout")
			continue
		}
		expanded = append(expanded, n)
	}
	for _, n := range expanded {
		o.Log("== " + n)
		var err error
		switch n {
		case "soak":
			err = runSoak(ctx, o)
		case "events": // not in all: it needs the Pub/Sub emulator
			err = runEvents(ctx, o)
		case "ops":
			err = runOps(ctx, o)
		case "load":
			err = runLoad(ctx, o)
		case "settings":
			err = runSettings(ctx, o)
		case "sweep":
			err = runSweep(ctx, o)
		case "naive":
			err = runNaive(ctx, o)
		case "cost":
			err = runCost(ctx, o)
		case "abuse":
			err = runAbuse(ctx, o)
		case "fanout":
			err = runFanout(ctx, o)
		case "rollout":
			err = runRollout(ctx, o)
		default:
			err = fmt.Errorf("unknown scenario %q (want one of %v or all)", n, ScenarioNames)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}
