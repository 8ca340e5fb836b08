package httpapi_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Someone who is not in a room cannot tell from any answer whether the room
// is active, empty (in its grace) or absent: every endpoint answers them
// with the same status, headers and body, byte for byte, for all three.
// Otherwise one request per room id would reveal which rooms exist and
// when someone is in them.
func TestAPI_OutsiderCannotTellRoomsApart(t *testing.T) {
	f := MustOpenAPI(t)
	ada, bob := emulatortest.SignUp(t), emulatortest.SignUp(t)
	// busy: Ada is in it. quiet: Ada was its last participant and left, so
	// it waits out its grace. nowhere: never existed.
	if r := f.do(t, "POST", "/v1/rooms/busy/join", ada.IDToken, `{"sessionId":"tab"}`); r.status != 200 {
		t.Fatalf("join busy: %d %s", r.status, r.raw)
	}
	j := f.do(t, "POST", "/v1/rooms/quiet/join", ada.IDToken, `{"sessionId":"tab"}`)
	if j.status != 200 {
		t.Fatalf("join quiet: %d %s", j.status, j.raw)
	}
	l := f.do(t, "POST", "/v1/rooms/quiet/leave", ada.IDToken, `{"sessionId":"tab","generation":`+jsonInt(int64(j.body["generation"].(float64)))+`}`)
	if l.status != 200 || l.body["cleanupAfter"] == nil {
		t.Fatalf("leave quiet (the room must now be in its grace): %d %s", l.status, l.raw)
	}

	requests := []struct{ method, action, body string }{
		{"GET", "", ""},
		{"GET", "/occupancy", ""}, // none of these rooms opts in
		{"GET", "/participants", ""},
		{"POST", "/heartbeat", `{"sessionId":"tab","generation":1}`},
		{"POST", "/typing", `{"sessionId":"tab","generation":1,"typing":true}`},
		{"POST", "/receipts", `{"lastReadSeq":1}`},
		{"POST", "/leave", `{"sessionId":"tab","generation":1}`},
	}
	for _, req := range requests {
		name := req.method + " " + strings.TrimPrefix(req.action, "/")
		t.Run(strings.ReplaceAll(strings.TrimSpace(name), " ", "_"), func(t *testing.T) {
			answer := func(token, room string) string {
				r := f.do(t, req.method, "/v1/rooms/"+room+req.action, token, req.body)
				if r.status < 400 && req.action != "/leave" {
					t.Fatalf("%s %s as an outsider succeeded: %d %s", name, room, r.status, r.raw)
				}
				return strings.Join([]string{jsonInt(int64(r.status)), r.header.Get("Content-Type"), r.raw}, "\n")
			}
			want := answer(bob.IDToken, "nowhere")
			for _, room := range []string{"busy", "quiet"} {
				if got := answer(bob.IDToken, room); got != want {
					t.Errorf("%s: outsider's answer for %s room differs from an absent room's:\n%s\nvs\n%s", name, room, got, want)
				}
			}
			// Ada left quiet: she is an outsider there now, like Bob.
			if got := answer(ada.IDToken, "quiet"); got != want {
				t.Errorf("%s: former participant's answer differs from an outsider's:\n%s\nvs\n%s", name, got, want)
			}
		})
	}

	t.Run("GET_IsOne404", func(t *testing.T) {
		r := f.do(t, "GET", "/v1/rooms/busy", bob.IDToken, "")
		if r.status != 404 || errCode(r) != "room_not_found" {
			t.Fatalf("outsider's read: %d %s", r.status, r.raw)
		}
		if r := f.do(t, "GET", "/v1/rooms/busy", ada.IDToken, ""); r.status != 200 || len(r.body["participants"].([]any)) != 1 {
			t.Fatalf("participant's read: %d %s", r.status, r.raw)
		}
	})
}
