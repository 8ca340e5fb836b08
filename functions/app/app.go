// Package app assembles roomlease from its configuration: the Firestore
// client, the presence store, the token verifier and the HTTP handler. The
// root function package and the local dev server both build through here, so
// that what runs locally is what is deployed.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"cloud.google.com/go/firestore"
	vkit "cloud.google.com/go/firestore/apiv1"

	"github.com/roomlease/roomlease/functions/appcheck"
	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/config"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/pubsubevents"
	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/functions/summarize"
	"github.com/roomlease/roomlease/functions/sweep"
)

// The presence store on Firestore is the sweeper's store too. The two
// adapters may not import each other (internal/layers), so this is where
// that is checked.
var _ sweep.Store = (*firestoredb.Store)(nil)

// So is the summarizer's.
var _ summarize.Store = (*firestoredb.Store)(nil)

// App is a wired roomlease instance.
type App struct {
	Config config.Config
	Store  *firestoredb.Store
	API    http.Handler
	// Sweeper is the expiry and teardown authority; SweepHandler serves it
	// to Cloud Scheduler.
	Sweeper      *sweep.Sweeper
	SweepHandler http.Handler
	// Summarizer refreshes large rooms' summaries while a sweep runs.
	Summarizer *summarize.Summarizer
	client     *firestore.Client
	aggs       *vkit.Client            // the store's aggregations at a read time
	events     *pubsubevents.Publisher // nil: events off
}

// New connects to Firestore and Firebase Auth as cfg says. With
// FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST set, the clients
// talk to the emulators instead.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	client, err := firestore.NewClientWithDatabase(ctx, cfg.ProjectID, cfg.DatabaseID)
	if err != nil {
		return nil, fmt.Errorf("firestore client for project %q database %q: %w", cfg.ProjectID, cfg.DatabaseID, err)
	}
	verifier, err := auth.NewVerifier(ctx, cfg.ProjectID, auth.Options{CheckEvery: cfg.RevocationCheckEvery, Logger: log,
		LookupRate: cfg.AuthLookupRate, LookupBurst: cfg.AuthLookupBurst})
	if err != nil {
		client.Close()
		return nil, err
	}
	aggs, err := firestoredb.DialAggregations(ctx)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("firestore aggregation client: %w", err)
	}
	closeClients := func() { aggs.Close(); client.Close() }
	store := newStore(client, aggs, cfg)
	if len(cfg.LeaseTokenKey) > 0 {
		signer, err := leasetoken.NewSigner(cfg.LeaseTokenKey)
		if err != nil {
			closeClients()
			return nil, err
		}
		store.UseLeaseTokens(signer)
	}
	apiOpts := httpapi.Options{
		Store: store, Tokens: verifier, Settings: cfg.Presence,
		ProjectID: cfg.ProjectID, Database: cfg.DatabaseID,
		AllowedOrigins: cfg.AllowedOrigins, Logger: log, AppCheckMode: cfg.AppCheckMode, AllowClientNames: cfg.AllowClientNames,
		MinClientVersions: cfg.MinClientVersions, Emulators: cfg.Emulators,
		ServerTiming: cfg.ServerTiming,
	}
	if cfg.ServiceReads.Enabled() {
		services, err := auth.NewServiceVerifier(ctx, auth.ServiceOptions{Accounts: cfg.ServiceReads.Accounts, Audience: cfg.ServiceReads.Audience})
		if err != nil {
			closeClients()
			return nil, err
		}
		apiOpts.ServiceTokens, apiOpts.ServiceRosters = services, store
	}
	// Off builds no App Check client at all: nothing fetches the key set,
	// which is what local runs on the emulators need.
	if cfg.AppCheckMode != httpapi.AppCheckOff {
		apiOpts.AppCheck = appcheck.NewVerifier(cfg.ProjectID, time.Now)
	}
	if cfg.RateLimited() {
		if apiOpts.RateLimiter, err = ratelimit.New(cfg.RateLimit, time.Now); err != nil {
			closeClients()
			return nil, err
		}
	}
	if cfg.IPRateLimited() {
		if apiOpts.IPRateLimiter, err = ratelimit.New(cfg.IPRateLimit, time.Now); err != nil {
			closeClients()
			return nil, err
		}
	}
	if cfg.StateRateLimit.Rate > 0 {
		if apiOpts.StateRateLimiter, err = ratelimit.New(cfg.StateRateLimit, time.Now); err != nil {
			closeClients()
			return nil, err
		}
	}
	api := httpapi.New(apiOpts)
	a := &App{Config: cfg, Store: store, API: logging.Traced(cfg.ProjectID, api), client: client, aggs: aggs}
	sweepStore := store
	if cfg.EventsTopic != "" {
		// One publisher for the requests' own commits, the sweeper's and
		// its relay (docs/events.md). The sweeper has a store of its own
		// that publishes beside its work (PublishInBackground).
		if a.events, err = pubsubevents.New(ctx, cfg.ProjectID, cfg.EventsTopic, cfg.DatabaseID); err != nil {
			closeClients()
			return nil, err
		}
		store.PublishEvents(a.events)
		sweepStore = newStore(client, aggs, cfg)
		sweepStore.PublishEvents(a.events)
		sweepStore.PublishInBackground()
	}
	sweeper, err := sweep.New(sweepStore, cfg.Sweep, time.Now, sweep.SleepContext, log)
	if err != nil {
		a.Close()
		return nil, err
	}
	if a.events != nil {
		sweeper.RelayEvents(sweepStore, a.events, firestoredb.OutboxRelayAge)
	}
	// Every line a request writes names the request's trace.
	a.Sweeper, a.SweepHandler = sweeper, logging.Traced(cfg.ProjectID, sweep.Handler(sweeper, log))
	a.Summarizer = summarize.New(store, sweep.SleepContext, log)
	return a, nil
}

// Close releases the Firestore and Pub/Sub connections.
func (a *App) Close() error {
	if a.events != nil {
		a.events.Close()
	}
	a.aggs.Close()
	return a.client.Close()
}

// newStore is a store of cfg's settings.
func newStore(client *firestore.Client, aggs *vkit.Client, cfg config.Config) *firestoredb.Store {
	store := firestoredb.New(client, cfg.Presence, time.Now)
	store.ReadAggregationsWith(aggs)
	if cfg.LeaseIndexSharded {
		store.ListLeasesByShard()
	}
	return store
}
