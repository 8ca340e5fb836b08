package config_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/config"
	"github.com/roomlease/roomlease/functions/httpapi"
)

func TestFromEnv_AppCheckAndRateLimit(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p"}))
		if err != nil {
			t.Fatal(err)
		}
		// Off by default: there is no App Check emulator, and the demo
		// and the tests run on the emulators.
		if c.AppCheckMode != httpapi.AppCheckOff {
			t.Errorf("App Check mode %q by default, want off", c.AppCheckMode)
		}
		if !c.RateLimited() || c.RateLimit.Rate != config.DefaultRateLimit || c.RateLimit.Burst != config.DefaultRateBurst ||
			c.RateLimit.MaxKeys != config.RateLimitMaxKeys {
			t.Errorf("rate limit %+v by default", c.RateLimit)
		}
	})
	t.Run("Overrides", func(t *testing.T) {
		for _, mode := range []httpapi.AppCheckMode{httpapi.AppCheckOff, httpapi.AppCheckMonitor, httpapi.AppCheckEnforce} {
			c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvAppCheck: string(mode),
				config.EnvRateLimit: "0.5", config.EnvRateBurst: "3"}))
			if err != nil {
				t.Fatal(err)
			}
			if c.AppCheckMode != mode || c.RateLimit.Rate != 0.5 || c.RateLimit.Burst != 3 {
				t.Errorf("got %q %+v", c.AppCheckMode, c.RateLimit)
			}
		}
	})
	t.Run("ZeroTurnsTheLimitOff", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvRateLimit: "0"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.RateLimited() {
			t.Error("ROOMLEASE_RATE_LIMIT=0 still limits")
		}
	})
	for name, tc := range map[string]struct {
		value map[string]string
		want  string
	}{
		"ErrUnknownMode":      {map[string]string{config.EnvAppCheck: "strict"}, config.EnvAppCheck + `: unknown App Check mode "strict"`},
		"ErrModeCase":         {map[string]string{config.EnvAppCheck: "Enforce"}, config.EnvAppCheck},
		"ErrRateNotANumber":   {map[string]string{config.EnvRateLimit: "fast"}, config.EnvRateLimit + `="fast"`},
		"ErrNegativeRate":     {map[string]string{config.EnvRateLimit: "-1"}, config.EnvRateLimit + `="-1"`},
		"ErrInfiniteRate":     {map[string]string{config.EnvRateLimit: "+Inf"}, config.EnvRateLimit},
		"ErrBurstZero":        {map[string]string{config.EnvRateBurst: "0"}, config.EnvRateBurst + `="0"`},
		"ErrBurstNotAInteger": {map[string]string{config.EnvRateBurst: "2.5"}, config.EnvRateBurst + `="2.5"`},
	} {
		t.Run(name, func(t *testing.T) {
			tc.value[config.EnvProjectID] = "p"
			_, err := config.FromEnv(env(tc.value))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
