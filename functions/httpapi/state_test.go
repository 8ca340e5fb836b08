package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// State through the API: a join may carry it, POST .../state replaces it,
// other participants read it on the roster; an oversized state is 413 and
// writes nothing, a stale generation 409, and updates beyond the user's
// state budget 429.
func TestAPI_State(t *testing.T) {
	lim, err := ratelimit.New(ratelimit.Config{Rate: 0.001, Burst: 2, MaxKeys: 10}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	f := mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) { o.StateRateLimiter = lim })
	ada, grace := emulatortest.SignUp(t), emulatortest.SignUp(t)
	j := f.do(t, "POST", "/v1/rooms/st/join", ada.IDToken, `{"sessionId":"tab","state":{"status":"busy"}}`)
	if j.status != 200 {
		t.Fatalf("join with state: %d %s", j.status, j.raw)
	}
	gen := jsonInt(int64(j.body["generation"].(float64)))
	if r := f.do(t, "POST", "/v1/rooms/st/join", grace.IDToken, `{"sessionId":"tab"}`); r.status != 200 {
		t.Fatalf("grace's join: %d", r.status)
	}
	stateOn := func(uid string) any {
		r := f.do(t, "GET", "/v1/rooms/st", grace.IDToken, "")
		for _, p := range r.body["participants"].([]any) {
			if p := p.(map[string]any); p["participantId"] == uid {
				return p["state"]
			}
		}
		t.Fatalf("%s is not on the roster: %s", uid, r.raw)
		return nil
	}
	if got, _ := stateOn(ada.UID).(map[string]any); got["status"] != "busy" {
		t.Fatalf("ada's state after her join: %v", got)
	}
	if got, ok := stateOn(grace.UID).(map[string]any); !ok || len(got) != 0 {
		t.Fatalf("grace, who set none, shows %v; want {}", stateOn(grace.UID))
	}

	r := f.do(t, "POST", "/v1/rooms/st/state", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"state":{"status":"away","colour":"#c33"}}`)
	if r.status != 200 || r.body["state"].(map[string]any)["colour"] != "#c33" || r.body["revision"] == nil {
		t.Fatalf("state update: %d %s", r.status, r.raw)
	}
	if got, _ := stateOn(ada.UID).(map[string]any); got["status"] != "away" {
		t.Fatalf("grace reads ada's state %v", got)
	}

	before := emulatortest.Snapshot(t, f.client)
	big := `{"sessionId":"tab","generation":` + gen + `,"state":{"note":"` + strings.Repeat("x", 2048) + `"}}`
	if r := f.do(t, "POST", "/v1/rooms/st/state", ada.IDToken, big); r.status != 413 || errCode(r) != "payload_too_large" {
		t.Fatalf("2 KiB of state: %d %s", r.status, r.raw)
	}
	if r := f.do(t, "POST", "/v1/rooms/st/state", ada.IDToken, `{"sessionId":"tab","generation":1,"state":{}}`); r.status != 409 {
		t.Fatalf("a stale generation: %d %s", r.status, r.raw)
	}
	if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("refused state updates wrote %v", changed)
	}
	// The burst of 2 is spent (the update and the stale one; the oversized
	// state was refused before it counted): the next update waits.
	r = f.do(t, "POST", "/v1/rooms/st/state", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"state":{"n":1}}`)
	if r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("a state update over the budget: %d %s", r.status, r.raw)
	}
}
