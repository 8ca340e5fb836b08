// Package eventsintegration holds only tests: presence events end to end,
// from requests to the HTTP API of the real dev server to a subscriber on
// the Pub/Sub emulator's topic (docs/events.md).
package eventsintegration
