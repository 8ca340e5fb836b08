// Package steptime records how long the named steps of one request took,
// so that the request's answer can say where its time went (an HTTP
// Server-Timing header) and a benchmark can add the steps up across many
// processes. A step recorded twice in one request (a transaction attempt
// retried, a lifecycle step and the join run again) adds up under its name.
//
// Recording costs a context lookup and, with no recorder in the context,
// nothing else: stores call Add unconditionally, and only a handler that
// wants the figures puts a recorder in.
package steptime

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Steps is one request's recorder. It is safe for concurrent use (a store
// may time steps of one request from several goroutines).
type Steps struct {
	mu    sync.Mutex
	order []string
	total map[string]time.Duration
}

type key struct{}

// With returns ctx carrying a new recorder, and the recorder.
func With(ctx context.Context) (context.Context, *Steps) {
	s := &Steps{total: map[string]time.Duration{}}
	return context.WithValue(ctx, key{}, s), s
}

// Add adds d to the step name of ctx's recorder, if it has one.
func Add(ctx context.Context, name string, d time.Duration) {
	s, ok := ctx.Value(key{}).(*Steps)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.total[name]; !seen {
		s.order = append(s.order, name)
	}
	s.total[name] += d
}

// Since adds the time since start to the step name (defer-friendly:
// `defer steptime.Since(ctx, "x", time.Now())`).
func Since(ctx context.Context, name string, start time.Time) {
	Add(ctx, name, time.Since(start))
}

// Header renders the steps as a Server-Timing header value, in the order
// they were first recorded: `join-txn;dur=12.3, join-revision;dur=1.0`
// (milliseconds). Empty when nothing was recorded.
func (s *Steps) Header() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := make([]string, 0, len(s.order))
	for _, name := range s.order {
		parts = append(parts, fmt.Sprintf("%s;dur=%.1f", name, float64(s.total[name])/float64(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// Parse reads a Server-Timing header value into milliseconds by metric
// name. Metrics without a dur parameter, and malformed ones, are left out;
// a name given twice adds up.
func Parse(header string) map[string]float64 {
	out := map[string]float64{}
	for _, metric := range strings.Split(header, ",") {
		params := strings.Split(strings.TrimSpace(metric), ";")
		name := strings.TrimSpace(params[0])
		if name == "" {
			continue
		}
		for _, p := range params[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || strings.TrimSpace(k) != "dur" {
				continue
			}
			if ms, err := strconv.ParseFloat(strings.Trim(strings.TrimSpace(v), `"`), 64); err == nil {
				out[name] += ms
			}
		}
	}
	return out
}
