// Package workload is the benchmark's load generator: simulated users who
// join, heartbeat, read and leave rooms through the real HTTP API (api.go,
// the Go client underneath), Firestore listeners that watch each room as a
// client does (watch.go), the phases of a run (Workload.Run) and the report
// it returns. It also starts and samples the roomlease-dev process
// (server.go) and holds the distributions every scenario reports in
// (stats.go).
//
// It knows no scenario: package bench, the fleet and the chaos run choose
// the settings, run it and render what it measured. It also signs up many
// users at once (SignUpAll) and names a request's outcome (Result.Outcome)
// for them.
package workload
