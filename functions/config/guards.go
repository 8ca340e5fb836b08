package config

import (
	"fmt"
	"math"
	"strconv"

	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/ratelimit"
)

// App Check and rate limits of the client API.
const (
	EnvAppCheck  = "ROOMLEASE_APP_CHECK"
	EnvRateLimit = "ROOMLEASE_RATE_LIMIT"
	EnvRateBurst = "ROOMLEASE_RATE_BURST"
)

// Defaults of the rate limit, per user and per instance. A normal client
// sends, per tab, a heartbeat every 5 s (0.2/s), while typing a signal
// every 2 s (0.5/s, one tab at a time), and read receipts as messages
// arrive; five tabs in a busy room come to about 2-4 requests a second.
// Reopening a browser with several tabs sends a join, a read, a receipt
// and a typing signal per tab at once. 5 a second with a burst of 30
// covers all that with room to spare, while a script that joins in a loop
// (tens to hundreds of joins a second) is held to 5 a second per
// instance. MaxKeys bounds memory: about 200 bytes per tracked user.
const (
	DefaultRateLimit = 5.0
	DefaultRateBurst = 30
	RateLimitMaxKeys = 10000
)

// readGuards reads the App Check mode and the rate limit into c.
func readGuards(getenv func(string) string, c *Config) []error {
	var errs []error
	c.AppCheckMode = httpapi.AppCheckOff
	if v := getenv(EnvAppCheck); v != "" {
		m, err := httpapi.ParseAppCheckMode(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvAppCheck, err))
		}
		c.AppCheckMode = m
	}
	c.RateLimit = ratelimit.Config{Rate: DefaultRateLimit, Burst: DefaultRateBurst, MaxKeys: RateLimitMaxKeys}
	if v := getenv(EnvRateLimit); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			errs = append(errs, fmt.Errorf("%s=%q is not a number of requests per second such as 5 or 0.5 (0 turns the limit off)", EnvRateLimit, v))
		}
		c.RateLimit.Rate = f
	}
	if v := getenv(EnvRateBurst); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("%s=%q is not a whole number of at least 1", EnvRateBurst, v))
		}
		c.RateLimit.Burst = n
	}
	if len(errs) == 0 && c.RateLimited() {
		if err := c.RateLimit.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s, %s: %w", EnvRateLimit, EnvRateBurst, err))
		}
	}
	return errs
}

// RateLimited reports whether per-user rate limiting is on
// (ROOMLEASE_RATE_LIMIT is not 0).
func (c Config) RateLimited() bool { return c.RateLimit.Rate > 0 }
