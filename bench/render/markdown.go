package render

// The cells the Markdown reports share: durations, distributions, yes/no.
// (Maps go out in a stable order with slices.Sorted(maps.Keys(m)).)

import (
	"fmt"

	"github.com/roomlease/roomlease/bench/workload"
)

// Ms formats milliseconds: seconds from 10 s up, whole milliseconds from
// 100 ms up, tenths below.
func Ms(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 10000:
		return fmt.Sprintf("%.1f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	default:
		return fmt.Sprintf("%.1f ms", v)
	}
}

// Secs formats milliseconds as seconds.
func Secs(v float64) string { return fmt.Sprintf("%.2f s", v/1000) }

// LatencyRow formats a Summary as table cells: n | p50 | p95 | p99 | max.
func LatencyRow(s workload.Summary) string {
	if s.N == 0 {
		return "0 | – | – | – | –"
	}
	return fmt.Sprintf("%d | %s | %s | %s | %s", s.N, Ms(s.P50), Ms(s.P95), Ms(s.P99), Ms(s.Max))
}

// SecondsRow formats a Summary of long durations in seconds.
func SecondsRow(s workload.Summary) string {
	if s.N == 0 {
		return "0 | – | – | – | –"
	}
	return fmt.Sprintf("%d | %s | %s | %s | %s", s.N, Secs(s.P50), Secs(s.P95), Secs(s.P99), Secs(s.Max))
}

// YesNo is a table's yes or no.
func YesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
