package presence_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/testclock"
)

func TestParseState(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		want     presence.State
		wantCode string
	}{
		{"an object", `{"status":"busy","colour":"#c33"}`, presence.State{"status": "busy", "colour": "#c33"}, ""},
		{"the empty object", `{}`, presence.State{}, ""},
		{"whole numbers are integers, others floats", `{"n":3,"x":1.5,"big":1e300}`, presence.State{"n": int64(3), "x": 1.5, "big": 1e300}, ""},
		{"nested objects and arrays", `{"a":{"b":[1,"two",{"c":null}]}}`,
			presence.State{"a": map[string]any{"b": []any{int64(1), "two", map[string]any{"c": nil}}}}, ""},
		{"not an object", `[1,2]`, nil, presence.EInvalid},
		{"null", `null`, nil, presence.EInvalid},
		{"a repeated key", `{"a":1,"a":2}`, nil, presence.EInvalid},
		{"a repeated key deep inside", `{"a":{"b":1,"b":2}}`, nil, presence.EInvalid},
		{"an array inside an array", `{"a":[[1]]}`, nil, presence.EInvalid},
		{"too deep", `{"a":` + strings.Repeat(`{"a":`, presence.MaxStateDepth) + `1` + strings.Repeat(`}`, presence.MaxStateDepth) + `}`, nil, presence.EInvalid},
		{"two values", `{} {}`, nil, presence.EInvalid},
		{"over the size", `{"a":"` + strings.Repeat("x", 100) + `"}`, nil, presence.ETooLarge},
		{"broken JSON", `{"a":`, nil, presence.EInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := presence.ParseState([]byte(tc.raw), 64)
			if tc.wantCode != "" {
				if presence.ErrorCode(err) != tc.wantCode {
					t.Fatalf("err %v, want %s", err, tc.wantCode)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

// Keys Firestore refuses in a map are refused at any depth, inside arrays
// too; keys that only look alike are kept.
func TestParseState_Keys(t *testing.T) {
	long := func(n int) string { return strings.Repeat("k", n) }
	tests := []struct {
		name, raw string
		ok        bool
	}{
		{"an empty key", `{"":1}`, false},
		{"__name__", `{"__name__":1}`, false},
		{"a reserved key nested", `{"a":{"__x__":2}}`, false},
		{"a reserved key in an array", `{"a":[{"__x__":2}]}`, false},
		{"an empty key in an array", `{"a":[1,{"":2}]}`, false},
		{"four underscores", `{"____":1}`, false},
		{"two and three underscores", `{"__":1,"___":2}`, true},
		{"underscores at one end only", `{"__a":1,"a__":2,"_a_":3}`, true},
		{"dots and slashes", `{"a.b":1,"a/b":2,"*":3}`, true},
		{"a key at the path limit", `{"` + long(presence.MaxStateKeyPath) + `":1}`, true},
		{"a key over it", `{"` + long(presence.MaxStateKeyPath+1) + `":1}`, false},
		{"a path at the limit", `{"a":{"` + long(presence.MaxStateKeyPath-2) + `":1}}`, true},
		{"a path over it", `{"a":{"` + long(presence.MaxStateKeyPath-1) + `":1}}`, false},
		{"arrays add nothing to the path", `{"a":[{"` + long(presence.MaxStateKeyPath-2) + `":1}]}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := presence.ParseState([]byte(tc.raw), presence.MaxStateBytesLimit)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && presence.ErrorCode(err) != presence.EInvalid {
				t.Fatalf("err %v, want invalid_argument", err)
			}
		})
	}
}

func TestPlanState(t *testing.T) {
	s := presence.DefaultSettings()
	now := testclock.Start
	live := &presence.Session{ID: "tab", Generation: 7, LeaseExpiresAt: now.Add(time.Second)}
	ended := &presence.Session{ID: "tab", Generation: 7, LeaseExpiresAt: now}
	entry := &presence.Participant{ID: "alice", State: presence.State{"status": "busy"}, SessionCount: 1}
	req := func(gen int64, st presence.State) presence.StateRequest {
		return presence.StateRequest{SessionRef: presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "r", ParticipantID: "alice", SessionID: "tab"}, Generation: gen}, State: st}
	}
	tests := []struct {
		name      string
		stored    *presence.Session
		entry     *presence.Participant
		req       presence.StateRequest
		wantWrite bool
		wantCode  string
	}{
		{"a new state is written", live, entry, req(7, presence.State{"status": "away"}), true, ""},
		{"the same state writes nothing", live, entry, req(7, presence.State{"status": "busy"}), false, ""},
		{"an entry without state takes {} as equal", live, &presence.Participant{ID: "alice"}, req(7, presence.State{}), false, ""},
		{"a stale generation is refused", live, entry, req(6, presence.State{"status": "away"}), false, presence.EStaleGeneration},
		{"an ended lease is refused", ended, entry, req(7, presence.State{"status": "away"}), false, presence.EStaleGeneration},
		{"a session gone is refused", nil, entry, req(7, presence.State{"status": "away"}), false, presence.EStaleGeneration},
		{"an entry gone is refused", live, nil, req(7, presence.State{"status": "away"}), false, presence.EStaleGeneration},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, write, err := s.PlanState(now, tc.stored, tc.entry, tc.req)
			if presence.ErrorCode(err) != tc.wantCode && !(err == nil && tc.wantCode == "") {
				t.Fatalf("err %v, want %q", err, tc.wantCode)
			}
			if write != tc.wantWrite {
				t.Fatalf("write %v, want %v", write, tc.wantWrite)
			}
			if write && !got.State.Equal(tc.req.State) {
				t.Fatalf("planned state %v, want %v", got.State, tc.req.State)
			}
		})
	}
}
