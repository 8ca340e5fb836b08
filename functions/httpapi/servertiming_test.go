package httpapi_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/steptime"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// With ServerTiming on, a join's and a leave's replies say how long their
// gates and store steps took; without it, no reply carries the header.
func TestAPI_ServerTiming(t *testing.T) {
	t.Run("On", func(t *testing.T) {
		f := mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) { o.ServerTiming = true })
		ada := emulatortest.SignUp(t)
		join := f.do(t, "POST", "/v1/rooms/timed/join", ada.IDToken, `{"sessionId":"tab-1"}`)
		if join.status != 200 {
			t.Fatalf("join: %d %s", join.status, join.raw)
		}
		steps := steptime.Parse(join.header.Get("Server-Timing"))
		// A first join creates the room in its own commit (join-create):
		// no claim, no snapshot, no other step.
		if len(steps) != 2 {
			t.Errorf("join's Server-Timing %q: want gates and join-create alone", join.header.Get("Server-Timing"))
		}
		for _, name := range []string{"gates", "join-create"} {
			if _, ok := steps[name]; !ok {
				t.Errorf("join's Server-Timing %q lacks %s", join.header.Get("Server-Timing"), name)
			}
		}
		bob := emulatortest.SignUp(t)
		j := f.do(t, "POST", "/v1/rooms/timed/join", bob.IDToken, `{"sessionId":"tab-1"}`)
		if j.status != 200 {
			t.Fatalf("second join: %d %s", j.status, j.raw)
		}
		// A new user's join into an active room: one uncontended attempt,
		// its reads, its claim on a place, the snapshot, its commit.
		steps = steptime.Parse(j.header.Get("Server-Timing"))
		for _, name := range []string{"join-txn", "join-begin", "join-read", "join-claim", "join-size", "join-commit"} {
			if _, ok := steps[name]; !ok {
				t.Errorf("a new user's join into an active room has no %s step: %q", name, j.header.Get("Server-Timing"))
			}
		}
		if _, ok := steps["join-retried"]; ok {
			t.Errorf("an uncontended join reports a retried attempt: %q", j.header.Get("Server-Timing"))
		}
		if parts := steps["join-begin"] + steps["join-read"] + steps["join-claim"] + steps["join-commit"]; parts > steps["join-txn"]+0.4 {
			t.Errorf("join-begin + join-read + join-claim + join-commit = %.1f ms, more than join-txn %.1f ms", parts, steps["join-txn"])
		}
		leave := f.do(t, "POST", "/v1/rooms/timed/leave", ada.IDToken, `{"sessionId":"tab-1","generation":`+jsonInt(int64(join.body["generation"].(float64)))+`}`)
		if leave.status != 200 {
			t.Fatalf("leave: %d %s", leave.status, leave.raw)
		}
		steps = steptime.Parse(leave.header.Get("Server-Timing"))
		for _, name := range []string{"leave-txn", "leave-begin", "leave-read", "leave-commit", "leave-settle"} {
			if _, ok := steps[name]; !ok {
				t.Errorf("leave's Server-Timing %q lacks %s", leave.header.Get("Server-Timing"), name)
			}
		}
		// One uncontended attempt: nothing retried, and its reads and
		// commit are parts of the transaction's time (each rounded to 0.1).
		if _, ok := steps["leave-retried"]; ok {
			t.Errorf("an uncontended leave reports a retried attempt: %q", leave.header.Get("Server-Timing"))
		}
		if parts := steps["leave-begin"] + steps["leave-read"] + steps["leave-commit"]; parts > steps["leave-txn"]+0.3 {
			t.Errorf("leave-begin + leave-read + leave-commit = %.1f ms, more than leave-txn %.1f ms", parts, steps["leave-txn"])
		}
	})
	t.Run("Off", func(t *testing.T) {
		f := MustOpenAPI(t)
		ada := emulatortest.SignUp(t)
		join := f.do(t, "POST", "/v1/rooms/untimed/join", ada.IDToken, `{"sessionId":"tab-1"}`)
		if join.status != 200 || join.header.Get("Server-Timing") != "" {
			t.Fatalf("join: %d, Server-Timing %q, want 200 without the header", join.status, join.header.Get("Server-Timing"))
		}
	})
}
