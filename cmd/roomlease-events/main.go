// Command roomlease-events shows the presence events a deployment
// publishes, as a developer building a consumer wants to see them:
//
//	go run ./cmd/roomlease-events tail
//
// creates a pull subscription of its own on the events topic, prints each
// event's type, subject, id and data as it arrives, and deletes the
// subscription on Ctrl-C. With PUBSUB_EMULATOR_HOST set (scripts/dev sets
// it) it talks to the Pub/Sub emulator; without, to Pub/Sub itself with
// Application Default Credentials. Only events published after it started
// are shown: a new subscription sees nothing older.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "tail" {
		fmt.Fprintln(os.Stderr, "usage: roomlease-events tail [-project P] [-topic T]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("tail", flag.ExitOnError)
	project := fs.String("project", envOr("ROOMLEASE_PROJECT_ID", "demo-roomlease"), "project of the topic (ROOMLEASE_PROJECT_ID)")
	topic := fs.String("topic", envOr("ROOMLEASE_EVENTS_TOPIC", "roomlease-events"), "the events topic id (ROOMLEASE_EVENTS_TOPIC)")
	fs.Parse(os.Args[2:])

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Tail(ctx, TailOptions{Project: *project, Topic: *topic, Out: os.Stdout,
		Ready: func(sub string) {
			fmt.Fprintf(os.Stderr, "roomlease-events: tailing %s through %s (Ctrl-C stops)\n", *topic, sub)
		}})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "roomlease-events:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
