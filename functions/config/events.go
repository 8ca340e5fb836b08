package config

import (
	"fmt"
	"regexp"
	"strings"
)

// EnvEventsTopic is the Pub/Sub topic (an id in the functions' project)
// that presence events are published on (docs/events.md). Unset: no
// events, no outbox, no cost.
const EnvEventsTopic = "ROOMLEASE_EVENTS_TOPIC"

// topicIDPattern is Pub/Sub's rule for a topic id: 3–255 characters,
// starting with a letter, of letters, digits and - _ . ~ + %.
var topicIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._~+%-]{2,254}$`)

// readEvents reads the events settings into c.
func readEvents(getenv func(string) string, c *Config) []error {
	v := getenv(EnvEventsTopic)
	if v == "" {
		return nil
	}
	// A full name would be a natural thing to paste from the console; the
	// topic must be in the functions' project, so only its id is taken.
	if !topicIDPattern.MatchString(v) || strings.HasPrefix(strings.ToLower(v), "goog") {
		return []error{fmt.Errorf("%s=%q is not a Pub/Sub topic id: 3-255 letters, digits and - _ . ~ + %%, starting with a letter and not with \"goog\" (the id, not projects/.../topics/...)", EnvEventsTopic, v)}
	}
	c.EventsTopic = v
	return nil
}
