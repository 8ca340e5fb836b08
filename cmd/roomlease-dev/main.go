// Command roomlease-dev runs roomlease locally, the way Cloud Functions runs
// it: the root package's functions served by the Functions Framework. Point
// it at the emulators with FIRESTORE_EMULATOR_HOST and
// FIREBASE_AUTH_EMULATOR_HOST; scripts/dev does all of that for you.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"

	_ "github.com/roomlease/roomlease" // registers the functions

	"github.com/roomlease/roomlease/functions/config"
)

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.String("port", envOr("ROOMLEASE_API_PORT", "8081"), "port to listen on (ROOMLEASE_API_PORT)")
	flag.Parse()

	// Fail at start-up, not on the first request, when a setting is wrong.
	if _, err := config.FromEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Serve Presence at "/", as its own Cloud Run service would, so that
	// /v1/rooms/... and /healthz resolve exactly as in production.
	if os.Getenv("FUNCTION_TARGET") == "" {
		os.Setenv("FUNCTION_TARGET", "Presence")
	}
	fmt.Printf("roomlease API listening on http://%s:%s\n", *host, *port)
	if err := funcframework.StartHostPort(*host, *port); err != nil {
		fmt.Fprintln(os.Stderr, "roomlease-dev:", err)
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
