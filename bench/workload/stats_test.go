package workload

import (
	"math"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ p, want float64 }{{50, 5}, {90, 9}, {95, 10}, {99, 10}, {100, 10}, {10, 1}, {0.1, 1}} {
		if got := Percentile(sorted, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("percentile of nothing should be NaN")
	}
	// 1..100: p99 is the 99th value, not the maximum.
	var hundred []float64
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, float64(i))
	}
	if got := Percentile(hundred, 99); got != 99 {
		t.Errorf("p99 of 1..100 = %v", got)
	}
}

func TestSummarizeUnsortedInput(t *testing.T) {
	s := Summarize([]float64{30, 10, 20})
	if s.N != 3 || s.P50 != 20 || s.Max != 30 || s.Min != 10 || s.Mean != 20 {
		t.Fatalf("%+v", s)
	}
	var d Dist
	d.Add(1500 * time.Microsecond)
	if got := d.Summary().Max; got != 1.5 {
		t.Fatalf("Dist stores milliseconds: got %v", got)
	}
	if (Summarize(nil) != Summary{}) {
		t.Fatal("empty summary should be zero")
	}
}

func TestMemoryReportGrowth(t *testing.T) {
	r := &RSSSampler{stop: make(chan struct{})}
	for i := range 20 {
		r.Samples = append(r.Samples, RSSSample{AtSeconds: float64(i), KiB: int64(1000 + i*10)})
	}
	m := r.Stop()
	if m.PeakKB != 1190 || m.FirstKB != 1000 || m.GrowthKB <= 0 || m.WarmKB >= m.LateKB {
		t.Fatalf("%+v", m)
	}
}
