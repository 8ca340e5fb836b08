package logging

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
)

// TraceKey is the field Cloud Logging reads as a line's trace: the lines
// that name one trace are shown together, under the request that wrote
// them (the request log Cloud Run writes names the same trace).
const TraceKey = "logging.googleapis.com/trace"

type traceKey struct{}

// WithTrace returns ctx carrying trace, a Cloud Trace resource name
// ("projects/P/traces/T"): every line logged with ctx, or a context made
// from it, then names it.
func WithTrace(ctx context.Context, trace string) context.Context {
	return context.WithValue(ctx, traceKey{}, trace)
}

var (
	// W3C Trace Context: version-traceid-parentid-flags, lowercase hex.
	traceparent = regexp.MustCompile(`^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}`)
	// Google's older header: TRACE_ID/SPAN_ID;o=OPTIONS, the span and
	// options optional.
	cloudTraceContext = regexp.MustCompile(`^([0-9a-fA-F]{32})(/|;|$)`)
)

// TraceID is the trace id a request carries: from traceparent, which Cloud
// Run sets on every request it forwards, else from X-Cloud-Trace-Context;
// "" when neither holds a valid one (an id of zeros is none).
func TraceID(h http.Header) string {
	if m := traceparent.FindStringSubmatch(strings.TrimSpace(h.Get("traceparent"))); m != nil &&
		!strings.HasPrefix(h.Get("traceparent"), "ff") && m[1] != strings.Repeat("0", 32) {
		return m[1]
	}
	if m := cloudTraceContext.FindStringSubmatch(strings.TrimSpace(h.Get("X-Cloud-Trace-Context"))); m != nil &&
		m[1] != strings.Repeat("0", 32) {
		return strings.ToLower(m[1])
	}
	return ""
}

// Traced serves h with each request's trace in its context, as the trace
// resource name of projectID, so that every line the request writes names
// it (loggers from New read it from the context: log with the *Context
// methods and the request's context).
func Traced(projectID string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := TraceID(r.Header); id != "" {
			r = r.WithContext(WithTrace(r.Context(), "projects/"+projectID+"/traces/"+id))
		}
		h.ServeHTTP(w, r)
	})
}

// traceHandler adds the context's trace to each line. Nothing here logs
// in a group (WithGroup), where the field would land inside the group and
// Cloud Logging would not see it.
type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if trace, ok := ctx.Value(traceKey{}).(string); ok && trace != "" {
		r = r.Clone()
		r.AddAttrs(slog.String(TraceKey, trace))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(as)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}
