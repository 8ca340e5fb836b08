package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/client"
	"github.com/roomlease/roomlease/internal/emulatortest"
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

// The codes a client meets in practice, provoked from the real server.
func TestAPIError_FromTheServer(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	room := roomName(t)
	ada, _ := newClient(t, base)
	grace, _ := newClient(t, base)
	if _, err := ada.Join(ctx, room, "tab", ptr("Ada")); err != nil {
		t.Fatal(err)
	}
	forged, _ := client.New(base, client.StaticToken("not-a-token"))

	// A room that admits one participant, as an operator would configure it.
	full := roomName(t) + "-full"
	fs, err := firestore.NewClient(ctx, emulatortest.AuthProjectID())
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if _, err := fs.Doc("roomPolicies/"+full).Set(ctx, map[string]any{"maxParticipants": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := ada.Join(ctx, full, "tab", nil); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"a bad session id", func() error { _, err := ada.Join(ctx, room, "__bad__", nil); return err }, client.ErrInvalidArgument},
		{"a forged token", func() error { _, err := forged.Room(ctx, room); return err }, client.ErrUnauthenticated},
		// One answer whether the room exists or not: an outsider cannot tell.
		{"reading a room one is not in", func() error { _, err := grace.Room(ctx, room); return err }, client.ErrRoomNotFound},
		{"reading a room that does not exist", func() error { _, err := ada.Room(ctx, room+"-none"); return err }, client.ErrRoomNotFound},
		{"a heartbeat of a generation never issued", func() error { _, err := ada.Heartbeat(ctx, room, "tab", 1, 0); return err }, client.ErrStaleGeneration},
		{"joining a full room", func() error { _, err := grace.Join(ctx, full, "tab", nil); return err }, client.ErrRoomFull},
		{"a receipt from someone not on the roster", func() error { _, err := grace.MarkRead(ctx, room, 1); return err }, client.ErrPermissionDenied},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// The per-user caps, provoked from the real server with its default caps:
// an 11th live session in one room, a 21st room.
func TestAPIError_PerUserCapsFromTheServer(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	room := roomName(t)
	mallory, _ := newClient(t, base)
	for i := range 10 {
		if _, err := mallory.Join(ctx, room, fmt.Sprintf("tab-%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mallory.Join(ctx, room, "tab-10", nil); !errors.Is(err, client.ErrTooManySessions) {
		t.Fatalf("an 11th session: got %v, want %v", err, client.ErrTooManySessions)
	}
	for i := 1; i < 20; i++ {
		if _, err := mallory.Join(ctx, fmt.Sprintf("%s-%d", room, i), "tab", nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mallory.Join(ctx, room+"-20", "tab", nil); !errors.Is(err, client.ErrTooManyRooms) {
		t.Fatalf("a 21st room: got %v, want %v", err, client.ErrTooManyRooms)
	}
}
