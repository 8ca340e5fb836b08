package bench

import "context"

// runOps is `scripts/bench ops`: every store operation once, in process, on
// a project of its own, with its exact reads and writes (ops.json, ops.md).
func runOps(ctx context.Context, o Options) error {
	client, err := projectClient(ctx, "ops")
	if err != nil {
		return err
	}
	defer client.Close()
	counts, err := MeasureOps(ctx, client, "ops-room")
	if err != nil {
		return err
	}
	return o.write("ops", OpsMarkdown(counts), counts)
}
