package firestoredb_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
)

// BenchmarkCrowd is a crowd joining at once and then leaving, in one
// process, through four stores on separate Firestore clients (four
// instances as far as Firestore can tell): into one room that exists (a
// call in progress), into one room that does not yet (the crowd creates
// it, as the fleet's does), into one room everyone has just left (the
// crowd revives it from its grace), and spread over as many rooms as users
// (the floor, which shares nothing). It tells what
// the store's own transactions cost a crowd, without the HTTP servers,
// token checks and scheduling of the fleet benchmark (scripts/bench
// fleet), on a machine where the fleet saturates. `scripts/bench crowd`
// runs it; ROOMLEASE_BENCH_CROWD sets the crowd (default 1 000). The cap is
// set above the crowd, except in two cases. In one-room-at-its-cap the
// crowd fills a room in progress to exactly its cap, as the fleet's crowd
// of 1 000 fills the default cap. In one-room-past-its-cap the room has
// 100 places fewer than the crowd: an exact cap refuses 100 joins
// (join-full), fewer refused is how far the crowd went over it, and more
// is places left empty (docs/races.md, "A crowd bigger than the places
// left"); the refused joins' leaves count as failed too, having nothing
// to leave.
//
// Reported per run: p50 and p99 of the joins and of the leaves in
// milliseconds, how many of each failed, and how many of those were
// refused as room_full (the first few other failures are logged); and
// the Firestore reads and writes the crowd's joins and leaves cost,
// billed as Firestore bills them, per request: in one room, an
// instance's joins share their snapshots, so the join's reads show how
// many joins a snapshot served.
func BenchmarkCrowd(b *testing.B) {
	crowd := 1000
	if v := os.Getenv("ROOMLEASE_BENCH_CROWD"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			b.Fatalf("ROOMLEASE_BENCH_CROWD=%q: want a number of at least 2", v)
		}
		crowd = n
	}
	for _, c := range []struct {
		name    string
		oneRoom bool
		room    roomBefore
		// placesShort is how many places the room has fewer than the
		// crowd; -1: the cap is far above the crowd.
		placesShort int
	}{{"one-room", true, roomActive, -1}, {"one-room-at-its-cap", true, roomActive, 0}, {"one-room-past-its-cap", true, roomActive, 100}, {"one-new-room", true, roomMissing, -1}, {"one-room-in-grace", true, roomInGrace, -1}, {"separate-rooms", false, roomMissing, -1}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				joins, leaves := crowdOnce(b, crowd, c.oneRoom, c.room, c.placesShort)
				report(b, "join", joins.outs)
				reportOps(b, "join", joins)
				report(b, "leave", leaves.outs)
				reportOps(b, "leave", leaves)
			}
		})
	}
}

// roomBefore is how the crowd finds its room.
type roomBefore int

const (
	roomMissing roomBefore = iota // the crowd creates it
	roomActive                    // a call in progress
	roomInGrace                   // everyone left a moment ago: the crowd revives it
)

type outcome struct {
	took time.Duration
	err  error
}

// phase is what one of the crowd's bursts did: each request's outcome,
// and the operations every store made meanwhile.
type phase struct {
	outs []outcome
	ops  firestoredb.OpCounts
}

func crowdOnce(b *testing.B, crowd int, oneRoom bool, before roomBefore, placesShort int) (joins, leaves phase) {
	b.StopTimer()
	client, project := emulatortest.Firestore(b)
	settings := presence.DefaultSettings()
	settings.MaxParticipants = 2*crowd + 10
	if placesShort >= 0 {
		settings.MaxParticipants = 1 + crowd - placesShort // the host and the crowd's places
	}
	// A clock that moves, as every instance's does: the claims on the last
	// places are ordered by their time (claims.go), and a clock that stands
	// still would order a crowd by its ids instead of its arrival.
	began := time.Now()
	now := func() time.Time { return testclock.Start.Add(time.Since(began)) }
	stores := []*firestoredb.Store{withTokens(firestoredb.New(client, settings, now))}
	for range 3 {
		c, err := firestore.NewClient(context.Background(), project)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		stores = append(stores, withTokens(firestoredb.New(c, settings, now)))
	}
	roomOf := func(i int) string {
		if oneRoom {
			return "crowd"
		}
		return fmt.Sprintf("crowd-%04d", i)
	}
	ctx := context.Background()
	if before != roomMissing {
		host, err := stores[0].Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: "crowd", ParticipantID: "host", SessionID: "t"}})
		if err != nil {
			b.Fatal(err)
		}
		if before == roomInGrace {
			if _, err := stores[0].Leave(ctx, ref("crowd", "host", "t", host.Session.Generation)); err != nil {
				b.Fatal(err)
			}
		}
	}
	refs := make([]presence.SessionRef, crowd)
	ops := func() (sum firestoredb.OpCounts) {
		for _, s := range stores {
			o := s.Ops()
			sum.Reads, sum.Writes = sum.Reads+o.Reads, sum.Writes+o.Writes
		}
		return sum
	}
	b.StartTimer()
	atStart := ops()
	joins.outs = atOnce(crowd, func(i int) error {
		res, err := stores[i%len(stores)].Join(ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: roomOf(i), ParticipantID: fmt.Sprintf("u%04d", i), SessionID: "t"}})
		if err == nil {
			refs[i] = ref(roomOf(i), fmt.Sprintf("u%04d", i), "t", res.Session.Generation)
		}
		return err
	})
	afterJoins := ops()
	joins.ops = afterJoins.Sub(atStart)
	leaves.outs = atOnce(crowd, func(i int) error {
		if refs[i].RoomID == "" {
			return fmt.Errorf("never joined")
		}
		_, err := stores[i%len(stores)].Leave(ctx, refs[i])
		return err
	})
	b.StopTimer()
	leaves.ops = ops().Sub(afterJoins)
	return joins, leaves
}

// atOnce runs f for 0..n-1, all at once, and times each.
func atOnce(n int, f func(i int) error) []outcome {
	out := make([]outcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			began := time.Now()
			err := f(i)
			out[i] = outcome{time.Since(began), err}
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// reportOps reports p's reads and writes per request of the burst.
func reportOps(b *testing.B, op string, p phase) {
	n := float64(max(len(p.outs), 1))
	b.ReportMetric(float64(p.ops.Reads)/n, op+"-reads/op")
	b.ReportMetric(float64(p.ops.Writes)/n, op+"-writes/op")
}

func report(b *testing.B, op string, outs []outcome) {
	var took []time.Duration
	failed, full := 0, 0
	for _, o := range outs {
		if o.err != nil {
			failed++
			if presence.ErrorCode(o.err) == presence.ERoomFull {
				full++
			} else if op == "join" && failed-full <= 3 {
				b.Logf("%s failed: %v", op, o.err)
			}
			continue
		}
		took = append(took, o.took)
	}
	slices.Sort(took)
	at := func(q float64) float64 {
		if len(took) == 0 {
			return 0
		}
		return float64(took[int(q*float64(len(took)-1))].Milliseconds())
	}
	b.ReportMetric(at(0.50), op+"-p50-ms")
	b.ReportMetric(at(0.99), op+"-p99-ms")
	b.ReportMetric(float64(failed), op+"-failed")
	b.ReportMetric(float64(full), op+"-full")
}
