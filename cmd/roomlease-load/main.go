// Command roomlease-load is roomlease's benchmark: it drives the real local
// stack (roomlease-dev on the Firestore and Auth emulators) over HTTP, watches
// it through Firestore listeners as clients do, measures the store in
// process, and writes a JSON report, a Markdown report and SVG plots.
//
// It expects FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST; it
// starts (and stops, by PID) the roomlease-dev binary given by -server-bin
// for each scenario that needs one. scripts/bench does all of that:
//
//	scripts/bench all            # every benchmark but the soak and the fleet
//	scripts/bench soak --duration 30m
//	scripts/bench fanout         # what a change costs the room's listeners (in all)
//	scripts/bench fleet          # crowds through several processes
//	scripts/bench chaos          # processes killed and frozen under churn (10 min)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/roomlease/roomlease/bench"
	"github.com/roomlease/roomlease/bench/chaos"
	"github.com/roomlease/roomlease/bench/emuprofile"
	"github.com/roomlease/roomlease/bench/fleet"
	"github.com/roomlease/roomlease/bench/harness"
)

func main() {
	var o harness.Options
	flag.StringVar(&o.ServerBin, "server-bin", "", "the roomlease-dev binary (built from ./cmd/roomlease-dev)")
	flag.StringVar(&o.OutDir, "out", "bench/results", "directory for the JSON, Markdown and SVG output")
	flag.StringVar(&o.Project, "project", "demo-roomlease", "Firestore/Auth project the server uses")
	flag.DurationVar(&o.Duration, "duration", 30*time.Minute, "soak duration")
	flag.IntVar(&o.SoakClients, "clients", 200, "soak: simulated clients")
	sizes := flag.String("sizes", "", "naive: comma-separated room sizes (default 10,50,100,200,500)")
	flag.IntVar(&o.Rounds, "rounds", 0, "naive: heartbeat rounds per participant (default 3)")
	flag.BoolVar(&o.Quick, "quick", false, "smaller rooms and shorter phases (a smoke run)")
	var fc fleet.Config
	flag.IntVar(&fc.Port, "fleet-port", 0, "fleet: first roomlease-dev port; process i listens on it + i (0: free ports)")
	fleetProcesses := flag.String("fleet-processes", "", "fleet: comma-separated process counts (default 1,2,4,8)")
	fleetCrowds := flag.String("fleet-crowds", "", "fleet: comma-separated crowd sizes (default 200,500)")
	cc := chaos.DefaultConfig()
	flag.IntVar(&cc.Processes, "chaos-processes", cc.Processes, "chaos: roomlease-dev processes (on -fleet-port and up)")
	flag.IntVar(&cc.Users, "chaos-users", cc.Users, "chaos: simulated users")
	flag.Uint64Var(&cc.Seed, "seed", cc.Seed, "chaos: seed of the users' and the chaos loop's draws")
	flag.IntVar(&o.FirestorePID, "firestore-pid", 0, "the Firestore emulator's PID, leading its process group: the fleet reports its CPU time")
	flag.IntVar(&o.AuthPID, "auth-pid", 0, "the Auth emulator's PID, leading its process group: the fleet reports its CPU time")
	profilePID := flag.Int("profile-emulator-pid", 0, "record the Firestore emulator's JVM (this PID) with the flight recorder, into emulator-profile.txt")
	flag.Parse()
	fc.Processes, fc.Crowds = positiveInts(*fleetProcesses), positiveInts(*fleetCrowds)
	cc.Port = fc.Port
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "duration" {
			cc.Duration = o.Duration // else the chaos default, 10 minutes
		}
	})
	for _, f := range strings.Split(*sizes, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			o.Sizes = append(o.Sizes, n)
		}
	}
	scenarios := flag.Args()
	if len(scenarios) == 0 {
		scenarios = []string{"all"}
	}
	o.FirestoreHost = os.Getenv("FIRESTORE_EMULATOR_HOST")
	o.AuthHost = os.Getenv("FIREBASE_AUTH_EMULATOR_HOST")
	if o.FirestoreHost == "" || o.AuthHost == "" {
		fmt.Fprintln(os.Stderr, "roomlease-load: FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST must be set (scripts/bench sets them)")
		os.Exit(2)
	}
	o.Log = func(s string) { fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), s) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *profilePID > 0 {
		defer profileEmulator(ctx, &o, *profilePID, scenarios)()
	}
	// The fleet and the chaos run apart from RunScenarios: they start
	// processes of their own and are not part of "all".
	others := slices.DeleteFunc(slices.Clone(scenarios), func(s string) bool { return s == "fleet" || s == "chaos" })
	if len(others) > 0 {
		if err := bench.RunScenarios(ctx, o, others); err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-load:", err)
			os.Exit(1)
		}
	}
	if slices.Contains(scenarios, "fleet") {
		o.Log("== fleet")
		if err := fleet.Run(ctx, o, fc); err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-load: fleet:", err)
			os.Exit(1)
		}
	}
	if slices.Contains(scenarios, "chaos") {
		o.Log("== chaos")
		if err := chaos.Run(ctx, o, cc); err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-load: chaos:", err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "roomlease-load: wrote %s (%s)\n", o.OutDir, strings.Join(scenarios, ", "))
}

func positiveInts(list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// profileEmulator records the emulator with the JVM's flight recorder
// while the scenarios run, split by the phases the run marks (o.Phase);
// the function it returns stops the recording and writes the profile. A
// run that fails leaves through os.Exit, which skips deferred calls, so it
// writes no profile.
func profileEmulator(ctx context.Context, o *harness.Options, pid int, scenarios []string) func() {
	rec, err := emuprofile.Start(ctx, pid)
	if err != nil {
		fmt.Fprintln(os.Stderr, "roomlease-load: profiling the emulator:", err)
		return func() {}
	}
	o.Phase = rec.Mark
	return func() {
		p, err := rec.Stop(context.WithoutCancel(ctx))
		if err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-load: the emulator's profile:", err)
			return
		}
		title := fmt.Sprintf("Where the Firestore emulator's CPU went during roomlease-load %s (%s)",
			strings.Join(scenarios, " "), time.Now().UTC().Format(time.RFC3339))
		path := filepath.Join(o.OutDir, "emulator-profile.txt")
		err = os.MkdirAll(o.OutDir, 0o755)
		if err == nil {
			err = os.WriteFile(path, []byte(p.Text(title)), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "roomlease-load: the emulator's profile:", err)
			return
		}
		fmt.Fprintf(os.Stderr, "roomlease-load: wrote %s (%d samples)\n", path, p.Samples)
	}
}
