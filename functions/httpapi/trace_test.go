package httpapi_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/appcheck"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/internal/appchecktest"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The handler logs with each request's context, so that behind
// logging.Traced (as functions/app serves it) every line a request writes
// names the request's trace: here, App Check's warning in monitor mode.
func TestAPI_LinesNameTheRequestsTrace(t *testing.T) {
	appchecktest.Start(t)
	var opts httpapi.Options
	_, logs := mustOpenGuardedAPI(t, func(o *httpapi.Options) {
		o.AppCheckMode, o.AppCheck = httpapi.AppCheckMonitor, appcheck.NewVerifier(emulatortest.AuthProjectID(), time.Now)
		opts = *o
	})
	srv := httptest.NewServer(logging.Traced("demo-trace", httpapi.New(opts)))
	t.Cleanup(srv.Close)
	f := &apiFixture{srv: srv}
	ada := emulatortest.SignUp(t)

	r := f.do(t, "POST", "/v1/rooms/traced/join", ada.IDToken, `{"sessionId":"s"}`,
		"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	if r.status != 200 {
		t.Fatalf("join: %d %s", r.status, r.raw)
	}
	lines := logs.Lines(t, map[string]any{"message": "request without a valid App Check token"})
	if len(lines) != 1 {
		t.Fatalf("%d App Check warnings, want 1:\n%s", len(lines), logs.String())
	}
	if got := lines[0][logging.TraceKey]; got != "projects/demo-trace/traces/0af7651916cd43dd8448eb211c80319c" {
		t.Fatalf("the request's line names trace %v:\n%s", got, logs.String())
	}
}
