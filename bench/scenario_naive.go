package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/naive"
	"github.com/roomlease/roomlease/bench/render"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"

	"github.com/roomlease/roomlease/bench/workload"
)

// naiveResult is what naive.json holds.
type naiveResult struct {
	Interval float64            `json:"heartbeatIntervalSeconds"`
	Rounds   int                `json:"rounds"`
	Rooms    []measure.RoomRun  `json:"rooms"`
	Bursts   []measure.BurstRun `json:"bursts"`
	HTTP     []*HTTPRoom        `json:"http,omitempty"`
}

// runNaive is `scripts/bench naive`: heartbeat latency and listener traffic
// by room size for roomlease, the naive baseline and a bare transaction, a
// burst of simultaneous joins, and (with -server-bin) roomlease over HTTP
// (naive.json, naive.md, latency-vs-room-size.svg).
func runNaive(ctx context.Context, o harness.Options) error {
	sizes, rounds, burst := []int{10, 50, 100, 200, 500}, 3, 200
	if len(o.Sizes) > 0 {
		sizes = o.Sizes
	}
	if o.Rounds > 0 {
		rounds = o.Rounds
	}
	if o.Quick {
		sizes, rounds, burst = []int{10, 50}, 2, 50
	}
	interval := 5 * time.Second
	client, err := harness.ProjectClient(ctx, "naive")
	if err != nil {
		return err
	}
	defer client.Close()
	designs := []measure.Design{
		measure.Roomlease{Store: firestoredb.New(client, presence.DefaultSettings(), time.Now), Client: client},
		measure.Naive{Store: naive.New(client, 15*time.Second)},
		&measure.Bare{Client: client},
	}
	res := naiveResult{Interval: interval.Seconds(), Rounds: rounds}
	for _, size := range sizes {
		for _, d := range designs {
			room := fmt.Sprintf("size%d-%s", size, strings.ReplaceAll(d.Name(), " ", ""))
			r, err := measure.HeartbeatRoom(ctx, d, room, size, interval, rounds)
			if err != nil {
				return fmt.Errorf("%s size %d: %w", d.Name(), size, err)
			}
			o.Log(fmt.Sprintf("naive: %s %d: hb p50 %s p99 %s ok %.3f deliveries/hb %.2f", d.Name(), size, render.Ms(r.Latency.P50), render.Ms(r.Latency.P99), r.SuccessRate, r.DeliveriesPerHB))
			res.Rooms = append(res.Rooms, r)
		}
	}
	for _, d := range designs[:2] {
		b, err := measure.JoinBurst(ctx, d, "burst-"+d.Name(), burst, 60*time.Second)
		if err != nil {
			return err
		}
		o.Log(fmt.Sprintf("naive: burst %s: ok %d/%d in %.1fs", d.Name(), b.OK, b.Joins, b.WallSecs))
		res.Bursts = append(res.Bursts, b)
	}
	if o.ServerBin != "" {
		httpSizes := []int{50, 500}
		if o.Quick {
			httpSizes = sizes
		}
		http, err := httpRooms(ctx, o, httpSizes, burst)
		if err != nil {
			return err
		}
		res.HTTP = http
	}
	if err := o.SVG("latency-vs-room-size", LatencyPlot(res)); err != nil {
		return err
	}
	return o.Write("naive", NaiveMarkdown(res), res)
}

// HTTPRoom is a roomlease run over HTTP for the comparison.
type HTTPRoom struct {
	Kind     string                   `json:"kind"` // room | burst
	Size     int                      `json:"size"`
	WallSecs float64                  `json:"wallSeconds"`
	Report   *workload.WorkloadReport `json:"report"`
}

func httpRooms(ctx context.Context, o harness.Options, sizes []int, burst int) ([]*HTTPRoom, error) {
	var out []*HTTPRoom
	err := harness.WithStack(ctx, o, "naive-http", 5*time.Second, 15*time.Second, 30*time.Second, func(url string, pid int, client *firestore.Client) error {
		for _, size := range sizes {
			cfg := workload.WorkloadConfig{Name: fmt.Sprintf("http-room-%d", size), RoomPrefix: fmt.Sprintf("http%d-%d", size, time.Now().Unix()),
				Rooms: 1, PerRoom: size, Steady: 15 * time.Second, JoinConcurrency: 4, AuthHost: o.AuthHost, Progress: o.Log}
			rep, err := workload.NewWorkload(cfg, url, client).Run(ctx)
			if err != nil {
				return err
			}
			out = append(out, &HTTPRoom{Kind: "room", Size: size, Report: rep})
		}
		// The burst: every user joins at the same moment.
		cfg := workload.WorkloadConfig{Name: "http-burst", RoomPrefix: fmt.Sprintf("httpburst-%d", time.Now().Unix()), Rooms: 1, PerRoom: burst,
			JoinConcurrency: burst, JoinAttempts: 1, AllowNoJoin: true, AuthHost: o.AuthHost, Progress: o.Log}
		t := time.Now()
		rep, err := workload.NewWorkload(cfg, url, client).Run(ctx)
		if err != nil {
			return err
		}
		out = append(out, &HTTPRoom{Kind: "burst", Size: burst, Report: rep, WallSecs: time.Since(t).Seconds()})
		return nil
	})
	return out, err
}
