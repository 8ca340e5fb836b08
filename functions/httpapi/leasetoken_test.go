package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The join, every heartbeat and a typing signal that sent a token answer
// renewAt and a leaseToken; a request with a token the server cannot use
// is answered as one without (docs/api.md, "Heartbeats").
func TestAPI_RenewAtAndLeaseTokens(t *testing.T) {
	f := mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) {
		signer, err := leasetoken.NewSigner([]byte(strings.Repeat("k", 32)))
		if err != nil {
			t.Fatal(err)
		}
		o.Store.(*firestoredb.Store).UseLeaseTokens(signer)
	})
	ada := emulatortest.SignUp(t)
	join := f.do(t, "POST", "/v1/rooms/tok/join", ada.IDToken, `{"sessionId":"tab"}`)
	if join.status != 200 {
		t.Fatalf("join: %d %s", join.status, join.raw)
	}
	answer := func(r response) (string, time.Time, time.Time) {
		t.Helper()
		end, err1 := time.Parse(time.RFC3339, r.body["leaseExpiresAt"].(string))
		at, err2 := time.Parse(time.RFC3339, r.body["renewAt"].(string))
		token, _ := r.body["leaseToken"].(string)
		if err1 != nil || err2 != nil || token == "" {
			t.Fatalf("no lease answer in %s", r.raw)
		}
		if left := end.Sub(at); left != 5*time.Second {
			t.Fatalf("renewAt is %v before the lease end, want 5s: %s", left, r.raw)
		}
		return token, end, at
	}
	token, _, _ := answer(join)
	gen := jsonInt(int64(join.body["generation"].(float64)))
	for name, sent := range map[string]string{"Token": token, "Garbage": "garbage", "None": ""} {
		t.Run(name, func(t *testing.T) {
			hb := f.do(t, "POST", "/v1/rooms/tok/heartbeat", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"leaseToken":"`+sent+`"}`)
			if hb.status != 200 {
				t.Fatalf("heartbeat: %d %s", hb.status, hb.raw)
			}
			answer(hb)
		})
	}
	t.Run("TypingWithAToken", func(t *testing.T) {
		r := f.do(t, "POST", "/v1/rooms/tok/typing", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"typing":true,"leaseToken":"`+token+`"}`)
		if r.status != 200 {
			t.Fatalf("typing: %d %s", r.status, r.raw)
		}
		answer(r)
	})
	t.Run("TypingWithoutAToken", func(t *testing.T) {
		if r := f.do(t, "POST", "/v1/rooms/tok/typing", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"typing":false}`); r.status != 204 {
			t.Fatalf("typing: %d %s", r.status, r.raw)
		}
	})
	t.Run("StaleGenerationWithAToken", func(t *testing.T) {
		hb := f.do(t, "POST", "/v1/rooms/tok/heartbeat", ada.IDToken, `{"sessionId":"tab","generation":1,"leaseToken":"`+token+`"}`)
		if hb.status != 409 || errCode(hb) != "stale_generation" {
			t.Fatalf("stale heartbeat: %d %s", hb.status, hb.raw)
		}
	})
}
