// Command roomlease-load is roomlease's benchmark: it drives the real local
// stack (roomlease-dev on the Firestore and Auth emulators) over HTTP, watches
// it through Firestore listeners as clients do, measures the store in
// process, and writes a JSON report, a Markdown report and SVG plots.
//
// It expects FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST; it
// starts (and stops, by PID) the roomlease-dev binary given by -server-bin
// for each scenario that needs one. scripts/bench does all of that:
//
//	scripts/bench all            # every benchmark but the soak
//	scripts/bench soak --duration 30m
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/roomlease/roomlease/bench"
)

func main() {
	var o bench.Options
	flag.StringVar(&o.ServerBin, "server-bin", "", "the roomlease-dev binary (built from ./cmd/roomlease-dev)")
	flag.StringVar(&o.OutDir, "out", "bench/results", "directory for the JSON, Markdown and SVG output")
	flag.StringVar(&o.Project, "project", "demo-roomlease", "Firestore/Auth project the server uses")
	flag.DurationVar(&o.Duration, "duration", 30*time.Minute, "soak duration")
	flag.IntVar(&o.SoakClients, "clients", 200, "soak: simulated clients")
	sizes := flag.String("sizes", "", "naive: comma-separated room sizes (default 10,50,100,200,500)")
	flag.IntVar(&o.Rounds, "rounds", 0, "naive: heartbeat rounds per participant (default 3)")
	flag.BoolVar(&o.Quick, "quick", false, "smaller rooms and shorter phases (a smoke run)")
	flag.Parse()
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
	if err := bench.RunScenarios(ctx, o, scenarios); err != nil {
		fmt.Fprintln(os.Stderr, "roomlease-load:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "roomlease-load: wrote %s (%s)\n", o.OutDir, strings.Join(scenarios, ", "))
}
