package sweep

import (
	"encoding/json"
	"log/slog"
	"net/http"
)

// Handler serves one sweep run per request, for Cloud Scheduler. Who may
// call it is decided by Cloud Run's invoker IAM (only the scheduler's
// service account), not here. The response is the run's summary; a run
// whose passes failed answers 503, so the scheduler's retry policy and its
// own failure metrics see it.
func Handler(s *Sweeper, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusMethodNotAllowed)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{
				"code": "method_not_allowed", "message": "POST runs a sweep"}})
			return
		}
		sum := s.Run(r.Context())
		status := http.StatusOK
		if sum.LeaseCheckFailures > 0 && sum.Passes > 0 && sum.LeaseCheckFailures >= sum.Passes {
			status = http.StatusServiceUnavailable
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(sum.Fields())
	})
}
