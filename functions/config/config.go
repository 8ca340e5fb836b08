// Package config reads roomlease's settings from the environment and
// validates them once, at start-up, with errors that name the variable.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/leasetoken"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/ratelimit"
	"github.com/roomlease/roomlease/functions/sweep"
)

// Config is everything the functions need to start.
type Config struct {
	ProjectID      string // Firestore and Firebase Auth project
	DatabaseID     string // Firestore database, "(default)" unless set
	Presence       presence.Settings
	AllowedOrigins []string // CORS origins for browser clients; "*" allows any
	LogLevel       slog.Level
	Sweep          sweep.Config
	// AppCheckMode is what the API does with App Check tokens; RateLimit
	// limits each user's requests per instance (Rate 0: no limit).
	AppCheckMode httpapi.AppCheckMode
	RateLimit    ratelimit.Config
	// IPRateLimit limits each client address's requests per instance,
	// before authentication (Rate 0: no limit). AuthLookupRate and
	// AuthLookupBurst are each instance's budget of user lookups
	// (auth.Options.LookupRate, LookupBurst).
	IPRateLimit ratelimit.Config
	// StateRateLimit limits each user's state updates per instance (Rate
	// 0: no limit beyond RateLimit).
	StateRateLimit  ratelimit.Config
	AuthLookupRate  float64
	AuthLookupBurst int
	// RevocationCheckEvery is how long a user's Firebase Auth record is
	// trusted per instance: the bound on how long a disabled user or a
	// revoked token keeps working (auth.Options.CheckEvery).
	RevocationCheckEvery time.Duration
	// ServiceReads are the services that may read any room's roster
	// (service.go).
	ServiceReads ServiceReads
	// AllowClientNames lets a client's displayName win over its ID token's
	// name (ROOMLEASE_CLIENT_NAMES=allow; default identity).
	AllowClientNames bool
	// LeaseTokenKey signs lease tokens (ROOMLEASE_LEASE_TOKEN_KEY, at
	// least 32 bytes, a secret the deployment provisions). Empty: no token
	// is issued and every heartbeat reads its session, as before.
	LeaseTokenKey []byte
	// EventsTopic is the Pub/Sub topic id events are published on
	// (ROOMLEASE_EVENTS_TOPIC, see events.go); empty: events are off.
	EventsTopic string
	// MinClientVersions are the oldest client versions the API serves
	// (ROOMLEASE_MIN_CLIENT_VERSION; none by default).
	MinClientVersions httpapi.MinClientVersions
	// Emulators are FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST:
	// a local server tells clients in GET /v1/config where they are.
	Emulators httpapi.Emulators
	// LeaseIndexSharded makes the sweeper find expired sessions by lease
	// shard (ROOMLEASE_LEASE_INDEX=sharded; firestoredb.ListLeasesByShard).
	LeaseIndexSharded bool
	// ServerTiming sends room replies with a Server-Timing header of
	// their steps (ROOMLEASE_SERVER_TIMING=true; the benchmarks).
	ServerTiming bool
	// Warnings are settings that work but should change (deprecated
	// names); the caller logs them once the logger is set up.
	Warnings []string
}

