// Package testlog collects the JSON log lines a component under test writes,
// safely from any goroutine, and finds lines by their fields.
package testlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// Buffer is an io.Writer for a slog JSON handler.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines returns the decoded lines whose fields include all of want, in the
// order written. A line that is not JSON fails the test.
func (b *Buffer) Lines(tb testing.TB, want map[string]any) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			tb.Fatalf("log line is not JSON: %q", line)
		}
		match := true
		for k, v := range want {
			if m[k] != v {
				match = false
			}
		}
		if match {
			out = append(out, m)
		}
	}
	return out
}
