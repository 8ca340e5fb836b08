package bench

import (
	"context"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
)

// runOps is `scripts/bench ops`: every store operation once, in process, on
// a project of its own, with its exact reads and writes (ops.json, ops.md).
func runOps(ctx context.Context, o harness.Options) error {
	client, err := harness.ProjectClient(ctx, "ops")
	if err != nil {
		return err
	}
	defer client.Close()
	counts, err := measure.MeasureOps(ctx, client, "ops-room")
	if err != nil {
		return err
	}
	return o.Write("ops", OpsMarkdown(counts), counts)
}
