package workload

import (
	"context"
	"net/http"

	"github.com/roomlease/roomlease/functions/steptime"
)

// The server's own account of a request: with ROOMLEASE_SERVER_TIMING set
// (ServerEnv sets it), room replies carry a Server-Timing header of the
// gates and each store step. The Go client does not hand headers back, so
// the API's transport copies the header into a sink the caller put in the
// request's context.

type timingSinkKey struct{}

// ServerSteps are the steps of one request as its reply's Server-Timing
// header told them, in milliseconds by step name (nil: no header came).
type ServerSteps struct{ Ms map[string]float64 }

// WithServerSteps returns ctx with a sink that a request made with it fills
// from its reply's Server-Timing header.
func WithServerSteps(ctx context.Context) (context.Context, *ServerSteps) {
	s := &ServerSteps{}
	return context.WithValue(ctx, timingSinkKey{}, s), s
}

type timingTransport struct{ base http.RoundTripper }

func (t timingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if sink, ok := req.Context().Value(timingSinkKey{}).(*ServerSteps); ok && err == nil {
		if v := resp.Header.Get("Server-Timing"); v != "" {
			sink.Ms = steptime.Parse(v)
		}
	}
	return resp, err
}

// CloseIdleConnections passes http.Client.CloseIdleConnections through.
func (t timingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
