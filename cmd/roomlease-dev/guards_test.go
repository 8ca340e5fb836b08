package main_test

import (
	"context"
	"errors"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/internal/devserver"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The settings reach the handler through config and app, as deployed:
// enforce refuses a request without an App Check token; the rate limit
// refuses a user's third request with the Retry-After its rate implies.
// (Valid tokens are tested through the handler, functions/httpapi, where
// the Admin SDK can be pointed at a local key set.)
func TestDevServer_AppCheckAndRateLimitSettings(t *testing.T) {
	emulatortest.FirestoreHost(t)
	emulatortest.AuthHost(t)
	bin := devserver.Build(t)
	ctx := context.Background()
	user := emulatortest.SignUp(t)

	t.Run("EnforceRefusesWithoutToken", func(t *testing.T) {
		base := devserver.Start(t, bin, []string{"ROOMLEASE_APP_CHECK=enforce"}, "-sweep=false")
		_, err := NewClient(t, base, user).Join(ctx, "guarded", "tab-1", nil)
		var apiErr *client.APIError
		if !errors.Is(err, client.ErrAppCheckFailed) || !errors.As(err, &apiErr) || apiErr.Status != 401 {
			t.Fatalf("join without App Check token: %v, want 401 app_check_failed", err)
		}
	})
	t.Run("RateLimit", func(t *testing.T) {
		// Burst 2, then one request every 1000 s.
		base := devserver.Start(t, bin, []string{"ROOMLEASE_APP_CHECK=monitor", "ROOMLEASE_RATE_LIMIT=0.001", "ROOMLEASE_RATE_BURST=2"}, "-sweep=false")
		api := NewClient(t, base, user)
		for i := range 2 {
			if _, err := api.Room(ctx, "nowhere"); !errors.Is(err, client.ErrRoomNotFound) {
				t.Fatalf("request %d within the burst: %v", i+1, err)
			}
		}
		_, err := api.Room(ctx, "nowhere")
		var apiErr *client.APIError
		if !errors.Is(err, client.ErrRateLimited) || !errors.As(err, &apiErr) {
			t.Fatalf("third request: %v, want rate_limited", err)
		}
		if apiErr.RetryAfter < 999*time.Second || apiErr.RetryAfter > 1000*time.Second {
			t.Fatalf("Retry-After %v, want about 1000s", apiErr.RetryAfter)
		}
	})
}
