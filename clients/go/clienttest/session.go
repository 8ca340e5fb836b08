package clienttest

import (
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
)

// WaitDone waits for the session to end, or fails the test.
func WaitDone(tb testing.TB, s *client.Session) {
	tb.Helper()
	select {
	case <-s.Done():
	case <-time.After(20 * time.Second):
		tb.Fatal("the session did not end")
	}
}

// NextEvent returns the next event from events, failing the test when
// none comes within limit.
func NextEvent(tb testing.TB, events <-chan client.Event, limit time.Duration) client.Event {
	tb.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(limit):
		tb.Fatalf("no event within %v", limit)
		return client.Event{}
	}
}
