package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/clients/go/clienttest"
)

// within runs call and fails the test if it has not returned after limit
// (the goroutine is left behind): without a bound of its own, a call to a
// silent server would hang the test instead of failing it.
func within(t *testing.T, limit time.Duration, call func() error) (error, time.Duration) {
	t.Helper()
	type result struct {
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		err := call()
		done <- result{err, time.Since(start)}
	}()
	select {
	case r := <-done:
		return r.err, r.took
	case <-time.After(limit):
		t.Fatalf("still waiting after %v", limit)
		return nil, 0
	}
}

// A server that never answers costs each call its request timeout and no
// more, whichever call it is, and the error says so.
func TestClient_RequestTimeout(t *testing.T) {
	silent := clienttest.NewSilentServer(t)
	const bound = 300 * time.Millisecond
	ctx := context.Background()

	t.Run("SilentServer", func(t *testing.T) {
		c, err := client.New(silent.URL, client.StaticToken("id"), client.WithRequestTimeout(bound))
		if err != nil {
			t.Fatal(err)
		}
		calls := []struct {
			name string
			call func() error
		}{
			{"Config", func() error { _, err := c.Config(ctx); return err }},
			{"Join", func() error { _, err := c.Join(ctx, "r", "s", nil); return err }},
			{"Heartbeat", func() error { _, err := c.Heartbeat(ctx, "r", "s", 1, 0); return err }},
			{"Leave", func() error { _, err := c.LeaveRoom(ctx, "r", "s", 1); return err }},
			{"Room", func() error { _, err := c.Room(ctx, "r"); return err }},
			{"SetTyping", func() error { return c.SetTyping(ctx, "r", "s", 1, true) }},
			{"MarkRead", func() error { _, err := c.MarkRead(ctx, "r", 1); return err }},
		}
		for _, tc := range calls {
			t.Run(tc.name, func(t *testing.T) {
				before := silent.Requests()
				err, took := within(t, bound+5*time.Second, tc.call)
				if !errors.Is(err, client.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("got %v, want an error matching ErrTimeout and context.DeadlineExceeded", err)
				}
				if took < bound {
					t.Fatalf("failed after %v, before its %v bound: not a timeout", took, bound)
				}
				if got := silent.Requests() - before; got != 1 {
					t.Fatalf("%d requests reached the server, want 1", got)
				}
			})
		}
	})

	t.Run("TokenThatNeverComes", func(t *testing.T) {
		c, _ := client.New(silent.URL, stuckTokens{}, client.WithRequestTimeout(bound))
		before := silent.Requests()
		err, _ := within(t, bound+5*time.Second, func() error { _, err := c.Room(ctx, "r"); return err })
		if !errors.Is(err, client.ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		if silent.Requests() != before {
			t.Fatal("a request went out without its token")
		}
	})

	// The caller's own deadline is the caller's business: it is not
	// reported as the client's timeout.
	t.Run("CallersDeadlineIsNotErrTimeout", func(t *testing.T) {
		c, _ := client.New(silent.URL, client.StaticToken("id"), client.WithRequestTimeout(time.Minute))
		short, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		err, _ := within(t, bound+5*time.Second, func() error { _, err := c.Room(short, "r"); return err })
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrTimeout) {
			t.Fatalf("got %v, want context.DeadlineExceeded and not ErrTimeout", err)
		}
	})

	t.Run("ErrNegative", func(t *testing.T) {
		if _, err := client.New(silent.URL, client.StaticToken("id"), client.WithRequestTimeout(-time.Second)); err == nil {
			t.Fatal("a negative request timeout was accepted")
		}
	})
}

// stuckTokens is a token source whose refresh never returns, not even
// when its context ends.
type stuckTokens struct{}

func (stuckTokens) IDToken(context.Context) (string, error) { select {} }
