package bench

import (
	"context"
	"fmt"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/workload"
)

// sweepResult is what sweep.json holds.
type sweepResult struct {
	Idle10   measure.SweepCost       `json:"idle10"`
	Idle10k  measure.SweepCost       `json:"idle10000"`
	Ratio    float64                 `json:"readsRatio10000over10"`
	Teardown measure.TeardownBacklog `json:"teardownBacklog"`
	BigRoom  measure.BigRoomPurge    `json:"bigRoomPurge"`
}

// runSweep is `scripts/bench sweep`: what an idle sweeper pass costs with 10
// and with 10 000 rooms (its reads must not grow with the rooms), how fast
// it tears down a backlog of due empty rooms, and how it purges one room
// of 1 000 (the default cap) once they have all left (sweep.json, sweep.md).
func runSweep(ctx context.Context, o harness.Options) error {
	var res sweepResult
	big, backlog, people := 10000, 1000, 1000
	if o.Quick {
		big, backlog, people = 1000, 200, 200
	}
	for i, n := range []int{10, big} {
		client, err := harness.ProjectClient(ctx, "sweep")
		if err != nil {
			return err
		}
		o.Log(fmt.Sprintf("sweep: seeding %d active rooms", n))
		c, err := measure.IdleSweepCost(ctx, client, n, 10)
		client.Close()
		if err != nil {
			return err
		}
		if i == 0 {
			res.Idle10 = c
		} else {
			res.Idle10k = c
		}
	}
	res.Ratio = workload.Ratio(res.Idle10k.ReadsPerPass, res.Idle10.ReadsPerPass)
	client, err := harness.ProjectClient(ctx, "teardown")
	if err != nil {
		return err
	}
	defer client.Close()
	o.Log(fmt.Sprintf("sweep: seeding %d due empty rooms", backlog))
	if res.Teardown, err = measure.TeardownThroughput(ctx, client, backlog); err != nil {
		return err
	}
	purgeClient, err := harness.ProjectClient(ctx, "bigpurge")
	if err != nil {
		return err
	}
	defer purgeClient.Close()
	o.Log(fmt.Sprintf("sweep: %d people join one room and leave it", people))
	if res.BigRoom, err = measure.PurgeBigRoom(ctx, purgeClient, people); err != nil {
		return err
	}
	return o.Write("sweep", SweepMarkdown(res), res)
}
