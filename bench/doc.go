// Package bench is roomlease's benchmark: a load generator that drives the
// real local stack over HTTP and watches it through Firestore listeners, the
// store-level measurements (operation counts, sweeper cost, the naive
// baseline), and the report (JSON, Markdown, SVG plots).
//
// Nothing here asserts on time: the numbers are reported, not judged, except
// for counts that cannot depend on timing (false removals, per-operation
// reads and writes), which the tests check.
//
// Where things are:
//
//   - run.go: Options and RunScenarios, which cmd/roomlease-load calls;
//     stack.go starts roomlease-dev and Firestore clients for a scenario.
//   - scenario_NAME.go: one file per scenario of scripts/bench (ops, load,
//     settings, sweep, naive, soak, fleet, chaos, abuse): what it runs and which files it
//     writes. The fleet (crowds through several roomlease-dev processes) is
//     started by cmd/roomlease-load beside RunScenarios, and its parts are in
//     fleet_*.go: the bursts, the two cases, their statistics and checks.
//     So is the chaos (users churning through several processes while they
//     are killed and frozen), in chaos_*.go: the processes and the chaos
//     loop, the users, the reads of the emulator, and the verdicts.
//   - package workload: the HTTP load generator the load, settings, soak,
//     naive, fleet and chaos scenarios drive (Workload.Run and its phases,
//     the simulated user, the report); api.go is its HTTP client, watch.go
//     its Firestore listeners, server.go the roomlease-dev process and its
//     memory, stats.go distributions and percentiles.
//   - ops.go, sweepcost.go, compare.go: the in-process store measurements
//     (per-operation counts, the sweeper's cost, the naive comparison).
//   - render_*.go: every Markdown table and plot of a report, and the
//     result files written; the SVG line charts and the writing of JSON are
//     package render, which knows no scenario.
package bench
