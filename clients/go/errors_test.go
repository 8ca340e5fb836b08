package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	client "github.com/roomlease/roomlease/clients/go"
)

var table = []struct {
	status   int
	code     string
	sentinel error
}{
	{400, "invalid_argument", client.ErrInvalidArgument},
	{401, "unauthenticated", client.ErrUnauthenticated},
	{403, "permission_denied", client.ErrPermissionDenied},
	{404, "room_not_found", client.ErrRoomNotFound},
	{404, "not_found", client.ErrNotFound},
	{405, "method_not_allowed", client.ErrMethodNotAllowed},
	{409, "stale_generation", client.ErrStaleGeneration},
	{409, "room_full", client.ErrRoomFull},
	{413, "payload_too_large", client.ErrPayloadTooLarge},
	{415, "unsupported_media_type", client.ErrUnsupportedMediaType},
	{503, "unavailable", client.ErrUnavailable},
	{500, "internal", client.ErrInternal},
	{401, "app_check_failed", client.ErrAppCheckFailed},
	{426, "client_too_old", client.ErrClientTooOld},
	{429, "rate_limited", client.ErrRateLimited},
	{409, "too_many_sessions", client.ErrTooManySessions},
	{409, "too_many_rooms", client.ErrTooManyRooms},
}

// Every code of the README's error table decodes to its sentinel, and to no
// other. (The codes a well-formed client cannot provoke from the real
// server come from a stub here; the others from the server below.)
func TestAPIError_EveryCodeHasItsSentinel(t *testing.T) {
	for _, tc := range table {
		t.Run(tc.code, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, `{"error":{"code":%q,"message":"m"}}`, tc.code)
			}))
			defer srv.Close()
			c, err := client.New(srv.URL, client.StaticToken("t"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Room(context.Background(), "r")
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tc.status || apiErr.Code != tc.code {
				t.Fatalf("got %#v", err)
			}
			for _, other := range table {
				if got := errors.Is(err, other.sentinel); got != (other.code == tc.code) {
					t.Errorf("errors.Is(%s, %v) = %v", tc.code, other.sentinel, got)
				}
			}
		})
	}
	t.Run("a proxy's page keeps its status's code", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "<html>bad gateway</html>", http.StatusServiceUnavailable)
		}))
		defer srv.Close()
		c, _ := client.New(srv.URL, client.StaticToken("t"))
		if _, err := c.Room(context.Background(), "r"); !errors.Is(err, client.ErrUnavailable) {
			t.Fatalf("got %v", err)
		}
	})
}
