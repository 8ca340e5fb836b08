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
	// The emulators' process groups (scripts/bench passes their PIDs,
	// which lead their groups): what a run measures their CPU time by.
	// Zero when not known.
	FirestorePID, AuthPID int
	// Phase, when set, is told the name of the phase a run enters (a
	// burst of the fleet), and "" when it leaves it: the emulator's
	// profile is split by it.
	Phase func(name string)
}

// EnterPhase tells o.Phase, if any, that the run entered phase name ("" for
// none).
func (o Options) EnterPhase(name string) {
	if o.Phase != nil {
		o.Phase(name)
	}
}
