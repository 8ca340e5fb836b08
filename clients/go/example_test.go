package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"

	client "github.com/roomlease/roomlease/clients/go"
)

// A bot that takes part in a room until it is interrupted: it joins, keeps
// its lease with the session's heartbeats (rejoining by itself after a
// 409), reads the roster, and when the interrupt cancels the session's
// context, the session leaves the room and ends. idToken is a Firebase ID
// token of the bot's user; in production, pass a token source that
// refreshes it (see NewCustomTokenSource).
func ExampleClient_JoinRoom() {
	var idToken string // from Firebase Auth, or the Auth emulator
	c, err := client.New("http://127.0.0.1:8081", client.StaticToken(idToken))
	if err != nil {
		log.Fatal(err)
	}
	// The session lives as long as ctx: every heartbeat runs on it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	name := "recorder"
	s, err := c.JoinRoom(ctx, "standup", client.SessionOptions{
		DisplayName: &name,
		OnEvent: func(e client.Event) {
			if e.Kind == client.Rejoined {
				log.Printf("lease lost and rejoined with generation %d", e.Generation)
			}
		},
	})
	switch {
	case errors.Is(err, client.ErrRoomFull):
		log.Fatal("the room is full")
	case errors.Is(err, client.ErrPermissionDenied):
		log.Fatal("the room does not admit this bot")
	case err != nil:
		log.Fatal(err)
	}
	snap, err := s.Room(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("revision %d, %d here\n", snap.Revision, len(snap.Participants))
	// Interrupted: the session has left the room, and says why it ended
	// (context.Canceled).
	<-s.Done()
	log.Printf("session ended: %v", s.Err())
}

// A bot that is a Firebase user of its own: its backend mints a custom
// token for the bot's uid (with the Admin SDK's CustomToken), and the
// source exchanges it for ID tokens, refreshed before they expire, for as
// long as the bot runs.
func ExampleNewCustomTokenSource() {
	var webAPIKey, customToken string // the project's Web API key; from the bot's backend
	tokens, err := client.NewCustomTokenSource(webAPIKey, customToken)
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New("https://presence.example.com", tokens)
	if err != nil {
		log.Fatal(err)
	}
	snap, err := c.Room(context.Background(), "standup")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("revision %d\n", snap.Revision)
}
