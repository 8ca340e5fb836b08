package workload

import (
	"context"
	"errors"
	"testing"
)

func TestOutcomeNamesTimeouts(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Result{Status: 200}, "200"},
		{Result{Status: 503, Code: "unavailable"}, "503 unavailable"},
		{Result{Err: context.DeadlineExceeded}, "timeout"},
		{Result{Err: errors.New("connection refused")}, "transport"},
	} {
		if got := c.r.Outcome(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