// Variable names, documented in docs/settings.md.
const (
	EnvProjectID       = "ROOMLEASE_PROJECT_ID"
	EnvDatabase        = "ROOMLEASE_DATABASE"
	EnvHeartbeat       = "ROOMLEASE_HEARTBEAT_INTERVAL"
	EnvLease           = "ROOMLEASE_LEASE"
	EnvRenewWhenLeft   = "ROOMLEASE_RENEW_WHEN_LEFT"
	EnvEmptyRoomGrace  = "ROOMLEASE_EMPTY_ROOM_GRACE"
	EnvMaxParticipants = "ROOMLEASE_MAX_PARTICIPANTS"
	// EnvLargeRoomThreshold: the roster size from which a room is
	// summarized (presence.Settings.LargeRoomThreshold).
	EnvLargeRoomThreshold = "ROOMLEASE_LARGE_ROOM_THRESHOLD"
	EnvRevisionShards     = "ROOMLEASE_REVISION_SHARDS"
	EnvRecordHorizon      = "ROOMLEASE_RECORD_HORIZON"
	EnvSessionRetention   = "ROOMLEASE_SESSION_RETENTION"
	EnvAllowedOrigins     = "ROOMLEASE_ALLOWED_ORIGINS"
	EnvLogLevel           = "ROOMLEASE_LOG_LEVEL"
	EnvTypingExpiry       = "ROOMLEASE_TYPING_EXPIRY"
	EnvRecentlyLeft       = "ROOMLEASE_RECENTLY_LEFT"
	EnvAwayLease          = "ROOMLEASE_AWAY_LEASE"
	EnvAwayHeartbeat      = "ROOMLEASE_AWAY_HEARTBEAT"
	EnvClosingRetention   = "ROOMLEASE_CLOSING_RETENTION"
	EnvArchiveReceipts    = "ROOMLEASE_ARCHIVE_RECEIPTS"
	EnvCleanupMode        = "ROOMLEASE_CLEANUP_MODE"
	// EnvEnforceShare and EnvReconnectWindow are the rollout's: the share
	// of rooms enforce mode tears down, and the window after a teardown
	// candidate in which a join counts as a reconnect.
	EnvEnforceShare    = "ROOMLEASE_ENFORCE_SHARE"
	EnvReconnectWindow = "ROOMLEASE_RECONNECT_WINDOW"
	EnvSweepBudget     = "ROOMLEASE_SWEEP_BUDGET"
	EnvSweepMaxPause   = "ROOMLEASE_SWEEP_MAX_PAUSE"
	// EnvAllowEmulators lets a deployed function run with an emulator
	// variable set; see emulatorGuard.
	EnvAllowEmulators = "ROOMLEASE_ALLOW_EMULATORS_IN_PRODUCTION"
	// EnvSweepInterval is the deprecated name of EnvSweepMaxPause: the
	// setting never was an interval, only the longest pause between passes.
	EnvSweepInterval = "ROOMLEASE_SWEEP_INTERVAL"
	EnvSweepBatch    = "ROOMLEASE_SWEEP_BATCH"
	// EnvSweepConcurrency is how many candidates of one step a sweep pass
	// acts on at once.
	EnvSweepConcurrency = "ROOMLEASE_SWEEP_CONCURRENCY"
	// EnvRevocationCheckEvery and EnvPolicyCache bound how long a revoked
	// user or a changed room policy may go unnoticed by an instance.
	EnvRevocationCheckEvery = "ROOMLEASE_REVOCATION_CHECK_EVERY"
	EnvPolicyCache          = "ROOMLEASE_POLICY_CACHE"
	// EnvClientNames is identity (the ID token's name wins) or allow (the
	// client's displayName wins).
	EnvClientNames = "ROOMLEASE_CLIENT_NAMES"
	// EnvServerTiming (true or false) adds Server-Timing to room replies.
	EnvServerTiming = "ROOMLEASE_SERVER_TIMING"
	// EnvLeaseIndex is single (leases and typing signals are found in their
	// single-field indexes) or sharded (in the composite ones by shard).
	EnvLeaseIndex = "ROOMLEASE_LEASE_INDEX"
)

// The per-user caps (abuse limits), also in docs/settings.md.
const (
	EnvMaxSessionsPerUser = "ROOMLEASE_MAX_SESSIONS_PER_USER"
	EnvMaxRoomsPerUser    = "ROOMLEASE_MAX_ROOMS_PER_USER"
	// EnvMaxStateBytes bounds a participant's state as JSON.
	EnvMaxStateBytes = "ROOMLEASE_MAX_STATE_BYTES"

	// EnvLeaseTokenKey is the key lease tokens are signed with; see
	// functions/leasetoken.
	EnvLeaseTokenKey = "ROOMLEASE_LEASE_TOKEN_KEY"
)

