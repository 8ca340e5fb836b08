package steptime_test

import (
	"context"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/steptime"
)

func TestSteps_HeaderAddsUpRepeatsInFirstOrder(t *testing.T) {
	ctx, steps := steptime.With(context.Background())
	steptime.Add(ctx, "join-txn", 12*time.Millisecond)
	steptime.Add(ctx, "join-revision", 1500*time.Microsecond)
	steptime.Add(ctx, "join-txn", 3*time.Millisecond)
	if got, want := steps.Header(), "join-txn;dur=15.0, join-revision;dur=1.5"; got != want {
		t.Fatalf("header %q, want %q", got, want)
	}
}

func TestAdd_WithoutARecorderDoesNothing(t *testing.T) {
	steptime.Add(context.Background(), "x", time.Second) // must not panic
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   map[string]float64
	}{
		{"join-txn;dur=15.0, join-revision;dur=1.5", map[string]float64{"join-txn": 15, "join-revision": 1.5}},
		{`cache;desc="Cache Read";dur=23.2`, map[string]float64{"cache": 23.2}},
		{"miss, db;dur=53, db;dur=7", map[string]float64{"db": 60}},
		{"", map[string]float64{}},
		{"x;dur=abc", map[string]float64{}},
	} {
		got := steptime.Parse(tc.header)
		if len(got) != len(tc.want) {
			t.Fatalf("Parse(%q) = %v, want %v", tc.header, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Fatalf("Parse(%q) = %v, want %v", tc.header, got, tc.want)
			}
		}
	}
}
