package httpapi_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A state Firestore would refuse to store (a key that is empty, reserved
// or on too long a path, at any depth) is the client's mistake: 400
// invalid_argument in the documented shape, nothing written, no ERROR
// logged, whether a state update or a join carries it. Before, Firestore's
// InvalidArgument reached the client as 500 internal, an alert any member
// could raise. A state whose keys reach MaxStateKeyPath is stored, which
// shows that the limit is within what the emulator accepts.
func TestAPI_StateFirestoreWouldRefuse(t *testing.T) {
	var logs bytes.Buffer
	f := mustOpenAPIOptions(t, auth.Options{}, func(o *httpapi.Options) {
		o.Settings.MaxStateBytes = presence.MaxStateBytesLimit
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	ada := emulatortest.SignUp(t)
	j := f.do(t, "POST", "/v1/rooms/keys/join", ada.IDToken, `{"sessionId":"tab","state":{"status":"busy"}}`)
	if j.status != 200 {
		t.Fatalf("join: %d %s", j.status, j.raw)
	}
	gen := jsonInt(int64(j.body["generation"].(float64)))
	long := func(n int) string { return strings.Repeat("k", n) }
	// Two keys on one path: 500 + "." + 523 bytes is MaxStateKeyPath.
	atLimit := `{"` + long(500) + `":{"` + long(presence.MaxStateKeyPath-501) + `":1}}`
	overLimit := `{"` + long(500) + `":{"` + long(presence.MaxStateKeyPath-500) + `":1}}`
	refused := map[string]string{
		"__name__":               `{"__name__":1}`,
		"empty key":              `{"":1}`,
		"reserved key, nested":   `{"a":{"__x__":2}}`,
		"reserved key in array":  `{"a":[{"__x__":2}]}`,
		"empty key in array":     `{"a":[1,{"":2}]}`,
		"four underscores":       `{"____":1}`,
		"a key of 1 501 bytes":   `{"` + long(1501) + `":1}`,
		"a path over the limit":  overLimit,
		"a key over the limit":   `{"` + long(presence.MaxStateKeyPath+1) + `":1}`,
		"reserved with a space":  `{"__ a __":true}`,
		"reserved deep in array": `{"a":[{"b":{"c":[{"__d__":null}]}}]}`,
	}
	before := emulatortest.Snapshot(t, f.client)
	for name, st := range refused {
		for _, call := range []struct{ path, body string }{
			{"/v1/rooms/keys/state", `{"sessionId":"tab","generation":` + gen + `,"state":` + st + `}`},
			{"/v1/rooms/keys/join", `{"sessionId":"tab","state":` + st + `}`},
			{"/v1/rooms/keys/join", `{"sessionId":"tab-2","state":` + st + `}`},
		} {
			r := f.do(t, "POST", call.path, ada.IDToken, call.body)
			if r.status != 400 || errCode(r) != "invalid_argument" {
				t.Errorf("%s through %s: %d %s, want 400 invalid_argument", name, call.path, r.status, r.raw)
			}
		}
	}
	if changed := emulatortest.Changed(before, emulatortest.Snapshot(t, f.client)); len(changed) != 0 {
		t.Fatalf("refused states wrote %v", changed)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("a client's mistake was logged as a server fault:\n%s", logs.String())
	}
	r := f.do(t, "GET", "/v1/rooms/keys", ada.IDToken, "")
	if st := r.body["participants"].([]any)[0].(map[string]any)["state"].(map[string]any); st["status"] != "busy" || len(st) != 1 {
		t.Fatalf("ada's state after the refusals: %v", st)
	}

	// Allowed: underscores that are not __…__, dots and slashes (a map key
	// is a name, not a path), and keys right at the limit.
	for _, st := range []string{`{"__":1,"___":2,"__a":3,"a__":4,"a.b":5,"a/b":6}`, atLimit} {
		r := f.do(t, "POST", "/v1/rooms/keys/state", ada.IDToken, `{"sessionId":"tab","generation":`+gen+`,"state":`+st+`}`)
		if r.status != 200 {
			t.Fatalf("state %.40s…: %d %s", st, r.status, r.raw)
		}
	}
}
