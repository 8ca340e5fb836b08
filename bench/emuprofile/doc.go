// Package emuprofile records where the Firestore emulator's CPU goes while
// a benchmark runs, with the JVM's own sampling profiler (Java Flight
// Recorder, started and dumped with jcmd, read with jfr): a Java thread's
// stack every 10 to 20 ms, each sample classed by the Firestore RPC its
// stack serves, with the emulator's lock manager apart, and split by the
// phases the run marks (a burst of the fleet). scripts/bench
// --profile-emulator turns it on (cmd/roomlease-load
// -profile-emulator-pid) and writes emulator-profile.txt beside the run's
// results.
//
// The recorder's overhead is small, but a profiled run's latencies are
// still not results; the profile is.
package emuprofile
