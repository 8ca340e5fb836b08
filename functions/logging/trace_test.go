package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/logging"
)

func TestTraceID(t *testing.T) {
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	for name, tc := range map[string]struct {
		headers map[string]string
		want    string
	}{
		"Traceparent":            {map[string]string{"traceparent": "00-" + id + "-00f067aa0ba902b7-01"}, id},
		"CloudTraceContext":      {map[string]string{"X-Cloud-Trace-Context": strings.ToUpper(id) + "/123;o=1"}, id},
		"CloudTraceContextAlone": {map[string]string{"X-Cloud-Trace-Context": id}, id},
		"TraceparentWins":        {map[string]string{"traceparent": "00-" + id + "-00f067aa0ba902b7-01", "X-Cloud-Trace-Context": strings.Repeat("a", 32) + "/1"}, id},
		"BadTraceparentFallsBack": {map[string]string{"traceparent": "00-" + strings.Repeat("0", 32) + "-00f067aa0ba902b7-01",
			"X-Cloud-Trace-Context": id + "/1"}, id},
		"InvalidVersion": {map[string]string{"traceparent": "ff-" + id + "-00f067aa0ba902b7-01"}, ""},
		"TooShort":       {map[string]string{"traceparent": "00-4bf92f35-00f067aa0ba902b7-01", "X-Cloud-Trace-Context": "abc/1"}, ""},
		"None":           {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			if got := logging.TraceID(h); got != tc.want {
				t.Fatalf("TraceID = %q, want %q", got, tc.want)
			}
		})
	}
}

// Every line logged with the request's context, or one made from it,
// names the trace; a line logged without it does not.
func TestTraced_EveryLineOfTheRequest(t *testing.T) {
	var buf bytes.Buffer
	log := logging.New(&buf, nil).With("component", "test")
	h := logging.Traced("demo-p", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.InfoContext(r.Context(), "first")
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		log.WarnContext(ctx, "second")
		log.Info("not the request's")
	}))
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)) // no trace

	want := map[string]string{"first": "projects/demo-p/traces/4bf92f3577b34da6a3ce929d0e0e4736", "second": "projects/demo-p/traces/4bf92f3577b34da6a3ce929d0e0e4736"}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), buf.String())
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		got, _ := m[logging.TraceKey].(string)
		if wantTrace := want[m["message"].(string)]; i >= 3 || wantTrace == "" {
			if got != "" {
				t.Errorf("line %q names trace %q; it is no traced request's", l, got)
			}
		} else if got != wantTrace {
			t.Errorf("line %q: trace %q, want %q", l, got, wantTrace)
		}
	}
}
