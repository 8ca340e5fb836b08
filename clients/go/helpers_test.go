package client_test

import (
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
)

// waitDone waits for the session to end, or fails the test.
func waitDone(t *testing.T, s *client.Session) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end")
	}
}

func nextEvent(t *testing.T, events <-chan client.Event, limit time.Duration) client.Event {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(limit):
		t.Fatalf("no event within %v", limit)
		return client.Event{}
	}
}
