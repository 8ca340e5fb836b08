package main_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/internal/devserver"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The local server, built and run as scripts/dev runs it, serves the
// README's walk-through through the Go client: join, heartbeat, read, leave,
// with a token from the Auth emulator. This is what exercises the root
// package's wiring.
func TestDevServer_Walkthrough(t *testing.T) {
	emulatortest.FirestoreHost(t)
	emulatortest.AuthHost(t)
	base := StartDevServer(t, nil)
	ctx := context.Background()

	user := emulatortest.SignUp(t)
	api := NewClient(t, base, user)
	room := fmt.Sprintf("walkthrough-%d", time.Now().UnixNano())
	ada := "Ada"
	join, err := api.Join(ctx, room, "tab-1", &ada)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Heartbeat(ctx, room, "tab-1", join.Generation, join.Lease()); err != nil {
		t.Fatal(err)
	}
	roster, err := api.Room(ctx, room)
	if err != nil || roster.State != "active" || len(roster.Participants) != 1 || roster.Participants[0].ParticipantID != user.UID {
		t.Fatalf("room read: %+v %v", roster, err)
	}
	removed, err := api.Leave(ctx, room, "tab-1", join.Generation)
	if err != nil || !removed {
		t.Fatalf("leave: removed=%v %v", removed, err)
	}
	if _, err := api.Heartbeat(ctx, room, "tab-1", join.Generation, 0); !errors.Is(err, client.ErrStaleGeneration) {
		t.Fatalf("heartbeat after leave: %v, want 409 stale_generation", err)
	}
}

// With ROOMLEASE_DATABASE the whole server works in that named database,
// as a Terraform deployment does, and says so to clients: GET /v1/config
// and the join reply name it. A roster written anywhere else would leave
// every client that follows the server listening to an empty room.
func TestDevServer_NamedDatabase(t *testing.T) {
	const database = "roomlease-devtest"
	base := StartDevServer(t, []string{"ROOMLEASE_DATABASE=" + database})
	ctx := context.Background()
	user := emulatortest.SignUp(t)
	api := NewClient(t, base, user)

	cfg, err := api.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Database != database || cfg.ProjectID != emulatortest.AuthProjectID() || cfg.LeaseSeconds <= 0 || cfg.HeartbeatSeconds <= 0 {
		t.Fatalf("GET /v1/config: %+v, want database %q of project %q", cfg, database, emulatortest.AuthProjectID())
	}
	room := fmt.Sprintf("named-db-%d", time.Now().UnixNano())
	join, err := api.Join(ctx, room, "tab-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if join.Database != database {
		t.Fatalf("join reply names database %q, want %q", join.Database, database)
	}
	defer api.Leave(ctx, room, "tab-1", join.Generation)

	for db, want := range map[string]bool{database: true, "(default)": false} {
		fs, err := firestore.NewClientWithDatabase(ctx, emulatortest.AuthProjectID(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer fs.Close()
		_, err = fs.Collection("rooms").Doc(room).Collection("participants").Doc(user.UID).Get(ctx)
		if got := err == nil; got != want {
			t.Errorf("roster entry in database %q: found %v (err %v), want %v", db, got, err, want)
		}
	}
}

// A wrong setting stops the server at start-up with a message naming it.
func TestDevServer_RefusesBadSettings(t *testing.T) {
	bin := devserver.Build(t)
	cmd := exec.Command(bin, "-port", "0")
	cmd.Env = append(os.Environ(), "ROOMLEASE_PROJECT_ID=p", "ROOMLEASE_LEASE=3s")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "at least twice the heartbeat") {
		t.Fatalf("exit %v, output %q", err, out)
	}
}

// StartDevServer builds and runs the dev server on a free port with the
// emulators' settings plus extra environment and flags, and returns its
// base URL.
func StartDevServer(tb testing.TB, extraEnv []string, flags ...string) string {
	tb.Helper()
	return devserver.Start(tb, devserver.Build(tb), extraEnv, flags...)
}

// NewClient returns a Go client of the API at base acting as user.
func NewClient(tb testing.TB, base string, user emulatortest.User) *client.Client {
	tb.Helper()
	c, err := client.New(base, client.StaticToken(user.IDToken))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
