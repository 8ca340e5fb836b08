// Command roomlease-dev runs roomlease locally, the way Cloud Functions and
// Cloud Scheduler run it: the root package's Presence function served by the
// Functions Framework, the sweeper running back to back as the scheduled Sweep
// runs would, and optionally the demo page. Point it at the emulators with
// FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST; scripts/dev does
// all of that for you.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"

	_ "github.com/roomlease/roomlease" // registers the functions

	"github.com/roomlease/roomlease/functions/app"
	"github.com/roomlease/roomlease/functions/config"
	"github.com/roomlease/roomlease/functions/logging"
)

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.String("port", envOr("ROOMLEASE_API_PORT", "8081"), "API port (ROOMLEASE_API_PORT)")
	webDir := flag.String("web", "", "serve this directory as the demo page (with /config.json)")
	webPort := flag.String("web-port", envOr("ROOMLEASE_WEB_PORT", "8082"), "demo page port (ROOMLEASE_WEB_PORT)")
	sweeping := flag.Bool("sweep", true, "run the sweeper in this process, as Cloud Scheduler would run Sweep")
	flag.Parse()

	// Locally, renewals are fenced by lease tokens as a deployment with a
	// key fences them, so that the demo and every test against this server
	// exercise that path. Without a key in the environment, each start
	// draws a random one: a key written in the repository would let anyone
	// forge tokens for their own sessions (claim a lease end or mode of
	// their choosing) wherever this server runs, and nothing stops it from
	// being pointed at a real project. Tokens then last as long as the
	// process; after a restart, each client's next heartbeat takes the
	// read path once, as after a deployment's key rotation. Set in the
	// environment, where the functions (function.go) read their
	// configuration.
	if os.Getenv(config.EnvLeaseTokenKey) == "" {
		key, err := randomLeaseTokenKey()
		if err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-dev:", err)
			os.Exit(1)
		}
		os.Setenv(config.EnvLeaseTokenKey, key)
	}
	// Fail at start-up, not on the first request, when a setting is wrong.
	cfg, err := config.FromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	log := logging.New(os.Stderr, cfg.LogLevel)
	for _, w := range cfg.Warnings {
		log.Warn("roomlease configuration", "warning", w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *sweeping {
		a, err := app.New(ctx, cfg, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-dev:", err)
			os.Exit(1)
		}
		defer a.Close()
		// Back-to-back runs, each with its budget and its summary line,
		// like the scheduled Sweep function's minute-by-minute runs.
		go func() {
			for ctx.Err() == nil {
				a.Sweeper.Run(ctx)
			}
		}()
		// Large rooms' summaries, once a second, as the Sweep function
		// refreshes them while it runs.
		go a.Summarizer.Run(ctx)
	}

	if *webDir != "" {
		go serveWeb(ctx, *host, *webPort, *webDir, *port, cfg)
	}

	// Serve Presence at "/", as its own Cloud Run service would, so that
	// /v1/rooms/... and /healthz resolve exactly as in production.
	if os.Getenv("FUNCTION_TARGET") == "" {
		os.Setenv("FUNCTION_TARGET", "Presence")
	}
	fmt.Printf("roomlease API listening on http://%s:%s\n", *host, *port)
	served := make(chan error, 1)
	go func() { served <- funcframework.StartHostPort(*host, *port) }()
	select {
	case err := <-served:
		fmt.Fprintln(os.Stderr, "roomlease-dev:", err)
		os.Exit(1)
	case <-ctx.Done():
	}
}

// serveWeb serves the demo page and the settings it needs to find the API
// and the emulators.
func serveWeb(ctx context.Context, host, port, dir, apiPort string, cfg config.Config) {
	fsHost, fsPort := splitHostPort(os.Getenv("FIRESTORE_EMULATOR_HOST"))
	settings := map[string]any{
		"apiUrl":                "http://" + net.JoinHostPort(host, apiPort),
		"projectId":             cfg.ProjectID,
		"authEmulatorUrl":       "http://" + os.Getenv("FIREBASE_AUTH_EMULATOR_HOST"),
		"firestoreEmulatorHost": fsHost,
		"firestoreEmulatorPort": fsPort,
		"leaseSeconds":          cfg.Presence.Lease.Seconds(),
		"heartbeatSeconds":      cfg.Presence.Heartbeat.Seconds(),
		"emptyRoomGraceSeconds": cfg.Presence.EmptyRoomGrace.Seconds(),
		"typingSeconds":         cfg.Presence.TypingExpiry.Seconds(),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /config.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(settings)
	})
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	srv := &http.Server{Addr: net.JoinHostPort(host, port), Handler: mux}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Printf("roomlease demo on http://%s\n", srv.Addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "roomlease-dev: demo server:", err)
	}
}

func splitHostPort(hostport string) (string, int) {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return "127.0.0.1", 8080
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// randomLeaseTokenKey is a fresh key for this process's lease tokens, for
// when ROOMLEASE_LEASE_TOKEN_KEY is not set: 48 random bytes in base64.
func randomLeaseTokenKey() (string, error) {
	b := make([]byte, 48)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("drawing a lease-token key: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
