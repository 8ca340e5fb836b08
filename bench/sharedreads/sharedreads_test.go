package sharedreads

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

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The transaction's shape is a join's, as far as the emulator can tell: it
// reads four documents in one round trip (a join's room, policy, entry and
// session), then two more of its own (the per-user document and the
// departure record), and writes one. sharedOf of the first four are the
// same documents for every transaction of the crowd; the rest are its own.
const (
	firstReads  = 4
	secondReads = 2
	clients     = 8
	rounds      = 5
)

// BenchmarkSharedReads sends a crowd of transactions at once through eight
// Firestore clients, with 0, 1 and 2 of their first four reads shared, in
// rounds that alternate the three so that a machine growing busier or
// idler shows in all of them alike. A round of warm-up comes first, named
// so: the emulator's first crowd runs before its JIT compiler has caught
// up, and is slower whatever it reads. ROOMLEASE_BENCH_TRANSACTIONS sets
// the crowd (default 1 000).
//
// Reported per run (milliseconds, p50 and p99 of the crowd): reads, the
// first round trip of reads of the last attempt; txn, the whole
// transaction as RunTransaction took it, retries included; and how many
// transactions retried or failed.
func BenchmarkSharedReads(b *testing.B) {
	crowd := 1000
	if v := os.Getenv("ROOMLEASE_BENCH_TRANSACTIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ROOMLEASE_BENCH_TRANSACTIONS=%q: want a positive number", v)
		}
		crowd = n
	}
	for round := 0; round <= rounds; round++ {
		name := fmt.Sprintf("round-%d", round)
		if round == 0 {
			name = "warm-up"
		}
		for _, shared := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("%s/shared-%d", name, shared), func(b *testing.B) {
				for range b.N {
					report(b, crowdOnce(b, crowd, shared))
				}
			})
		}
	}
}

type outcome struct {
	reads, txn time.Duration
	attempts   int
	err        error
}

// crowdOnce seeds a fresh project with the documents crowd transactions
// read, then runs them all at once and times each.
func crowdOnce(b *testing.B, crowd, shared int) []outcome {
	b.StopTimer()
	first, project := emulatortest.Firestore(b)
	cs := []*firestore.Client{first}
	for range clients - 1 {
		c, err := firestore.NewClient(context.Background(), project)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		cs = append(cs, c)
	}
	ctx := context.Background()
	common := []string{"rooms/shared", "policies/shared"}
	own := func(i, k int) string { return fmt.Sprintf("own/%05d-%d", i, k) }
	paths := slices.Clone(common)
	for i := range crowd {
		for k := range firstReads + secondReads {
			paths = append(paths, own(i, k))
		}
	}
	seed := first.BulkWriter(ctx)
	for _, path := range paths {
		if _, err := seed.Set(first.Doc(path), map[string]any{"seeded": true}); err != nil {
			b.Fatal(err)
		}
	}
	seed.End()

	out := make([]outcome, crowd)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range crowd {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cs[i%len(cs)]
			var refs []*firestore.DocumentRef
			for k := range firstReads {
				if k < shared {
					refs = append(refs, c.Doc(common[k]))
				} else {
					refs = append(refs, c.Doc(own(i, k)))
				}
			}
			later := []*firestore.DocumentRef{c.Doc(own(i, firstReads)), c.Doc(own(i, firstReads+1))}
			<-start
			o := &out[i]
			began := time.Now()
			o.err = c.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
				o.attempts++
				readsBegan := time.Now()
				if _, err := tx.GetAll(refs); err != nil {
					return err
				}
				o.reads = time.Since(readsBegan)
				if _, err := tx.GetAll(later); err != nil {
					return err
				}
				return tx.Set(later[0], map[string]any{"written": true}, firestore.MergeAll)
			})
			o.txn = time.Since(began)
		}()
	}
	b.StartTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	return out
}

func report(b *testing.B, outs []outcome) {
	var reads, txns []time.Duration
	retried, failed := 0, 0
	for _, o := range outs {
		if o.err != nil {
			failed++
			if failed <= 3 {
				b.Logf("a transaction failed: %v", o.err)
			}
			continue
		}
		if o.attempts > 1 {
			retried++
		}
		reads = append(reads, o.reads)
		txns = append(txns, o.txn)
	}
	b.ReportMetric(percentile(reads, 0.50), "reads-p50-ms")
	b.ReportMetric(percentile(reads, 0.99), "reads-p99-ms")
	b.ReportMetric(percentile(txns, 0.50), "txn-p50-ms")
	b.ReportMetric(percentile(txns, 0.99), "txn-p99-ms")
	b.ReportMetric(float64(retried), "retried")
	b.ReportMetric(float64(failed), "failed")
}

// percentile is the q-th of ds in milliseconds, 0 for none.
func percentile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
}
