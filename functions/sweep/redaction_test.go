package sweep_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
)

// Ids that cannot occur in a report by accident.
const (
	leakRoom = "standup-7f3a9c"
	leakUser = "uid-5e1d08"
)

// leakyStore is the real store with one of its steps failing the way the
// Firestore client fails: a gRPC error whose text names the documents
// involved, and with them a room id and a uid.
type leakyStore struct {
	sweep.Store
	failing string // "ExpireSession", "ExpiredSessions" or "RepairEmptyActive"
}

func (s *leakyStore) failure(code codes.Code) error {
	return status.Errorf(code, "too much contention on these documents: projects/p/databases/(default)/documents/rooms/%s/participants/%s/sessions/tab",
		leakRoom, leakUser)
}

func (s *leakyStore) ExpireSession(ctx context.Context, c presence.ExpiryCandidate) (presence.ExpiryResult, error) {
	if s.failing == "ExpireSession" {
		return presence.ExpiryResult{}, s.failure(codes.Aborted)
	}
	return s.Store.ExpireSession(ctx, c)
}

func (s *leakyStore) ExpiredSessions(ctx context.Context, now time.Time, limit int) (presence.Listing[presence.ExpiryCandidate], error) {
	if s.failing == "ExpiredSessions" {
		return presence.Listing[presence.ExpiryCandidate]{}, s.failure(codes.Unavailable)
	}
	return s.Store.ExpiredSessions(ctx, now, limit)
}

func (s *leakyStore) RepairEmptyActive(ctx context.Context, since time.Time, limit int) (presence.RepairReport, error) {
	if s.failing == "RepairEmptyActive" {
		return presence.RepairReport{}, s.failure(codes.DeadlineExceeded)
	}
	return s.Store.RepairEmptyActive(ctx, since, limit)
}

// A failure's text names rooms and users (Firestore paths). The summary
// line, roomlease/sweepStatus and the Sweep response carry only the failed
// step and its code; the full text goes to a WARNING line of its own.
func TestRun_FailuresAreReportedRedacted(t *testing.T) {
	for _, tc := range []struct{ failing, lastError string }{
		{"ExpireSession", "expiring a session: Aborted"},
		{"ExpiredSessions", "listing expired sessions: Unavailable"},
		{"RepairEmptyActive", "re-checking rooms that may have emptied unnoticed: DeadlineExceeded"},
	} {
		t.Run(tc.failing, func(t *testing.T) {
			f := MustOpen(t)
			f.join(t, leakRoom, leakUser, "tab")
			f.clock.Advance(f.settings.Lease) // a crashed client: its session is due to expire
			store := &leakyStore{Store: f.store, failing: tc.failing}
			s := f.sweeper(t, store, sweep.Config{RunBudget: time.Millisecond} /* one pass */)

			s.Run(f.ctx)
			summary := f.logLine(t, "sweep run")
			if summary["lastError"] != tc.lastError || summary["failedSteps"] != 1.0 {
				t.Fatalf("summary lastError %q, failedSteps %v; want %q and 1", summary["lastError"], summary["failedSteps"], tc.lastError)
			}
			wantNoIDs(t, "the summary line", summary)
			status := f.docData(t, "roomlease/sweepStatus")
			if status["lastError"] != tc.lastError {
				t.Fatalf("status lastError %q, want %q", status["lastError"], tc.lastError)
			}
			wantNoIDs(t, "roomlease/sweepStatus", status)

			// The same run through the Sweep endpoint: the response is the
			// summary, redacted the same way.
			srv := httptest.NewServer(sweep.Handler(s, logging.New(f.logs, levelDebug)))
			defer srv.Close()
			resp, err := http.Post(srv.URL, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var answer map[string]any
			if err := json.Unmarshal(body, &answer); err != nil || answer["lastError"] != tc.lastError {
				t.Fatalf("Sweep response %s (%v), want lastError %q", body, err, tc.lastError)
			}
			wantNoIDs(t, "the Sweep response", answer)

			// The full text is kept, for the server's log only: without it
			// the checks above would prove nothing.
			full := 0
			for _, line := range f.logs.Lines(t, map[string]any{"severity": "WARNING", "component": "sweeper"}) {
				if e, _ := line["error"].(string); strings.Contains(e, leakRoom) && strings.Contains(e, leakUser) && line["message"] != "sweep run" {
					full++
				}
			}
			if full == 0 {
				t.Fatalf("no WARNING line carries the full error; log:\n%s", f.logs)
			}
		})
	}
}

func wantNoIDs(t *testing.T, where string, fields map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(fields)
	if strings.Contains(string(raw), leakRoom) || strings.Contains(string(raw), leakUser) {
		t.Fatalf("%s names the room or the user: %s", where, raw)
	}
}
