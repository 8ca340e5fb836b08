package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The per-user caps reach a client as 409 in the documented error shape,
// through the real store and real tokens.
func TestAPI_PerUserCapsAre409(t *testing.T) {
	f := MustOpenAPI(t)
	mallory := emulatortest.SignUp(t)
	join := func(room, session string) response {
		return f.do(t, "POST", "/v1/rooms/"+room+"/join", mallory.IDToken, fmt.Sprintf(`{"sessionId":%q}`, session))
	}
	wantRefusal := func(t *testing.T, r response, code string) {
		t.Helper()
		e, _ := r.body["error"].(map[string]any)
		if r.status != 409 || len(r.body) != 1 || len(e) != 2 || e["code"] != code || e["message"] == "" {
			t.Fatalf("got %d %s, want 409 {\"error\":{\"code\":%q,\"message\":...}}", r.status, r.raw, code)
		}
	}

	t.Run("too_many_sessions", func(t *testing.T) {
		for i := range 10 {
			if r := join("tabs", fmt.Sprintf("s%d", i)); r.status != 200 {
				t.Fatalf("join %d: %d %s", i, r.status, r.raw)
			}
		}
		wantRefusal(t, join("tabs", "s10"), "too_many_sessions")
	})
	t.Run("too_many_rooms", func(t *testing.T) {
		for i := 1; i < 20; i++ { // "tabs" is the first room
			if r := join(fmt.Sprintf("room%02d", i), "s"); r.status != 200 {
				t.Fatalf("join room %d: %d %s", i, r.status, r.raw)
			}
		}
		wantRefusal(t, join("room20", "s"), "too_many_rooms")
	})
}
