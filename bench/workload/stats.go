package workload

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Summary describes a distribution of durations, in milliseconds.
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"meanMs"`
	P50  float64 `json:"p50Ms"`
	P95  float64 `json:"p95Ms"`
	P99  float64 `json:"p99Ms"`
	Max  float64 `json:"maxMs"`
	Min  float64 `json:"minMs"`
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted: the smallest value such that at least p% of the values are <= it.
// It returns NaN for an empty slice.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// Summarize returns the summary of values (milliseconds).
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{}
	}
	s := slices.Clone(values)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	return Summary{N: len(s), Mean: sum / float64(len(s)), P50: Percentile(s, 50), P95: Percentile(s, 95),
		P99: Percentile(s, 99), Max: s[len(s)-1], Min: s[0]}
}

// Dist collects durations concurrently.
type Dist struct {
	mu sync.Mutex
	v  []float64
}

// Add records d.
func (d *Dist) Add(x time.Duration) {
	d.mu.Lock()
	d.v = append(d.v, float64(x)/float64(time.Millisecond))
	d.mu.Unlock()
}

// Values returns a copy of the recorded values in milliseconds.
func (d *Dist) Values() []float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.v)
}

// Summary summarizes the recorded values.
func (d *Dist) Summary() Summary { return Summarize(d.Values()) }

// Ratio returns a/b, or 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
