package config_test

import (
	"strings"
	"testing"

	"github.com/roomlease/roomlease/functions/config"
)

func TestFromEnv_EventsTopic(t *testing.T) {
	base := map[string]string{config.EnvProjectID: "p"}
	get := func(extra map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return base[k]
		}
	}
	t.Run("OffByDefault", func(t *testing.T) {
		c, err := config.FromEnv(get(nil))
		if err != nil || c.EventsTopic != "" {
			t.Fatalf("topic %q, %v; want none", c.EventsTopic, err)
		}
	})
	t.Run("ATopicID", func(t *testing.T) {
		c, err := config.FromEnv(get(map[string]string{config.EnvEventsTopic: "roomlease-events"}))
		if err != nil || c.EventsTopic != "roomlease-events" {
			t.Fatalf("topic %q, %v", c.EventsTopic, err)
		}
	})
	for _, bad := range []string{"projects/p/topics/roomlease-events", "ab", "1events", "goog-events"} {
		t.Run("Refuses/"+bad, func(t *testing.T) {
			if _, err := config.FromEnv(get(map[string]string{config.EnvEventsTopic: bad})); err == nil || !strings.Contains(err.Error(), config.EnvEventsTopic) {
				t.Fatalf("%q: %v, want an error naming %s", bad, err, config.EnvEventsTopic)
			}
		})
	}
}
