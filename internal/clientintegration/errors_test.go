package clientintegration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/firestore"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

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
// an 11th live session in one room, a 21st room. Those are 31 joins, one
// more than the default per-user burst (30 at 5 a second): on a fast
// machine the last one would meet the rate limit before the cap, so the
// burst is raised for this server.
func TestAPIError_PerUserCapsFromTheServer(t *testing.T) {
	base := startDevServer(t, "ROOMLEASE_RATE_BURST=100")
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
