// Package roomlease is the deployable root of roomlease. Google's Go
// buildpack compiles only the package at the root of the uploaded source, so
// this package does nothing but register the functions and wire them, lazily,
// on the first request an instance serves. Everything else lives under
// functions/.
package roomlease

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"sync"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"

	"github.com/roomlease/roomlease/functions/app"
	"github.com/roomlease/roomlease/functions/config"
	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/logging"
)

func init() {
	// Refuse to start at all, rather than on the first request, when a
	// deployed instance carries an emulator variable (see the config
	// package): the deployment then fails its start-up check, loudly.
	if err := config.CheckEmulatorGuard(os.Getenv); err != nil {
		log.Error("roomlease refuses to start", "error", err.Error())
		os.Exit(1)
	}
	functions.HTTP("Presence", Presence)
	functions.HTTP("Sweep", Sweep)
}

var (
	// logLevel starts at info and takes ROOMLEASE_LOG_LEVEL once the
	// configuration has been read and validated.
	logLevel = new(slog.LevelVar)
	log      = logging.New(os.Stderr, logLevel)
	wireOnce sync.Once
	wired    *app.App
	wireErr  error
)

// instance builds the app once per function instance. A configuration error
// is permanent for the instance: it is logged and every request gets a 500,
// rather than a half-configured service answering.
func instance() (*app.App, error) {
	wireOnce.Do(func() {
		cfg, err := config.FromEnv(os.Getenv)
		if err != nil {
			wireErr = err
			return
		}
		logLevel.Set(cfg.LogLevel)
		for _, w := range cfg.Warnings {
			log.Warn("roomlease configuration", "warning", w)
		}
		wired, wireErr = app.New(context.Background(), cfg, log)
	})
	return wired, wireErr
}

// Presence serves the client API: join, heartbeat, leave, room read,
// typing, receipts and health.
func Presence(w http.ResponseWriter, r *http.Request) {
	if a := instanceOrFail(w); a != nil {
		a.API.ServeHTTP(w, r)
	}
}

// Sweep runs the sweeper for one budget (about a minute); Cloud Scheduler
// calls it every minute, so consecutive runs overlap a little. Large
// rooms' summaries are refreshed, once a second, while the run lasts.
func Sweep(w http.ResponseWriter, r *http.Request) {
	if a := instanceOrFail(w); a != nil {
		ctx, stop := context.WithCancel(r.Context())
		done := make(chan struct{})
		go func() { a.Summarizer.Run(ctx); close(done) }()
		a.SweepHandler.ServeHTTP(w, r)
		stop()
		<-done
	}
}

func instanceOrFail(w http.ResponseWriter) *app.App {
	a, err := instance()
	if err != nil {
		log.Error("roomlease is not configured", "error", err.Error())
		httpjson.WriteError(w, http.StatusInternalServerError, "internal", "the service is misconfigured; see its logs")
		return nil
	}
	return a
}