// FromEnv reads the settings through getenv (os.Getenv in production) and
// returns every problem found, not just the first.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{Presence: presence.DefaultSettings(), DatabaseID: DefaultDatabase, AllowedOrigins: []string{"*"},
		Sweep: sweep.Config{DefaultMode: sweep.Enforce}, RevocationCheckEvery: auth.DefaultCheckEvery}
	var errs []error

	c.ProjectID = firstSet(getenv, EnvProjectID, "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
	if c.ProjectID == "" {
		errs = append(errs, fmt.Errorf("%s is not set (nor GOOGLE_CLOUD_PROJECT): roomlease needs the project that holds Firestore and Firebase Auth", EnvProjectID))
	}
	if v := getenv(EnvDatabase); v != "" {
		c.DatabaseID = v
		if err := CheckDatabaseID(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvDatabase, err))
		}
	}
	duration := func(name string, dst *time.Duration) {
		v := getenv(name)
		if v == "" {
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("%s=%q is not a duration such as \"15s\" or \"720h\"", name, v))
			return
		}
		*dst = d
	}
	if v := getenv(EnvLeaseTokenKey); v != "" {
		// A key too short to sign with is a mistake to report at start-up;
		// no key at all is a deployment that reads on every heartbeat.
		if len(v) < leasetoken.MinKeyBytes {
			errs = append(errs, fmt.Errorf("%s is %d bytes; a lease token key must be at least %d (for example: openssl rand -base64 48)",
				EnvLeaseTokenKey, len(v), leasetoken.MinKeyBytes))
		}
		c.LeaseTokenKey = []byte(v)
	}
	duration(EnvHeartbeat, &c.Presence.Heartbeat)
	duration(EnvLease, &c.Presence.Lease)
	duration(EnvEmptyRoomGrace, &c.Presence.EmptyRoomGrace)
	duration(EnvRecordHorizon, &c.Presence.RecordHorizon)
	duration(EnvSessionRetention, &c.Presence.SessionRetention)
	duration(EnvTypingExpiry, &c.Presence.TypingExpiry)
	duration(EnvRecentlyLeft, &c.Presence.RecentlyLeft)
	duration(EnvAwayLease, &c.Presence.AwayLease)
	duration(EnvAwayHeartbeat, &c.Presence.AwayHeartbeat)
	duration(EnvClosingRetention, &c.Presence.ClosingRetention)
	duration(EnvSweepBudget, &c.Sweep.RunBudget)
	duration(EnvPolicyCache, &c.Presence.PolicyCache)
	duration(EnvRevocationCheckEvery, &c.RevocationCheckEvery)
	if d := c.RevocationCheckEvery; d <= 0 || d > auth.MaxCheckEvery {
		errs = append(errs, fmt.Errorf("%s=%v must be more than 0 and at most %v: it bounds how long a disabled user or a revoked token keeps working",
			EnvRevocationCheckEvery, d, auth.MaxCheckEvery))
	}
	switch {
	case getenv(EnvSweepMaxPause) != "":
		duration(EnvSweepMaxPause, &c.Sweep.MaxWait)
		if getenv(EnvSweepInterval) != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s is ignored: %s is set", EnvSweepInterval, EnvSweepMaxPause))
		}
	case getenv(EnvSweepInterval) != "":
		duration(EnvSweepInterval, &c.Sweep.MaxWait)
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s is deprecated; rename it %s", EnvSweepInterval, EnvSweepMaxPause))
	}
	switch v := getenv(EnvLeaseIndex); v {
	case "", "single":
	case "sharded":
		c.LeaseIndexSharded = true
	default:
		errs = append(errs, fmt.Errorf("%s=%q: use single (until every session written before lease shards has renewed or expired) or sharded", EnvLeaseIndex, v))
	}
	switch v := getenv(EnvClientNames); v {
	case "", "identity":
	case "allow":
		c.AllowClientNames = true
	default:
		errs = append(errs, fmt.Errorf("%s=%q: use identity (the ID token's name is shown) or allow (the client's displayName is)", EnvClientNames, v))
	}
	if v := getenv(EnvServerTiming); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not true or false", EnvServerTiming, v))
		}
		c.ServerTiming = b
	}
	if v := getenv(EnvArchiveReceipts); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not true or false", EnvArchiveReceipts, v))
		}
		c.Presence.ArchiveReceipts = b
	}
	if v := getenv(EnvCleanupMode); v != "" {
		m, err := sweep.ParseMode(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvCleanupMode, err))
		}
		c.Sweep.DefaultMode = m
	}
	if v := getenv(EnvEnforceShare); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			_, err = sweep.ParseShare(f)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q must be a percentage from 0 to 100, such as 10 or 0.5", EnvEnforceShare, v))
		}
		c.Sweep.EnforceSharePercent = &f
	}
	// Unset, the window is three leases: long enough for a client that
	// lost its lease to notice (409), rejoin and be counted.
	c.Presence.ReconnectWindow = 3 * c.Presence.Lease
	duration(EnvReconnectWindow, &c.Presence.ReconnectWindow)
	whole := func(name string, dst *int) {
		v := getenv(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not a whole number", name, v))
			return
		}
		*dst = n
	}
	if v := getenv(EnvRenewWhenLeft); v != "" {
		// A share, not a duration, so that it scales with the lease when
		// only the lease is changed; Validate checks it against both.
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not a number such as 0.5", EnvRenewWhenLeft, v))
		}
		c.Presence.RenewWhenLeft = f
	} else if c.Presence.Lease > 0 {
		// Unset: renew when one heartbeat interval of the lease is left
		// (1/3 at 5 s / 15 s), which clients are told as renewAt. So a
		// client renews every lease − interval, one request and one write
		// each, with an interval left for retries; and the default stays
		// valid for every lease of at least two intervals, which 1/3
		// would not be (5 s / 10 s).
		c.Presence.RenewWhenLeft = float64(c.Presence.Heartbeat) / float64(c.Presence.Lease)
	}
	whole(EnvSweepBatch, &c.Sweep.BatchSize)
	whole(EnvSweepConcurrency, &c.Sweep.Concurrency)
	whole(EnvRevisionShards, &c.Presence.RevisionShards)
	whole(EnvMaxParticipants, &c.Presence.MaxParticipants)
	whole(EnvLargeRoomThreshold, &c.Presence.LargeRoomThreshold)
	atLeastOne := func(name string, dst *int) {
		whole(name, dst)
		if *dst < 1 {
			errs = append(errs, fmt.Errorf("%s=%q must be at least 1", name, getenv(name)))
		}
	}
	atLeastOne(EnvMaxSessionsPerUser, &c.Presence.MaxSessionsPerUser)
	atLeastOne(EnvMaxRoomsPerUser, &c.Presence.MaxRoomsPerUser)
	whole(EnvMaxStateBytes, &c.Presence.MaxStateBytes)
	if v := getenv(EnvAllowedOrigins); v != "" {
		c.AllowedOrigins = nil
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.AllowedOrigins = append(c.AllowedOrigins, o)
			}
		}
	}
	if lvl, err := logging.ParseLevel(getenv(EnvLogLevel)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", EnvLogLevel, err))
	} else {
		c.LogLevel = lvl
	}
	errs = append(errs, readServiceReads(getenv, &c)...)
	if err := CheckEmulatorGuard(getenv); err != nil {
		errs = append(errs, err)
	}
	c.Emulators = httpapi.Emulators{Firestore: getenv("FIRESTORE_EMULATOR_HOST"), Auth: getenv("FIREBASE_AUTH_EMULATOR_HOST")}
	for name, v := range map[string]string{"FIRESTORE_EMULATOR_HOST": c.Emulators.Firestore, "FIREBASE_AUTH_EMULATOR_HOST": c.Emulators.Auth} {
		if _, _, err := httpapi.SplitEmulatorHost(v); v != "" && err != nil {
			errs = append(errs, fmt.Errorf("%s: %w, such as 127.0.0.1:8080", name, err))
		}
	}
	errs = append(errs, readGuards(getenv, &c)...)
	errs = append(errs, readEvents(getenv, &c)...)
	if len(errs) == 0 {
		if err := c.Presence.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("invalid presence settings: %w", err))
		}
		if err := c.Sweep.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("invalid sweep settings: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("roomlease configuration: %w", err)
	}
	return c, nil
}

