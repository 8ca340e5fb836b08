package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/naive"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

type naiveResult struct {
	Interval float64     `json:"heartbeatIntervalSeconds"`
	Rounds   int         `json:"rounds"`
	Rooms    []RoomRun   `json:"rooms"`
	Bursts   []BurstRun  `json:"bursts"`
	HTTP     []*HTTPRoom `json:"http,omitempty"`
}

// runNaive is `scripts/bench naive`: heartbeat latency and listener traffic
// by room size for roomlease, the naive baseline and a bare transaction, a
// burst of simultaneous joins, and (with -server-bin) roomlease over HTTP
// (naive.json, naive.md, latency-vs-room-size.svg).
func runNaive(ctx context.Context, o Options) error {
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
	client, err := projectClient(ctx, "naive")
	if err != nil {
		return err
	}
	defer client.Close()
	designs := []Design{
		Roomlease{Store: firestoredb.New(client, presence.DefaultSettings(), time.Now), Client: client},
		Naive{Store: naive.New(client, 15*time.Second)},
		&Bare{Client: client},
	}
	res := naiveResult{Interval: interval.Seconds(), Rounds: rounds}
	for _, size := range sizes {
		for _, d := range designs {
			room := fmt.Sprintf("size%d-%s", size, strings.ReplaceAll(d.Name(), " ", ""))
			r, err := HeartbeatRoom(ctx, d, room, size, interval, rounds)
			if err != nil {
				return fmt.Errorf("%s size %d: %w", d.Name(), size, err)
			}
			o.Log(fmt.Sprintf("naive: %s %d: hb p50 %s p99 %s ok %.3f deliveries/hb %.2f", d.Name(), size, ms(r.Latency.P50), ms(r.Latency.P99), r.SuccessRate, r.DeliveriesPerHB))
			res.Rooms = append(res.Rooms, r)
		}
	}
	for _, d := range designs[:2] {
		b, err := JoinBurst(ctx, d, "burst-"+d.Name(), burst, 60*time.Second)
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
	if err := o.svg("latency-vs-room-size", LatencyPlot(res)); err != nil {
		return err
	}
	return o.write("naive", NaiveMarkdown(res), res)
}

// LatencyPlot plots heartbeat latency against room size for each design.
func LatencyPlot(res naiveResult) string {
	by := map[string]*[2]Series{}
	var order []string
	for _, r := range res.Rooms {
		s, ok := by[r.Design]
		if !ok {
			s = &[2]Series{{Name: r.Design + " p50"}, {Name: r.Design + " p99", Dashed: true}}
			by[r.Design] = s
			order = append(order, r.Design)
		}
		s[0].X, s[0].Y = append(s[0].X, float64(r.Size)), append(s[0].Y, r.Latency.P50)
		s[1].X, s[1].Y = append(s[1].X, float64(r.Size)), append(s[1].Y, r.Latency.P99)
	}
	var http [2]Series
	http[0].Name, http[1].Name, http[1].Dashed = "roomlease HTTP p50", "roomlease HTTP p99", true
	for _, h := range res.HTTP {
		if h.Kind != "room" {
			continue
		}
		http[0].X, http[0].Y = append(http[0].X, float64(h.Size)), append(http[0].Y, h.Report.Steady.HeartbeatLatency.P50)
		http[1].X, http[1].Y = append(http[1].X, float64(h.Size)), append(http[1].Y, h.Report.Steady.HeartbeatLatency.P99)
	}
	p := Plot{Title: "Heartbeat latency against room size (store call, emulator)", XLabel: "participants in the room (log)", YLabel: "latency, ms (log)", LogX: true, LogY: true}
	for _, d := range order {
		p.Series = append(p.Series, by[d][0], by[d][1])
	}
	if len(http[0].X) > 0 {
		p.Series = append(p.Series, http[0], http[1])
	}
	return p.SVG()
}

// NaiveMarkdown renders the comparison.
func NaiveMarkdown(res naiveResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Store calls in process, every participant heartbeating every %.0f s for %d rounds, a roster listener attached.\n\n", res.Interval, res.Rounds)
	b.WriteString("| design | room size | heartbeats | success | p50 | p95 | p99 | max | per second | reads/hb | writes/hb | listener deliveries/hb |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range res.Rooms {
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f%% | %s | %s | %s | %s | %.1f | %.2f | %.2f | %.2f |\n", r.Design, r.Size, r.Heartbeats, 100*r.SuccessRate,
			ms(r.Latency.P50), ms(r.Latency.P95), ms(r.Latency.P99), ms(r.Latency.Max), r.PerSecond, r.ReadsPerHB, r.WritesPerHB, r.DeliveriesPerHB)
	}
	// Ratios naive / roomlease and roomlease / bare.
	idx := map[string]RoomRun{}
	for _, r := range res.Rooms {
		idx[fmt.Sprintf("%s/%d", r.Design, r.Size)] = r
	}
	b.WriteString("\n| room size | naive ÷ roomlease p99 | naive ÷ roomlease deliveries | roomlease p99 ÷ bare-transaction p99 |\n|---|---|---|---|\n")
	for _, r := range res.Rooms {
		if r.Design != "roomlease" {
			continue
		}
		n, bare := idx[fmt.Sprintf("naive/%d", r.Size)], idx[fmt.Sprintf("bare transaction/%d", r.Size)]
		fmt.Fprintf(&b, "| %d | %.1f× | %s | %.2f× |\n", r.Size, Ratio(n.Latency.P99, r.Latency.P99),
			deliveriesRatio(n.Deliveries, r.Deliveries), Ratio(r.Latency.P99, bare.Latency.P99))
	}
	b.WriteString("\n| burst of simultaneous joins into one room | joins | succeeded | p50 | p95 | p99 | max | wall time | listener deliveries | reads | writes | errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range res.Bursts {
		fmt.Fprintf(&b, "| %s (store) | %d | %d (%.1f%%) | %s | %s | %s | %s | %.1f s | %d | %d | %d | %v |\n", x.Design, x.Joins, x.OK, 100*x.SuccessRate,
			ms(x.Latency.P50), ms(x.Latency.P95), ms(x.Latency.P99), ms(x.Latency.Max), x.WallSecs, x.Deliveries, x.Reads, x.Writes, x.Errors)
	}
	for _, h := range res.HTTP {
		if h.Kind == "burst" {
			j := h.Report.Ops[OpJoin]
			fmt.Fprintf(&b, "| roomlease (HTTP) | %d | %d (%.1f%%) | %s | %s | %s | %s | %.1f s | – | – | – | %v |\n", h.Size, j.OK, 100*Ratio(float64(j.OK), float64(h.Size)),
				ms(j.Latency.P50), ms(j.Latency.P95), ms(j.Latency.P99), ms(j.Latency.Max), h.WallSecs, j.Codes)
		}
	}
	if len(res.HTTP) > 0 {
		b.WriteString("\nroomlease over HTTP (roomlease-dev, token verification included), steady heartbeats:\n\n| room size | heartbeats | errors | p50 | p95 | p99 | max | roster deliveries/hb |\n|---|---|---|---|---|---|---|---|\n")
		for _, h := range res.HTTP {
			if h.Kind != "room" {
				continue
			}
			s := h.Report.Steady
			fmt.Fprintf(&b, "| %d | %d | %d | %s | %s | %s | %s | %.3f |\n", h.Size, s.Heartbeats, s.HeartbeatErrorsOther, ms(s.HeartbeatLatency.P50), ms(s.HeartbeatLatency.P95),
				ms(s.HeartbeatLatency.P99), ms(s.HeartbeatLatency.Max), s.DeliveriesPerHB)
		}
	}
	return b.String()
}

