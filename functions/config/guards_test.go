package config_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/auth"
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

func TestFromEnv_AddressLimitAndLookupBudget(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p"}))
		if err != nil {
			t.Fatal(err)
		}
		if !c.IPRateLimited() || c.IPRateLimit.Rate != config.DefaultIPRateLimit || c.IPRateLimit.Burst != config.DefaultIPRateBurst ||
			c.IPRateLimit.MaxKeys != config.IPRateLimitMaxKeys {
			t.Errorf("per-address limit %+v by default", c.IPRateLimit)
		}
		if c.AuthLookupRate != auth.DefaultLookupRate || c.AuthLookupBurst != auth.DefaultLookupBurst {
			t.Errorf("lookup budget %v/%d by default", c.AuthLookupRate, c.AuthLookupBurst)
		}
	})
	t.Run("Overrides", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p",
			config.EnvIPRateLimit: "20", config.EnvIPRateBurst: "40", config.EnvAuthLookupRate: "2.5", config.EnvAuthLookupBurst: "8"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.IPRateLimit.Rate != 20 || c.IPRateLimit.Burst != 40 || c.AuthLookupRate != 2.5 || c.AuthLookupBurst != 8 {
			t.Errorf("got %+v, %v/%d", c.IPRateLimit, c.AuthLookupRate, c.AuthLookupBurst)
		}
	})
	t.Run("ZeroTurnsTheAddressLimitOff", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvIPRateLimit: "0"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.IPRateLimited() {
			t.Error("ROOMLEASE_IP_RATE_LIMIT=0 still limits")
		}
	})
	for name, tc := range map[string]struct {
		value map[string]string
		want  string
	}{
		// The budget is what bounds lookups; it cannot be turned off.
		"ErrLookupRateZero":       {map[string]string{config.EnvAuthLookupRate: "0"}, config.EnvAuthLookupRate + `="0" must be more than 0`},
		"ErrLookupRateNegative":   {map[string]string{config.EnvAuthLookupRate: "-5"}, config.EnvAuthLookupRate + `="-5"`},
		"ErrLookupRateNotANumber": {map[string]string{config.EnvAuthLookupRate: "lots"}, config.EnvAuthLookupRate + `="lots"`},
		"ErrLookupBurstZero":      {map[string]string{config.EnvAuthLookupBurst: "0"}, config.EnvAuthLookupBurst + `="0"`},
		"ErrIPRateInfinite":       {map[string]string{config.EnvIPRateLimit: "Inf"}, config.EnvIPRateLimit},
		"ErrIPRateNegative":       {map[string]string{config.EnvIPRateLimit: "-1"}, config.EnvIPRateLimit + `="-1"`},
		"ErrIPBurstFraction":      {map[string]string{config.EnvIPRateBurst: "1.5"}, config.EnvIPRateBurst + `="1.5"`},
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
