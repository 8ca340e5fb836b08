package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/bench/workload"
)

// ServerEnv returns the environment for a roomlease-dev with these settings.
func (o Options) ServerEnv(hb, lease, grace time.Duration) map[string]string {
	return map[string]string{
		"ROOMLEASE_PROJECT_ID":         o.Project,
		"ROOMLEASE_HEARTBEAT_INTERVAL": hb.String(),
		"ROOMLEASE_LEASE":              lease.String(),
		"ROOMLEASE_EMPTY_ROOM_GRACE":   grace.String(),
		"ROOMLEASE_LOG_LEVEL":          "warning",
		"ROOMLEASE_CLEANUP_MODE":       "enforce",
		// The per-user, per-instance rate limit is off: the benchmarks
		// measure what the store and the caps cost and allow. A fleet of N
		// instances lets a user through at N times the limit, so the abuse
		// scenario in particular must show the caps holding without it.
		"ROOMLEASE_RATE_LIMIT": "0",
		// So is the per-address limit: every simulated client connects
		// from 127.0.0.1. And the lookup budget is out of reach: the
		// scenarios sign thousands of users in at once, which is the
		// flood the budget exists to refuse.
		"ROOMLEASE_IP_RATE_LIMIT":     "0",
		"ROOMLEASE_AUTH_LOOKUP_RATE":  "1000000",
		"ROOMLEASE_AUTH_LOOKUP_BURST": "1000000",
		// Replies say where their time went (workload.WithServerSteps).
		"ROOMLEASE_SERVER_TIMING": "true",
	}
}

// WithStack starts roomlease-dev with the given settings and a Firestore
// client on its project, runs f, and stops the server.
func WithStack(ctx context.Context, o Options, name string, hb, lease, grace time.Duration, f func(url string, pid int, client *firestore.Client) error) error {
	if o.ServerBin == "" {
		return fmt.Errorf("-server-bin is required for %s", name)
	}
	srv, err := workload.StartServer(ctx, o.ServerBin, o.ServerEnv(hb, lease, grace), filepath.Join(os.TempDir(), "roomlease-bench-server-"+name+".log"))
	if err != nil {
		return err
	}
	defer srv.Stop()
	client, err := firestore.NewClient(ctx, o.Project)
	if err != nil {
		return err
	}
	defer client.Close()
	return f(srv.URL, srv.PID, client)
}

// ProjectClient returns a client on a fresh emulator project of its own.
func ProjectClient(ctx context.Context, kind string) (*firestore.Client, error) {
	return firestore.NewClient(ctx, fmt.Sprintf("bench-%s-%d", kind, time.Now().UnixNano()))
}
