package bench

import (
	"context"
	"fmt"
	"strings"
)

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

// OpsMarkdown renders per-operation counts.
func OpsMarkdown(counts []OpCount) string {
	var b strings.Builder
	b.WriteString("| store operation | reads | writes | room document written | roster entry written |\n|---|---|---|---|---|\n")
	yn := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	for _, c := range counts {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", c.Op, c.Reads, c.Writes, yn(c.RoomWritten), yn(c.RosterWritten))
	}
	return b.String()
}
