package config_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/config"
)

func TestFromEnv_ServiceReads(t *testing.T) {
	t.Run("OffByDefault", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p",
			config.EnvServiceAudience: "https://api.example"}))
		if err != nil || c.ServiceReads.Enabled() {
			t.Fatalf("no accounts: %+v, %v", c.ServiceReads, err)
		}
	})
	t.Run("AccountsAndAudience", func(t *testing.T) {
		c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p",
			config.EnvServiceAccounts: " a@p.iam.gserviceaccount.com, b@p.iam.gserviceaccount.com ,",
			config.EnvServiceAudience: "https://api.example"}))
		if err != nil || len(c.ServiceReads.Accounts) != 2 || c.ServiceReads.Accounts[1] != "b@p.iam.gserviceaccount.com" ||
			c.ServiceReads.Audience != "https://api.example" {
			t.Fatalf("got %+v, %v", c.ServiceReads, err)
		}
	})
	for name, tc := range map[string]struct {
		vars map[string]string
		name string
	}{
		"NotAnEmail":      {map[string]string{config.EnvServiceAccounts: "backend", config.EnvServiceAudience: "x"}, config.EnvServiceAccounts},
		"TwoAts":          {map[string]string{config.EnvServiceAccounts: "a@b@c", config.EnvServiceAudience: "x"}, config.EnvServiceAccounts},
		"NoAudience":      {map[string]string{config.EnvServiceAccounts: "a@p.iam.gserviceaccount.com"}, config.EnvServiceAudience},
		"SpaceInAudience": {map[string]string{config.EnvServiceAccounts: "a@p.iam.gserviceaccount.com", config.EnvServiceAudience: "https://a b"}, config.EnvServiceAudience},
	} {
		t.Run(name, func(t *testing.T) {
			tc.vars[config.EnvProjectID] = "p"
			if _, err := config.FromEnv(env(tc.vars)); err == nil || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("got %v, want an error naming %s", err, tc.name)
			}
		})
	}
}
