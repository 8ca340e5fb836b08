package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Callers that find the token missing while another caller exchanges it
// wait for that exchange and share its token, rather than sending their
// own; a waiting caller whose context ends gives up without waiting on.
func TestCustomTokenSource_ConcurrentCallersShareOneExchange(t *testing.T) {
	var signIns atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := signIns.Add(1)
		if n == 1 {
			close(entered)
			<-release
		}
		fmt.Fprintf(w, `{"idToken":"id-%d","refreshToken":"r","expiresIn":"3600"}`, n)
	}))
	defer srv.Close()
	s, err := NewCustomTokenSource("k", "custom", WithAuthEmulator(strings.TrimPrefix(srv.URL, "http://")))
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{}, 3)
	s.waiting = func() { waiting <- struct{}{} }

	first := make(chan string, 1)
	go func() {
		tok, _ := s.IDToken(context.Background())
		first <- tok
	}()
	<-waiting
	<-entered // the first caller holds the turn, its exchange held by the server

	second := make(chan string, 1)
	go func() {
		tok, _ := s.IDToken(context.Background())
		second <- tok
	}()
	<-waiting // the second caller found no token and waits for its turn

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.IDToken(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a waiting caller whose context ended: %v, want context.Canceled", err)
	}

	close(release)
	if a, b := <-first, <-second; a != "id-1" || b != "id-1" {
		t.Fatalf("tokens %q and %q, want both id-1", a, b)
	}
	if n := signIns.Load(); n != 1 {
		t.Fatalf("%d sign-ins, want 1", n)
	}
}
