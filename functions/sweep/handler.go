package sweep

import (
	"log/slog"
	"net/http"

	"github.com/roomlease/roomlease/functions/httpjson"
)

// Handler serves one sweep run per request, for Cloud Scheduler. Who may
// call it is decided by Cloud Run's invoker IAM (only the scheduler's
// service account), not here. The response is the run's summary; a run
// whose passes all failed answers 503, so the scheduler's retry policy and
// its own failure metrics see it.
func Handler(s *Sweeper, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			httpjson.WriteError(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST runs a sweep")
			return
		}
		sum := s.Run(r.Context())
		status := http.StatusOK
		if sum.FailedSteps > 0 && sum.Passes > 0 && sum.FailedSteps >= sum.Passes {
			status = http.StatusServiceUnavailable
		}
		httpjson.Write(w, status, sum.Fields())
	})
}
