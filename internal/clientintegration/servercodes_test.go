package clientintegration_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/functions/httpapi"
)

// The server's error table (httpapi.ErrorStatuses) is the truth; the
// client, a module of its own, cannot read it. Every code the server can
// send, answered with the status the server sends it with, must decode to
// an *APIError with that status whose sentinel is the one named after the
// code: a code added to the server without a sentinel in the client fails
// here, rather than reaching callers as an unknown error.
func TestAPIError_TheClientKnowsEveryCodeTheServerSends(t *testing.T) {
	server := httpapi.ErrorStatuses()
	if len(server) == 0 {
		t.Fatal("the server's table is empty")
	}
	for code, status := range server {
		t.Run(code, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error":{"code":%q,"message":"m"}}`, code)
			}))
			defer srv.Close()
			c, err := client.New(srv.URL, client.StaticToken("t"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Room(context.Background(), "r")
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != status || apiErr.Code != code {
				t.Fatalf("got %#v, want an *APIError %d %s", err, status, code)
			}
			sentinel := errors.Unwrap(apiErr)
			if sentinel == nil {
				t.Fatalf("the server sends %q (%d), for which the client has no sentinel", code, status)
			}
			if !strings.HasSuffix(sentinel.Error(), ": "+code) {
				t.Fatalf("%q decodes to the sentinel %q, not to its own", code, sentinel)
			}
		})
	}
}
