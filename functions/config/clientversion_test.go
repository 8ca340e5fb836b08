package config_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/config"
)

func TestFromEnv_MinClientVersion(t *testing.T) {
	c, err := config.FromEnv(env(map[string]string{config.EnvProjectID: "p"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MinClientVersions) != 0 {
		t.Errorf("minimum client versions %v by default, want none (serve every client)", c.MinClientVersions)
	}
	c, err = config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvMinClientVersion: "js/0.2.0,go/0.1.0"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.MinClientVersions["js"].String() != "0.2.0" || c.MinClientVersions["go"].String() != "0.1.0" {
		t.Errorf("got %v", c.MinClientVersions)
	}
	_, err = config.FromEnv(env(map[string]string{config.EnvProjectID: "p", config.EnvMinClientVersion: "0.2.0"}))
	if err == nil || !strings.Contains(err.Error(), config.EnvMinClientVersion) {
		t.Fatalf("err %v, want it to name %s", err, config.EnvMinClientVersion)
	}
}
