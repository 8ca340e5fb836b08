package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/config"
	"github.com/roomlease/roomlease/functions/httpapi"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{"GOOGLE_CLOUD_PROJECT": "p"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.ProjectID != "p" || c.DatabaseID != "(default)" || c.Presence.Lease != 15*time.Second ||
			c.Presence.Heartbeat != 5*time.Second || c.Presence.EmptyRoomGrace != 30*time.Second ||
			c.Presence.RenewWithin() != 5*time.Second ||
			c.Presence.MaxSessionsPerUser != 10 || c.Presence.MaxRoomsPerUser != 20 || c.LeaseTokenKey != nil {
			t.Fatalf("defaults: %+v", c)
		}
	})
	t.Run("Overrides", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{
			config.EnvProjectID: "mine", config.EnvLease: "6s", config.EnvHeartbeat: "2s",
			config.EnvMaxParticipants: "50", config.EnvAllowedOrigins: "https://a.example, https://b.example",
			config.EnvRenewWhenLeft: "1", config.EnvMaxSessionsPerUser: "1", config.EnvMaxRoomsPerUser: "300",
		}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Presence.Lease != 6*time.Second || c.Presence.MaxParticipants != 50 || len(c.AllowedOrigins) != 2 ||
			c.Presence.RenewWhenLeft != 1 || c.Presence.MaxSessionsPerUser != 1 || c.Presence.MaxRoomsPerUser != 300 {
			t.Fatalf("overrides: %+v", c)
		}
	})
	t.Run("SweepConcurrency", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvSweepConcurrency: "3"}))
		if err != nil || c.Sweep.Concurrency != 3 {
			t.Fatalf("%s=3: concurrency %d, %v", config.EnvSweepConcurrency, c.Sweep.Concurrency, err)
		}
		_, err = config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvSweepConcurrency: "65"}))
		if err == nil || !strings.Contains(err.Error(), "concurrency 65") {
			t.Fatalf("%s=65: %v, want it refused", config.EnvSweepConcurrency, err)
		}
	})
	t.Run("NamedDatabase", func(t *testing.T) {
		for _, id := range []string{"roomlease", "(default)", "presence-eu-1"} {
			c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvDatabase: id}))
			if err != nil || c.DatabaseID != id {
				t.Fatalf("%s=%q: database %q, err %v", config.EnvDatabase, id, c.DatabaseID, err)
			}
		}
	})
	t.Run("RenewWhenLeftFollowsTheLeaseUnlessSet", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvLease: "10s"}))
		if err != nil || c.Presence.RenewWithin() != 5*time.Second {
			t.Fatalf("5 s / 10 s: renew within %v, %v; want one interval", c.Presence.RenewWithin(), err)
		}
		c, err = config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvRenewWhenLeft: "0.5"}))
		if err != nil || c.Presence.RenewWithin() != 7500*time.Millisecond {
			t.Fatalf("share 0.5 of 15 s: renew within %v, %v", c.Presence.RenewWithin(), err)
		}
	})
	t.Run("LeaseTokenKey", func(t *testing.T) {
		key := strings.Repeat("k", 32)
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvLeaseTokenKey: key}))
		if err != nil || string(c.LeaseTokenKey) != key {
			t.Fatalf("key %q, %v", c.LeaseTokenKey, err)
		}
		_, err = config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvLeaseTokenKey: "short"}))
		if err == nil || !strings.Contains(err.Error(), "at least 32") {
			t.Fatalf("a 5-byte key: %v", err)
		}
	})
	t.Run("FreshnessBounds", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.RevocationCheckEvery != 30*time.Second || c.Presence.PolicyCache != 2*time.Minute {
			t.Fatalf("defaults: revocation check every %v, policy cache %v", c.RevocationCheckEvery, c.Presence.PolicyCache)
		}
		c, err = config.FromEnv(env(map[string]string{config.EnvProjectID: "p",
			config.EnvRevocationCheckEvery: "1m", config.EnvPolicyCache: "0s"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.RevocationCheckEvery != time.Minute || c.Presence.PolicyCache != 0 {
			t.Fatalf("overrides: revocation check every %v, policy cache %v", c.RevocationCheckEvery, c.Presence.PolicyCache)
		}
	})
	t.Run("SweepMaxPause", func(t *testing.T) {
		for name, tc := range map[string]struct {
			env      map[string]string
			want     time.Duration
			warnings int
		}{
			"NewName":        {map[string]string{config.EnvSweepMaxPause: "2s"}, 2 * time.Second, 0},
			"DeprecatedName": {map[string]string{config.EnvSweepInterval: "3s"}, 3 * time.Second, 1},
			"NewNameWins":    {map[string]string{config.EnvSweepMaxPause: "2s", config.EnvSweepInterval: "3s"}, 2 * time.Second, 1},
		} {
			t.Run(name, func(t *testing.T) {
				tc.env[config.EnvProjectID] = "p"
				c, err := config.FromEnv(env(tc.env))
				if err != nil {
					t.Fatal(err)
				}
				if c.Sweep.MaxWait != tc.want || len(c.Warnings) != tc.warnings {
					t.Fatalf("max pause %v with warnings %q, want %v with %d", c.Sweep.MaxWait, c.Warnings, tc.want, tc.warnings)
				}
				if tc.warnings > 0 && !strings.Contains(c.Warnings[0], config.EnvSweepInterval) {
					t.Fatalf("warning %q does not name %s", c.Warnings[0], config.EnvSweepInterval)
				}
			})
		}
	})
	t.Run("ClientNames", func(t *testing.T) {
		for v, want := range map[string]bool{"": false, "identity": false, "allow": true} {
			c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvClientNames: v}))
			if err != nil || c.AllowClientNames != want {
				t.Fatalf("%s=%q: allow %v, %v; want %v", config.EnvClientNames, v, c.AllowClientNames, err, want)
			}
		}
		if _, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvClientNames: "yes"})); err == nil ||
			!strings.Contains(err.Error(), config.EnvClientNames) {
			t.Fatalf("an unknown value: %v, want an error naming %s", err, config.EnvClientNames)
		}
	})
	t.Run("LeaseIndex", func(t *testing.T) {
		for v, want := range map[string]bool{"": false, "single": false, "sharded": true} {
			c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvLeaseIndex: v}))
			if err != nil || c.LeaseIndexSharded != want {
				t.Fatalf("%s=%q: sharded %v, %v; want %v", config.EnvLeaseIndex, v, c.LeaseIndexSharded, err, want)
			}
		}
		if _, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvLeaseIndex: "both"})); err == nil ||
			!strings.Contains(err.Error(), config.EnvLeaseIndex) {
			t.Fatalf("an unknown value: %v, want an error naming %s", err, config.EnvLeaseIndex)
		}
	})
	t.Run("EmulatorVariablesOnCloudRun", func(t *testing.T) {
		onCloudRun := map[string]string{config.EnvProjectID: "p", "K_SERVICE": "roomlease-presence", "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099"}
		_, err := config.FromEnv(env(onCloudRun))
		if err == nil || !strings.Contains(err.Error(), "FIREBASE_AUTH_EMULATOR_HOST is set on Cloud Run") {
			t.Fatalf("err %v, want a refusal naming FIREBASE_AUTH_EMULATOR_HOST", err)
		}
		onCloudRun[config.EnvAllowEmulators] = "true"
		if _, err := config.FromEnv(env(onCloudRun)); err != nil {
			t.Fatalf("with the explicit override: %v", err)
		}
		local := map[string]string{config.EnvProjectID: "p", "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099", "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080"}
		c, err := config.FromEnv(env(local))
		if err != nil {
			t.Fatalf("locally, without K_SERVICE: %v", err)
		}
		if want := (httpapi.Emulators{Firestore: "127.0.0.1:8080", Auth: "127.0.0.1:9099"}); c.Emulators != want {
			t.Fatalf("emulators %+v, want %+v", c.Emulators, want)
		}
	})
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"ErrNoProject":                   {map[string]string{}, config.EnvProjectID + " is not set"},
		"ErrDatabaseUppercase":           {map[string]string{config.EnvProjectID: "p", config.EnvDatabase: "RoomLease"}, config.EnvDatabase + `: "RoomLease" is not a Firestore database id`},
		"ErrDatabaseTooShort":            {map[string]string{config.EnvProjectID: "p", config.EnvDatabase: "rl"}, config.EnvDatabase + `: "rl" is not a Firestore database id`},
		"ErrDatabaseEndsWithHyphen":      {map[string]string{config.EnvProjectID: "p", config.EnvDatabase: "roomlease-"}, config.EnvDatabase + `: "roomlease-" is not a Firestore database id`},
		"ErrBadDuration":                 {map[string]string{config.EnvProjectID: "p", config.EnvLease: "15"}, config.EnvLease + `="15" is not a duration`},
		"ErrBadNumber":                   {map[string]string{config.EnvProjectID: "p", config.EnvMaxParticipants: "many"}, config.EnvMaxParticipants},
		"ErrLeaseBelowTwoBeats":          {map[string]string{config.EnvProjectID: "p", config.EnvLease: "8s"}, "at least twice the heartbeat"},
		"ErrTooManyShards":               {map[string]string{config.EnvProjectID: "p", config.EnvRevisionShards: "65"}, "revision shards 65"},
		"ErrRenewShareNotANumber":        {map[string]string{config.EnvProjectID: "p", config.EnvRenewWhenLeft: "half"}, config.EnvRenewWhenLeft + `="half" is not a number`},
		"ErrRenewShareAboveOne":          {map[string]string{config.EnvProjectID: "p", config.EnvRenewWhenLeft: "2"}, "at most 1"},
		"ErrRevocationCheckAboveAMinute": {map[string]string{config.EnvProjectID: "p", config.EnvRevocationCheckEvery: "61s"}, config.EnvRevocationCheckEvery + "=1m1s must be more than 0 and at most 1m0s"},
		"ErrRevocationCheckZero":         {map[string]string{config.EnvProjectID: "p", config.EnvRevocationCheckEvery: "0s"}, config.EnvRevocationCheckEvery},
		"ErrPolicyCacheAboveTenMinutes":  {map[string]string{config.EnvProjectID: "p", config.EnvPolicyCache: "11m"}, "policy cache 11m0s must be between 0 and 10m"},
		"ErrNoSessionsPerUser":           {map[string]string{config.EnvProjectID: "p", config.EnvMaxSessionsPerUser: "0"}, config.EnvMaxSessionsPerUser + `="0" must be at least 1`},
		"ErrNegativeRoomsPerUser":        {map[string]string{config.EnvProjectID: "p", config.EnvMaxRoomsPerUser: "-3"}, config.EnvMaxRoomsPerUser + `="-3" must be at least 1`},
		"ErrRoomsPerUserNotANumber":      {map[string]string{config.EnvProjectID: "p", config.EnvMaxRoomsPerUser: "lots"}, config.EnvMaxRoomsPerUser + `="lots" is not a whole number`},
		"ErrFirestoreEmulatorNoPort":     {map[string]string{config.EnvProjectID: "p", "FIRESTORE_EMULATOR_HOST": "localhost"}, `FIRESTORE_EMULATOR_HOST: "localhost" is not host:port`},
		"ErrAuthEmulatorURL":             {map[string]string{config.EnvProjectID: "p", "FIREBASE_AUTH_EMULATOR_HOST": "http://127.0.0.1:9099"}, `FIREBASE_AUTH_EMULATOR_HOST: "http://127.0.0.1:9099" is not host:port`},
		// 0.3 × 15 s = 4.5 s: a client on a 5 s schedule could skip past its lease end.
		"ErrRenewWindowBelowOneBeat": {map[string]string{config.EnvProjectID: "p", config.EnvRenewWhenLeft: "0.3"}, "less than the heartbeat interval 5s"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := config.FromEnv(env(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
