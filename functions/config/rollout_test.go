package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/config"
)

// The rollout's settings: the window follows the lease unless set, and a
// share outside 0..100 stops the server with a message naming it.
func TestFromEnv_Rollout(t *testing.T) {
	c, err := config.FromEnv(env(map[string]string{"GOOGLE_CLOUD_PROJECT": "p", config.EnvLease: "20s"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Presence.ReconnectWindow != time.Minute || c.Sweep.EnforceSharePercent != nil {
		t.Fatalf("defaults: window %v share %v", c.Presence.ReconnectWindow, c.Sweep.EnforceSharePercent)
	}
	c, err = config.FromEnv(env(map[string]string{"GOOGLE_CLOUD_PROJECT": "p", config.EnvEnforceShare: "0.5", config.EnvReconnectWindow: "2m"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Presence.ReconnectWindow != 2*time.Minute || c.Sweep.EnforceSharePercent == nil || *c.Sweep.EnforceSharePercent != 0.5 {
		t.Fatalf("overrides: window %v share %v", c.Presence.ReconnectWindow, c.Sweep.EnforceSharePercent)
	}
	for _, bad := range []string{"101", "-1", "ten", "NaN"} {
		_, err := config.FromEnv(env(map[string]string{"GOOGLE_CLOUD_PROJECT": "p", config.EnvEnforceShare: bad}))
		if err == nil || !strings.Contains(err.Error(), config.EnvEnforceShare) {
			t.Errorf("%s=%q: %v", config.EnvEnforceShare, bad, err)
		}
	}
	if _, err := config.FromEnv(env(map[string]string{"GOOGLE_CLOUD_PROJECT": "p", config.EnvReconnectWindow: "0s"})); err == nil {
		t.Error("a zero reconnect window was accepted")
	}
}