func deliveriesRatio(a, b int64) string {
	if b == 0 {
		return fmt.Sprintf("%d vs 0", a)
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}

// HTTPRoom is a roomlease run over HTTP for the comparison.
type HTTPRoom struct {
	Kind     string          `json:"kind"` // room | burst
	Size     int             `json:"size"`
	WallSecs float64         `json:"wallSeconds"`
	Report   *WorkloadReport `json:"report"`
}

func httpRooms(ctx context.Context, o Options, sizes []int, burst int) ([]*HTTPRoom, error) {
	var out []*HTTPRoom
	err := withStack(ctx, o, "naive-http", 5*time.Second, 15*time.Second, 30*time.Second, func(url string, pid int, client *firestore.Client) error {
		for _, size := range sizes {
			cfg := WorkloadConfig{Name: fmt.Sprintf("http-room-%d", size), RoomPrefix: fmt.Sprintf("http%d-%d", size, time.Now().Unix()),
				Rooms: 1, PerRoom: size, Steady: 15 * time.Second, JoinConcurrency: 4, AuthHost: o.AuthHost, Progress: o.Log}
			rep, err := NewWorkload(cfg, url, client).Run(ctx)
			if err != nil {
				return err
			}
			out = append(out, &HTTPRoom{Kind: "room", Size: size, Report: rep})
		}
		// The burst: every user joins at the same moment.
		cfg := WorkloadConfig{Name: "http-burst", RoomPrefix: fmt.Sprintf("httpburst-%d", time.Now().Unix()), Rooms: 1, PerRoom: burst,
			JoinConcurrency: burst, JoinAttempts: 1, AllowNoJoin: true, AuthHost: o.AuthHost, Progress: o.Log}
		t := time.Now()
		rep, err := NewWorkload(cfg, url, client).Run(ctx)
		if err != nil {
			return err
		}
		out = append(out, &HTTPRoom{Kind: "burst", Size: burst, Report: rep, WallSecs: time.Since(t).Seconds()})
		return nil
	})
	return out, err
}
