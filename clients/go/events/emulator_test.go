package events_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/roomlease/roomlease/clients/go/events"
)

// emulatorCall sends one REST call to the Pub/Sub emulator.
func emulatorCall(t *testing.T, method, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, "http://"+os.Getenv("PUBSUB_EMULATOR_HOST")+"/v1/"+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
}

// The real push format: the Pub/Sub emulator pushes a published event to
// Handler, which decodes it; a failure is delivered again, and the event
// reaches the function once it succeeds. (The emulator sends no OIDC
// token, so no Verifier here; TestHandler covers that.)
func TestHandler_PushFromTheEmulator(t *testing.T) {
	if os.Getenv("PUBSUB_EMULATOR_HOST") == "" {
		t.Skip("PUBSUB_EMULATOR_HOST is not set: scripts/test starts the Pub/Sub emulator")
	}
	got := make(chan events.Event, 10)
	failures := 1
	srv := httptest.NewServer(events.Handler(events.HandlerOptions{Logger: log.New(io.Discard, "", 0),
		Handle: func(_ context.Context, ev events.Event) error {
			if failures > 0 {
				failures--
				return fmt.Errorf("not yet")
			}
			got <- ev
			return nil
		}}))
	defer srv.Close()

	project := "demo-events-push"
	topic := fmt.Sprintf("projects/%s/topics/events-%d", project, time.Now().UnixNano())
	sub := fmt.Sprintf("projects/%s/subscriptions/push-%d", project, time.Now().UnixNano())
	emulatorCall(t, "PUT", topic, map[string]any{})
	defer emulatorCall(t, "DELETE", topic, nil)
	emulatorCall(t, "PUT", sub, map[string]any{"topic": topic, "pushConfig": map[string]any{"pushEndpoint": srv.URL + "/"}})
	defer emulatorCall(t, "DELETE", sub, nil)
	emulatorCall(t, "POST", topic+":publish", map[string]any{"messages": []map[string]any{{
		"data": base64.StdEncoding.EncodeToString([]byte(leftData)), "orderingKey": "standup",
		"attributes": eventAttrs("0123456789abcdef0123456789abcdef", events.TypeParticipantLeft)}}})

	select {
	case ev := <-got:
		d, err := ev.Decode()
		if ev.ID != "0123456789abcdef0123456789abcdef" || ev.Type != events.TypeParticipantLeft || err != nil || d.ParticipantID != "uid-1" {
			t.Fatalf("pushed event %+v, data %+v, %v", ev, d, err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the emulator never delivered the event successfully")
	}
}
