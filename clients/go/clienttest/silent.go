package clienttest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// SilentServer accepts every request and never answers, as a hung
// instance or a network that swallows packets would: a test points a
// client (or some of its requests) at it to show what a hang costs.
type SilentServer struct {
	URL      string
	requests atomic.Int32
}

// NewSilentServer starts a silent server that stops when tb ends; the
// requests it holds then end too.
func NewSilentServer(tb testing.TB) *SilentServer {
	tb.Helper()
	s := &SilentServer{}
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		select {
		case <-r.Context().Done(): // the client gave up
		case <-stop:
		}
	}))
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() { close(stop) }) // runs first: unblocks the handlers
	s.URL = srv.URL
	return s
}

// Requests is how many requests have arrived.
func (s *SilentServer) Requests() int { return int(s.requests.Load()) }
