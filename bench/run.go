package bench

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Options configure a benchmark invocation.
type Options struct {
	ServerBin     string
	OutDir        string
	Project       string
	FirestoreHost string
	AuthHost      string
	Duration      time.Duration // soak
	SoakClients   int
	Quick         bool
	Sizes         []int // naive: room sizes (default 10, 50, 100, 200, 500)
	Rounds        int   // naive: heartbeat rounds per participant (default 3)
	Log           func(string)
}

// ScenarioNames lists what RunScenarios accepts ("all" runs every one but soak).
var ScenarioNames = []string{"ops", "load", "settings", "sweep", "naive", "soak", "cost", "abuse"}

// RunScenarios runs the named scenarios and writes their results.
func RunScenarios(ctx context.Context, o Options, names []string) error {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	var expanded []string
	for _, n := range names {
		if n == "all" {
			expanded = append(expanded, "ops", "load", "settings", "sweep", "naive", "abuse")
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
		default:
			err = fmt.Errorf("unknown scenario %q (want one of %v or all)", n, ScenarioNames)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}
