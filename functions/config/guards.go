package config

import (
	"fmt"
	"math"
	"strconv"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/ratelimit"
)

// App Check, rate limits and the lookup budget of the client API.
const (
	EnvAppCheck  = "ROOMLEASE_APP_CHECK"
	EnvRateLimit = "ROOMLEASE_RATE_LIMIT"
	EnvRateBurst = "ROOMLEASE_RATE_BURST"
	// EnvIPRateLimit and EnvIPRateBurst limit each client address, before
	// its token is verified; EnvAuthLookupRate and EnvAuthLookupBurst bound
	// an instance's user lookups at Firebase Auth.
	EnvIPRateLimit     = "ROOMLEASE_IP_RATE_LIMIT"
	EnvIPRateBurst     = "ROOMLEASE_IP_RATE_BURST"
	EnvAuthLookupRate  = "ROOMLEASE_AUTH_LOOKUP_RATE"
	EnvAuthLookupBurst = "ROOMLEASE_AUTH_LOOKUP_BURST"
	// EnvStateRateLimit and EnvStateRateBurst limit each user's state
	// updates, per instance.
	EnvStateRateLimit = "ROOMLEASE_STATE_RATE_LIMIT"
	EnvStateRateBurst = "ROOMLEASE_STATE_RATE_BURST"
	// EnvMinClientVersion lists the oldest client versions served, such as
	// "js/0.2.0,go/0.1.0"; older clients get 426 client_too_old.
	EnvMinClientVersion = "ROOMLEASE_MIN_CLIENT_VERSION"
)

// Defaults of the state updates' limit, per user and per instance. Every
// state change is read by every listener in the room: in a room of 1 000
// whose members each changed state once a second, listeners would read a
// million documents a second. One a second with a burst of five lets a UI
// set a status, a colour and what the user looks at in one go, and holds a
// script that streams state to a few updates a second per instance.
const (
	DefaultStateRateLimit = 1.0
	DefaultStateRateBurst = 5
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

// Defaults of the per-address limit, per instance. Many users can share one
// address (an office, a campus, a carrier's NAT), so it is set for a crowd:
// at about 0.3 requests a second per user, 100 a second is a few hundred
// users behind one address on one instance, and the burst covers them
// reopening their tabs together. One client alone is held to it whatever
// uids it mints. MaxKeys as for users.
const (
	DefaultIPRateLimit = 100.0
	DefaultIPRateBurst = 200
	IPRateLimitMaxKeys = 10000
)

// readGuards reads the App Check mode, the rate limits and the lookup
// budget into c.
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
	// rate reads a number of requests a second: zero turns a limit off
	// where offOK, and is refused elsewhere.
	rate := func(name string, dst *float64, unit string, offOK bool) {
		v := getenv(name)
		if v == "" {
			return
		}
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f):
			hint := ""
			if offOK {
				hint = " (0 turns the limit off)"
			}
			errs = append(errs, fmt.Errorf("%s=%q is not a number of %s per second such as 5 or 0.5%s", name, v, unit, hint))
		case f == 0 && !offOK:
			errs = append(errs, fmt.Errorf("%s=%q must be more than 0: it bounds %s per second", name, v, unit))
		}
		*dst = f
	}
	burst := func(name string, dst *int) {
		v := getenv(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("%s=%q is not a whole number of at least 1", name, v))
		}
		*dst = n
	}
	c.RateLimit = ratelimit.Config{Rate: DefaultRateLimit, Burst: DefaultRateBurst, MaxKeys: RateLimitMaxKeys}
	rate(EnvRateLimit, &c.RateLimit.Rate, "requests", true)
	burst(EnvRateBurst, &c.RateLimit.Burst)
	c.IPRateLimit = ratelimit.Config{Rate: DefaultIPRateLimit, Burst: DefaultIPRateBurst, MaxKeys: IPRateLimitMaxKeys}
	rate(EnvIPRateLimit, &c.IPRateLimit.Rate, "requests", true)
	burst(EnvIPRateBurst, &c.IPRateLimit.Burst)
	c.StateRateLimit = ratelimit.Config{Rate: DefaultStateRateLimit, Burst: DefaultStateRateBurst, MaxKeys: RateLimitMaxKeys}
	rate(EnvStateRateLimit, &c.StateRateLimit.Rate, "state updates", true)
	burst(EnvStateRateBurst, &c.StateRateLimit.Burst)
	if m, err := httpapi.ParseMinClientVersions(getenv(EnvMinClientVersion)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", EnvMinClientVersion, err))
	} else {
		c.MinClientVersions = m
	}
	c.AuthLookupRate, c.AuthLookupBurst = auth.DefaultLookupRate, auth.DefaultLookupBurst
	rate(EnvAuthLookupRate, &c.AuthLookupRate, "lookups", false)
	burst(EnvAuthLookupBurst, &c.AuthLookupBurst)
	if len(errs) == 0 && c.RateLimited() {
		if err := c.RateLimit.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s, %s: %w", EnvRateLimit, EnvRateBurst, err))
		}
	}
	if len(errs) == 0 && c.StateRateLimit.Rate > 0 {
		if err := c.StateRateLimit.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s, %s: %w", EnvStateRateLimit, EnvStateRateBurst, err))
		}
	}
	if len(errs) == 0 && c.IPRateLimited() {
		if err := c.IPRateLimit.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s, %s: %w", EnvIPRateLimit, EnvIPRateBurst, err))
		}
	}
	return errs
}

// RateLimited reports whether per-user rate limiting is on
// (ROOMLEASE_RATE_LIMIT is not 0).
func (c Config) RateLimited() bool { return c.RateLimit.Rate > 0 }

// IPRateLimited reports whether the per-address limit is on
// (ROOMLEASE_IP_RATE_LIMIT is not 0).
func (c Config) IPRateLimited() bool { return c.IPRateLimit.Rate > 0 }
