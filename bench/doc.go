// Package bench is roomlease's benchmark: the scenarios of scripts/bench
// that drive the real local stack over HTTP and watch it through Firestore
// listeners, or measure the store in process, and the reports they write
// (JSON, Markdown, SVG plots).
//
// Nothing here asserts on time: the numbers are reported, not judged, except
// for counts that cannot depend on timing (false removals, per-operation
// reads and writes), which the tests check.
//
// Where things are:
//
//   - run.go: RunScenarios, which cmd/roomlease-load calls, and
//     scenario_NAME.go, one file per scenario (ops, load, settings, sweep,
//     naive, soak, cost, abuse, fanout, rollout): what it runs and which files it
//     writes; instance_time.go, how the cost scenario bills Presence's
//     instance time as Cloud Run does.
//   - render_*.go: each scenario's Markdown tables and plots.
//   - package harness: what every run shares: Options (the flags of
//     cmd/roomlease-load), roomlease-dev and Firestore clients for a
//     scenario, and the writing of NAME.json, NAME.md and NAME.svg.
//   - package workload: the HTTP load generator the load, settings, soak,
//     naive, abuse, fleet and chaos runs drive (Workload.Run and its
//     phases, the simulated user, the report); api.go is its HTTP client,
//     watch.go its Firestore listeners, server.go the roomlease-dev process
//     and its memory, cpu.go its CPU time, stats.go distributions and
//     percentiles.
//   - package measure: the store measured in process (per-operation counts,
//     the sweeper's cost, a counted participant-hour, the three designs of
//     the naive comparison, the rollout's classification against the
//     workload's ground truth).
//   - package fleet: crowds joining and leaving one room through several
//     roomlease-dev processes (the bursts, the two cases, their statistics,
//     checks and report). cmd/roomlease-load starts it beside RunScenarios.
//   - package chaos: users churning through several processes while they
//     are killed and frozen (the processes and the chaos loop, the users,
//     the reads of the emulator, the verdicts and the report); also started
//     by cmd/roomlease-load.
//   - package fanout: what a change costs a room's listeners, and an hour
//     of heartbeats in the foreground and away.
//   - package emuprofile: where the Firestore emulator's CPU goes, from
//     jstack dumps taken while a run goes on (scripts/bench
//     --profile-emulator).
//   - package sharedreads: the Firestore emulator alone, timing bare
//     transactions that read documents in common (scripts/bench
//     sharedreads runs it as a Go benchmark).
//   - package naive: the naive baseline; package render: the SVG line
//     charts, the shared Markdown cells and the writing of JSON. Neither
//     knows a scenario.
package bench