// DefaultDatabase is the database the Firebase SDKs open when none is named.
const DefaultDatabase = httpapi.DefaultDatabase

// DatabaseIDPattern is Firestore's rule for a named database: 4–63
// characters, lowercase letters, digits and hyphens, starting with a letter
// and not ending with a hyphen. terraform/modules/roomlease/variables.tf checks database_id
// with the same pattern (a test there keeps them equal), so that a value
// Terraform accepts never stops the functions at start-up.
const DatabaseIDPattern = `^[a-z][a-z0-9-]{2,61}[a-z0-9]$`

var databaseIDPattern = regexp.MustCompile(DatabaseIDPattern)

// CheckDatabaseID refuses what Firestore would refuse as a database id. A
// mistyped id must stop the server at start-up: the Go client would
// otherwise fail only at the first request, and the id is also what
// clients are told to listen to (GET /v1/config, the join reply).
func CheckDatabaseID(id string) error {
	if id == DefaultDatabase || databaseIDPattern.MatchString(id) {
		return nil
	}
	return fmt.Errorf("%q is not a Firestore database id: use %q or 4-63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen",
		id, DefaultDatabase)
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// EmulatorVariables are the variables that point Google's client libraries
// at a local emulator instead of the real service.
var EmulatorVariables = []string{"FIRESTORE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST",
	"FIREBASE_DATABASE_EMULATOR_HOST", "FIREBASE_STORAGE_EMULATOR_HOST", "PUBSUB_EMULATOR_HOST"}

// CheckEmulatorGuard refuses emulator variables on Cloud Run (K_SERVICE is
// set there): with FIREBASE_AUTH_EMULATOR_HOST the Admin SDK accepts
// unsigned tokens, and with FIRESTORE_EMULATOR_HOST the data goes nowhere
// durable. A deployment that really means it sets EnvAllowEmulators=true.
// FromEnv includes this check; the root package also runs it alone at
// start-up, so that such an instance never starts.
func CheckEmulatorGuard(getenv func(string) string) error {
	if getenv("K_SERVICE") == "" || getenv(EnvAllowEmulators) == "true" {
		return nil
	}
	var errs []error
	for _, name := range EmulatorVariables {
		if getenv(name) != "" {
			errs = append(errs, fmt.Errorf("%s is set on Cloud Run (K_SERVICE=%s): refusing to start, since an emulator variable turns off token signature checks or durable storage; unset it, or set %s=true if this is deliberate",
				name, getenv("K_SERVICE"), EnvAllowEmulators))
		}
	}
	return errors.Join(errs...)
}
