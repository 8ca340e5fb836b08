package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

const budgetBurst = 5

// budgetAPI is the API with a state budget of budgetBurst changes and then
// practically none (one per 1 000 s), and lease tokens on.
func budgetAPI(t *testing.T) *apiFixture {
	t.Helper()
	lim, err := ratelimit.New(ratelimit.Config{Rate: 0.001, Burst: budgetBurst, MaxKeys: 10}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) {
		o.StateRateLimiter = lim
		signer, err := leasetoken.NewSigner([]byte(strings.Repeat("k", 32)))
		if err != nil {
			t.Fatal(err)
		}
		o.Store.(*firestoredb.Store).UseLeaseTokens(signer)
	})
}

func (f *apiFixture) revision(t *testing.T, room, token string) int64 {
	t.Helper()
	r := f.do(t, "GET", "/v1/rooms/"+room, token, "")
	if r.status != 200 {
		t.Fatalf("GET room: %d %s", r.status, r.raw)
	}
	return int64(r.body["revision"].(float64))
}

// The state budget (ROOMLEASE_STATE_RATE_LIMIT) bounds every visible change
// a user makes at will, whichever request carries it: 12 rapid re-joins of
// one session, each with a new state or name, and 12 rapid alternating
// away heartbeats each move the revision at most burst + 1 times. None of
// them is refused, since each holds a live lease: a join over the budget
// joins and keeps the stored state and name (held, with
// retryAfterSeconds); a heartbeat renews in the mode in force and says
// which. Before, each of the 12 moved the revision.
func TestAPI_StateBudgetBoundsEveryChosenChange(t *testing.T) {
	t.Run("RejoinsWithNewState", func(t *testing.T) {
		f := budgetAPI(t)
		ada := emulatortest.SignUp(t)
		if r := f.do(t, "POST", "/v1/rooms/bud/join", ada.IDToken, `{"sessionId":"tab","state":{"n":0}}`); r.status != 200 {
			t.Fatalf("join: %d %s", r.status, r.raw)
		}
		before := f.revision(t, "bud", ada.IDToken)
		held, gen := 0, ""
		for i := 1; i <= 12; i++ {
			r := f.do(t, "POST", "/v1/rooms/bud/join", ada.IDToken, fmt.Sprintf(`{"sessionId":"tab","state":{"n":%d}}`, i))
			if r.status != 200 {
				t.Fatalf("re-join %d: %d %s, want 200: a join is never refused for its state", i, r.status, r.raw)
			}
			if r.body["held"] == true {
				held++
				if secs, _ := r.body["retryAfterSeconds"].(float64); secs < 1 {
					t.Fatalf("a held join without retryAfterSeconds: %s", r.raw)
				}
			}
			gen = jsonInt(int64(r.body["generation"].(float64)))
		}
		moved := f.revision(t, "bud", ada.IDToken) - before
		if moved > budgetBurst+1 || held == 0 || moved != int64(12-held) {
			t.Fatalf("12 re-joins with new state moved the revision %d times (%d held); want at most %d", moved, held, budgetBurst+1)
		}
		r := f.do(t, "GET", "/v1/rooms/bud", ada.IDToken, "")
		if st := r.body["participants"].([]any)[0].(map[string]any)["state"].(map[string]any); st["n"] != float64(budgetBurst) {
			t.Fatalf("the roster shows state %v; want the last one applied, n=%d", st, budgetBurst)
		}
		// The held joins joined: the newest generation heartbeats.
		if hb := f.do(t, "POST", "/v1/rooms/bud/heartbeat", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`}`); hb.status != 200 {
			t.Fatalf("heartbeat of the last (held) join's generation: %d %s", hb.status, hb.raw)
		}
		// The same budget: a state update is refused and writes nothing.
		snap := emulatortest.Snapshot(t, f.client)
		st := f.do(t, "POST", "/v1/rooms/bud/state", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"state":{"n":99}}`)
		if st.status != 429 || st.header.Get("Retry-After") == "" {
			t.Fatalf("a state update over the budget: %d %s", st.status, st.raw)
		}
		if changed := emulatortest.Changed(snap, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
			t.Fatalf("the refused state update wrote %v", changed)
		}
	})
	t.Run("RejoinsWithNewNames", func(t *testing.T) {
		f := budgetAPI(t)
		ada := emulatortest.SignUp(t) // anonymous: the client's name is shown
		if r := f.do(t, "POST", "/v1/rooms/bud/join", ada.IDToken, `{"sessionId":"tab","displayName":"n0"}`); r.status != 200 {
			t.Fatalf("join: %d %s", r.status, r.raw)
		}
		before := f.revision(t, "bud", ada.IDToken)
		for i := 1; i <= 12; i++ {
			if r := f.do(t, "POST", "/v1/rooms/bud/join", ada.IDToken, fmt.Sprintf(`{"sessionId":"tab","displayName":"n%d"}`, i)); r.status != 200 {
				t.Fatalf("re-join %d: %d %s", i, r.status, r.raw)
			}
		}
		if moved := f.revision(t, "bud", ada.IDToken) - before; moved > budgetBurst+1 {
			t.Fatalf("12 renames moved the revision %d times; want at most %d", moved, budgetBurst+1)
		}
	})
	t.Run("AlternatingAwayHeartbeats", func(t *testing.T) {
		f := budgetAPI(t)
		ada := emulatortest.SignUp(t)
		j := f.do(t, "POST", "/v1/rooms/bud/join", ada.IDToken, `{"sessionId":"tab"}`)
		if j.status != 200 {
			t.Fatalf("join: %d %s", j.status, j.raw)
		}
		gen, token := jsonInt(int64(j.body["generation"].(float64))), j.body["leaseToken"].(string)
		before := f.revision(t, "bud", ada.IDToken)
		held := 0
		for i := 1; i <= 12; i++ {
			asked := i%2 == 1
			hb := f.do(t, "POST", "/v1/rooms/bud/heartbeat", ada.IDToken,
				fmt.Sprintf(`{"sessionId":"tab","generation":%s,"away":%v,"leaseToken":%q}`, gen, asked, token))
			if hb.status != 200 {
				t.Fatalf("away heartbeat %d: %d %s, want 200: a heartbeat is never refused for its flag", i, hb.status, hb.raw)
			}
			inForce := hb.body["away"].(bool)
			if inForce != asked {
				held++
			}
			// The reply describes the mode in force: its lease and interval.
			wantLease := 15.0
			if inForce {
				wantLease = 120
			}
			if hb.body["leaseSeconds"] != wantLease {
				t.Fatalf("heartbeat %d answers away=%v with leaseSeconds %v", i, inForce, hb.body["leaseSeconds"])
			}
			token = hb.body["leaseToken"].(string)
		}
		moved := f.revision(t, "bud", ada.IDToken) - before
		if moved > budgetBurst+1 || held == 0 {
			t.Fatalf("12 alternating away heartbeats moved the revision %d times (%d held); want at most %d", moved, held, budgetBurst+1)
		}
		r := f.do(t, "GET", "/v1/rooms/bud", ada.IDToken, "")
		if len(r.body["participants"].([]any)) != 1 {
			t.Fatalf("ada is not listed after her heartbeats: %s", r.raw)
		}
	})
}
