// Package harness is what every benchmark run shares: its options (the
// flags of cmd/roomlease-load), the local stack a run starts (roomlease-dev
// on the emulators, Firestore clients), and the writing of its results
// (NAME.json, NAME.md, NAME.svg in the output directory).
//
// It knows no scenario; the scenarios (package bench), the fleet and the
// chaos run are built on it.
package harness

import "time"

// Options configure a benchmark invocation.
type Options struct {
	ServerBin     string
	OutDir        string
	Project       string
	FirestoreHost string
	AuthHost      string
	Duration      time.Duration // soak
	SoakClients   int
	Quick         bool
	Sizes         []int // naive: room sizes (default 10, 50, 100, 200, 500)
	Rounds        int   // naive: heartbeat rounds per participant (default 3)
	Log           func(string)
}
