package eventsintegration_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/clients/go/eventfold"
	"github.com/roomlease/roomlease/internal/devserver"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// call makes one request to the API as user and decodes the reply.
func call(t *testing.T, base string, user emulatortest.User, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+user.IDToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// must is call that fails t unless the status is want.
func must(t *testing.T, want int, base string, user emulatortest.User, path string, body any) map[string]any {
	t.Helper()
	status, out := call(t, base, user, path, body)
	if status != want {
		t.Fatalf("status %d (%v), want %d", status, out, want)
	}
	return out
}

// The acceptance: joins, a state update, an away toggle, a leave,
// a crash and a teardown driven through the public API arrive at a subscriber of the
// topic as CloudEvents of the right types, reasons, subjects and sequence
// numbers, and heartbeats, typing and a refused request arrive as nothing.
// The teardown's room.closed is the room's last event: once it is in,
// everything published before it is (one ordering key per room), so the
// list is compared whole. How long each took is logged (the latency
// targets are measured by scripts/bench events, not asserted here).
func TestEvents_ThroughTheAPIToASubscriber(t *testing.T) {
	project, topic := emulatortest.AuthProjectID(), fmt.Sprintf("events-%d", time.Now().UnixNano())
	sub := emulatortest.EventTopic(t, project, topic)
	// A database of its own: the other tests' dev servers share the
	// project, and a sweeper of theirs (with no topic) that expired Bob's
	// crashed session would commit his departure with no event.
	base := devserver.Start(t, devserver.Build(t), []string{
		"ROOMLEASE_EVENTS_TOPIC=" + topic, "ROOMLEASE_DATABASE=" + topic,
		"ROOMLEASE_HEARTBEAT_INTERVAL=1s", "ROOMLEASE_LEASE=3s", "ROOMLEASE_EMPTY_ROOM_GRACE=2s",
		"ROOMLEASE_SWEEP_MAX_PAUSE=1s",
	})
	room := fmt.Sprintf("events-%d", time.Now().UnixNano())
	path := "/v1/rooms/" + room + "/"
	alice, bob, carol := emulatortest.SignUp(t), emulatortest.SignUp(t), emulatortest.SignUp(t)

	a := must(t, 200, base, alice, path+"join", map[string]any{"sessionId": "tab"})
	aRef := map[string]any{"sessionId": "tab", "generation": a["generation"]}
	must(t, 200, base, bob, path+"join", map[string]any{"sessionId": "phone"})
	must(t, 200, base, alice, path+"heartbeat", aRef)
	status, _ := call(t, base, alice, path+"typing", map[string]any{"sessionId": "tab", "generation": a["generation"], "typing": true})
	if status != 204 && status != 200 {
		t.Fatalf("typing: %d", status)
	}
	must(t, 200, base, alice, path+"state", map[string]any{"sessionId": "tab", "generation": a["generation"], "state": map[string]any{"mood": "busy"}})
	must(t, 409, base, carol, path+"state", map[string]any{"sessionId": "x", "generation": 1, "state": map[string]any{"mood": "in"}})
	must(t, 200, base, alice, path+"heartbeat", map[string]any{"sessionId": "tab", "generation": a["generation"], "away": true})
	must(t, 200, base, alice, path+"leave", aRef)
	// Bob's phone crashes: no heartbeat, no leave. The sweeper expires
	// him after the lease, and tears the room down after the grace.

	// Only this room's events count (the topic and the database are the
	// test's own, but a subscriber may see anything published to them).
	ours := func(all []emulatortest.Received) []emulatortest.Received {
		var out []emulatortest.Received
		for _, r := range all {
			if r.Attributes["ce-subject"] == "rooms/"+room {
				out = append(out, r)
			}
		}
		return out
	}
	// Every event, once each: the run's seven, room.closed among them. A
	// publication that failed (a timeout on a loaded machine) is the
	// relay's to repeat, after the room's later events, so arrival order
	// is no test of anything and duplicates may come; both are dropped.
	const events = 7
	distinct := func(all []emulatortest.Received) []emulatortest.Received {
		seen := map[string]bool{}
		var out []emulatortest.Received
		for _, r := range ours(all) {
			if id := r.Attributes["ce-id"]; !seen[id] {
				seen[id] = true
				out = append(out, r)
			}
		}
		return out
	}
	got := distinct(sub.WaitUntil(t, "the room's seven events", func(got []emulatortest.Received) bool {
		d := distinct(got)
		return len(d) >= events && slices.ContainsFunc(d, func(r emulatortest.Received) bool { return r.Attributes["ce-type"] == eventfold.TypeClosed })
	}))
	type line struct {
		typ, who, reason, changed string
		seq                       int64
	}
	var lines []line
	var roster eventfold.Roster
	for _, r := range got {
		if !strings.HasPrefix(r.Attributes["ce-source"], "//roomlease/projects/"+project+"/databases/") ||
			r.Attributes["content-type"] != "application/json" || r.OrderingKey != room {
			t.Errorf("attributes %v, ordering key %q", r.Attributes, r.OrderingKey)
		}
		ev, err := eventfold.Decode(r.Attributes, r.Data)
		if err != nil {
			t.Fatal(err)
		}
		roster.Apply(ev)
		who := map[string]string{alice.UID: "alice", bob.UID: "bob", "": ""}[ev.Data.ParticipantID]
		changed := ""
		if len(ev.Data.Changed) > 0 {
			changed = fmt.Sprint(ev.Data.Changed)
		}
		lines = append(lines, line{ev.Type, who, ev.Data.Reason, changed, ev.Data.ParticipantSeq})
		t.Logf("%s %s#%d %s: received %v after it occurred", ev.Type, who, ev.Data.ParticipantSeq, ev.Data.Reason,
			r.At.Sub(ev.Data.OccurredAt).Round(time.Millisecond))
		if ev.Type == eventfold.TypeClosed {
			t.Logf("room.closed %v after the grace ended", r.At.Sub(ev.Data.EmptySince.Add(2*time.Second)).Round(time.Millisecond))
		}
	}
	want := []line{
		{eventfold.TypeJoined, "alice", "", "", 1},
		{eventfold.TypeJoined, "bob", "", "", 1},
		{eventfold.TypeUpdated, "alice", "", "[state]", 2},
		{eventfold.TypeUpdated, "alice", "", "[away]", 3},
		{eventfold.TypeLeft, "alice", "left", "", 4},
		{eventfold.TypeLeft, "bob", "expired", "", 2},
		{eventfold.TypeClosed, "", "", "", 0},
	}
	// In the order of each participant's sequence numbers, the room's
	// close last: what a consumer orders by.
	order := func(l []line) {
		slices.SortStableFunc(l, func(x, y line) int {
			if (x.typ == eventfold.TypeClosed) != (y.typ == eventfold.TypeClosed) {
				if x.typ == eventfold.TypeClosed {
					return 1
				}
				return -1
			}
			return cmp.Or(strings.Compare(x.who, y.who), cmp.Compare(x.seq, y.seq))
		})
	}
	order(lines)
	order(want)
	if !slices.Equal(lines, want) {
		t.Fatalf("events\n got %v\nwant %v", lines, want)
	}
	if !roster.Closed || roster.Members() != nil {
		t.Fatalf("the folded roster: closed %v, members %v", roster.Closed, roster.Members())
	}
}
