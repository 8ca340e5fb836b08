package emuscan

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// opened is the field every document carries and the count filters on,
// as the store's counts filter entries on their room's lifetime.
const opened = "roomOpenedAt"

var lifetime = time.Unix(1_700_000_000, 0).UTC()

// placements are where the added documents go, relative to the counted
// collection rooms/target/participants.
var placements = []struct {
	name string
	ref  func(c *firestore.Client, i int) *firestore.DocumentRef
}{
	{"another-collection-name", func(c *firestore.Client, i int) *firestore.DocumentRef {
		return c.Collection("rooms").Doc(fmt.Sprint("r", i)).Collection("recentlyLeft").Doc("u")
	}},
	{"same-name-other-rooms", func(c *firestore.Client, i int) *firestore.DocumentRef {
		return c.Collection("rooms").Doc(fmt.Sprint("r", i)).Collection("participants").Doc("u")
	}},
	{"same-name-other-root", func(c *firestore.Client, i int) *firestore.DocumentRef {
		return c.Collection("elsewhere").Doc(fmt.Sprint("e", i)).Collection("participants").Doc("u")
	}},
	{"counted-collection", func(c *firestore.Client, i int) *firestore.DocumentRef {
		return c.Collection("rooms").Doc("target").Collection("participants").Doc(fmt.Sprint("u", i))
	}},
}

// BenchmarkQueryScan times a count of rooms/target/participants (one
// document, filtered on its lifetime as the store's counts are) on a
// fresh project, then adds ROOMLEASE_BENCH_SCAN_DOCS documents (default
// 10 000) in one placement and times it again. The placements alternate
// over three rounds, after a warm-up round named so (the emulator's
// compiler is still at work on its first counts), so that a machine
// growing busier or idler shows in all of them alike. Reported: the
// median count before and after, in milliseconds, and the difference per
// thousand documents added.
func BenchmarkQueryScan(b *testing.B) {
	added := 10000
	if v := os.Getenv("ROOMLEASE_BENCH_SCAN_DOCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ROOMLEASE_BENCH_SCAN_DOCS=%q: want a positive number", v)
		}
		added = n
	}
	for round := range 4 {
		name := fmt.Sprintf("round-%d", round)
		if round == 0 {
			name = "warm-up"
		}
		for _, p := range placements {
			b.Run(name+"/"+p.name, func(b *testing.B) {
				for range b.N {
					scanOnce(b, added, p.ref)
				}
			})
		}
	}
}

// scanOnce is one measurement on a fresh project.
func scanOnce(b *testing.B, added int, place func(c *firestore.Client, i int) *firestore.DocumentRef) {
	b.StopTimer()
	c, _ := emulatortest.Firestore(b)
	target := c.Collection("rooms").Doc("target").Collection("participants")
	write(b, c, 1, func(int) *firestore.DocumentRef { return target.Doc("host") })
	q := target.Where(opened, "==", lifetime)
	before := medianCount(b, q)
	write(b, c, added, func(i int) *firestore.DocumentRef { return place(c, i) })
	after := medianCount(b, q)
	b.ReportMetric(ms(before), "ms-before")
	b.ReportMetric(ms(after), "ms-after")
	b.ReportMetric(ms(after-before)*1000/float64(added), "ms-per-1000-added")
}

// write writes n documents, ref(i) each, carrying the counted lifetime.
func write(b *testing.B, c *firestore.Client, n int, ref func(i int) *firestore.DocumentRef) {
	bw := c.BulkWriter(context.Background())
	for i := range n {
		if _, err := bw.Set(ref(i), map[string]any{opened: lifetime}); err != nil {
			b.Fatal(err)
		}
	}
	bw.End()
}

// medianCount is the median of 31 counts of q, one after another, after
// five that warm the emulator's code for this query up. The median, since
// the emulator's collector stops a count now and then.
func medianCount(b *testing.B, q firestore.Query) time.Duration {
	var took []time.Duration
	for i := range 36 {
		began := time.Now()
		res, err := q.NewAggregationQuery().WithCount("n").Get(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := res["n"]; !ok {
			b.Fatalf("no count in %v", res)
		}
		if i >= 5 {
			took = append(took, time.Since(began))
		}
	}
	slices.Sort(took)
	return took[len(took)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
