package httpapi

import (
	"net/http"

	"github.com/roomlease/roomlease/functions/steptime"
)

// withServerTiming gives r a step recorder (package steptime) and returns a
// writer that sets the Server-Timing header from it just before the status
// line goes out: by then the handler has finished with the store, so the
// header holds every step. Used only when Options.ServerTiming is set (the
// benchmarks): the figures tell how busy the backend is, which is no
// business of an ordinary client.
func withServerTiming(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	ctx, steps := steptime.With(r.Context())
	return &timedWriter{ResponseWriter: w, steps: steps}, r.WithContext(ctx)
}

type timedWriter struct {
	http.ResponseWriter
	steps   *steptime.Steps
	written bool
}

func (t *timedWriter) WriteHeader(status int) {
	if !t.written {
		t.written = true
		if v := t.steps.Header(); v != "" {
			t.Header().Set("Server-Timing", v)
		}
	}
	t.ResponseWriter.WriteHeader(status)
}

func (t *timedWriter) Write(b []byte) (int, error) {
	if !t.written {
		t.WriteHeader(http.StatusOK)
	}
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *timedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
