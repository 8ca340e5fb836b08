package clientintegration_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	firebase "firebase.google.com/go/v4"
	"google.golang.org/api/option"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A bot as a service would run one: its backend mints a custom token with
// the Admin SDK (unsigned, in emulator mode), the client's
// CustomTokenSource exchanges it at the Auth emulator, and the dev server
// accepts the ID token it gets: the bot is on the roster under its uid.
func TestCustomTokenSource_BotJoinsAsItsUser(t *testing.T) {
	base := startDevServer(t)
	ctx := context.Background()
	emulatortest.AuthHost(t)
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: emulatortest.AuthProjectID()}, option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	admin, err := app.Auth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	uid := fmt.Sprintf("recorder-%d", time.Now().UnixNano())
	custom, err := admin.CustomToken(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := client.NewCustomTokenSource("any-key", custom)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := client.New(base, tokens)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bot.JoinRoom(ctx, roomName(t), client.SessionOptions{DisplayName: ptr("Recorder")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.Room(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Participants) != 1 || snap.Participants[0].ParticipantID != uid || snap.Participants[0].DisplayName != "Recorder" {
		t.Fatalf("roster %+v, want the bot alone as %s", snap.Participants, uid)
	}
}
