// Package emuprofile samples where the Firestore emulator's CPU goes while
// a benchmark runs: a thread dump of the emulator's JVM (jstack) at a
// steady rate, each running thread one sample, classed by the Firestore
// RPC its stack is serving. scripts/bench --profile-emulator turns it on
// (cmd/roomlease-load -profile-emulator-pid) and writes
// emulator-profile.txt beside the run's results.
//
// A thread dump pauses the JVM for a moment, so the latencies of a profiled
// run are not results; the profile is.
package emuprofile

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Profile is what the samples add up to.
type Profile struct {
	Dumps   int            // thread dumps taken
	Failed  int            // dumps that jstack could not take
	Samples int            // running threads seen, over all dumps
	Classes map[string]int // samples per class
	// Phases splits the samples by the phase the run was in when each dump
	// was taken (Sample's phase), in the order the phases came; dumps
	// taken outside any phase are in the whole only.
	Phases []*Phase
}

// Phase is the part of a Profile taken during one named phase of a run.
type Phase struct {
	Name    string
	Dumps   int
	Samples int
	Classes map[string]int
}

// Sample takes a thread dump of pid every period until ctx ends, and
// returns what they add up to, split by phase: before each dump it asks
// phase (when not nil) which phase the run is in, "" for none. It needs
// jstack on the PATH and pid to be a JVM of the same user (the gcloud
// emulator jar run by java, as emulator/emulators.sh runs it).
func Sample(ctx context.Context, pid int, period time.Duration, phase func() string) Profile {
	p := Profile{Classes: map[string]int{}}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		name := ""
		if phase != nil {
			name = phase()
		}
		out, err := exec.CommandContext(ctx, "jstack", fmt.Sprint(pid)).Output()
		if ctx.Err() != nil {
			return p
		}
		if err != nil {
			p.Failed++
		} else {
			p.add(name, Classify(string(out)))
		}
		select {
		case <-ctx.Done():
			return p
		case <-tick.C:
		}
	}
}

// add counts one dump's classes, in the whole and in phase name.
func (p *Profile) add(name string, classes map[string]int) {
	p.Dumps++
	var ph *Phase
	if name != "" {
		for _, q := range p.Phases {
			if q.Name == name {
				ph = q
			}
		}
		if ph == nil {
			ph = &Phase{Name: name, Classes: map[string]int{}}
			p.Phases = append(p.Phases, ph)
		}
		ph.Dumps++
	}
	for c, n := range classes {
		p.Classes[c] += n
		p.Samples += n
		if ph != nil {
			ph.Classes[c] += n
			ph.Samples += n
		}
	}
}

// A thread whose top frame is one of these waits (for the network, a
// lock, a queue, the JVM's reference list) rather than runs, though the
// dump says RUNNABLE.
var idleFrame = regexp.MustCompile(`epollWait|EPoll\.wait|\.accept|Unsafe\.park|socketRead|\.poll0|Object\.wait|Thread\.sleep|waitForReferencePendingList`)

// rpcFrame names the Firestore RPC a request thread serves: the emulator's
// router has one method per RPC (runQuery, commit, batchGetDocuments …).
var rpcFrame = regexp.MustCompile(`CloudFirestoreV1Router\.(\w+)`)

// Classes of running threads that serve no Firestore RPC.
const (
	ClassTransport = "(gRPC and Netty, outside a request handler)"
	ClassCompiler  = "(the JVM's compilers and collector)"
	ClassOther     = "(other)"
)

// Classify counts the running threads of one jstack dump by class: the
// Firestore RPC on the stack, else transport work, else the JVM's own
// threads (compilers and garbage collector, which have no Java frames).
func Classify(dump string) map[string]int {
	out := map[string]int{}
	for _, thread := range strings.Split(dump, "\n\n") {
		if !strings.Contains(thread, "java.lang.Thread.State: RUNNABLE") {
			continue
		}
		var frames []string
		for _, line := range strings.Split(thread, "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "at ") {
				frames = append(frames, line)
			}
		}
		switch {
		case len(frames) == 0:
			// Native JVM threads: a compiler or collector at work shows a
			// CPU time that grows, but no frame; idle ones look the same.
			// Only those that say what they are doing are counted.
			if strings.Contains(thread, "Compiling:") {
				out[ClassCompiler]++
			}
		case idleFrame.MatchString(frames[0]):
		default:
			out[classOf(frames)]++
		}
	}
	return out
}

func classOf(frames []string) string {
	for _, f := range frames {
		if m := rpcFrame.FindStringSubmatch(f); m != nil {
			return m[1]
		}
	}
	for _, f := range frames {
		if strings.Contains(f, "io.grpc.") || strings.Contains(f, "io.netty.") {
			return ClassTransport
		}
	}
	return ClassOther
}

// Text is the profile as a table, most samples first, under title.
func (p Profile) Text(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", title)
	fmt.Fprintf(&b, "Method: jstack of the Firestore emulator's JVM once a second (%d dumps", p.Dumps)
	if p.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", p.Failed)
	}
	b.WriteString("); every thread in state RUNNABLE whose top\n")
	b.WriteString("frame is not a wait (epoll, accept, park, socket read) is one sample, classed by the Firestore RPC\n")
	b.WriteString("handler on its stack (CloudFirestoreV1Router.<method>), or as transport work outside one, or as\n")
	b.WriteString("the JVM's compilers. The dumps pause the JVM: the run's latencies are not results.\n\n")
	fmt.Fprintf(&b, "samples of a running emulator thread: %d\n", p.Samples)
	writeClasses(&b, p.Classes, p.Samples)
	for _, ph := range p.Phases {
		fmt.Fprintf(&b, "\n%s: %d dumps, %d samples (%.1f running threads a dump)\n", ph.Name, ph.Dumps, ph.Samples, float64(ph.Samples)/float64(max(ph.Dumps, 1)))
		writeClasses(&b, ph.Classes, ph.Samples)
	}
	return b.String()
}

// writeClasses lists classes, most samples first, with their share of
// samples.
func writeClasses(b *strings.Builder, classes map[string]int, samples int) {
	names := make([]string, 0, len(classes))
	for c := range classes {
		names = append(names, c)
	}
	slices.SortFunc(names, func(x, y string) int {
		if d := classes[y] - classes[x]; d != 0 {
			return d
		}
		return strings.Compare(x, y)
	})
	for _, c := range names {
		fmt.Fprintf(b, "%7d %6.1f%%  %s\n", classes[c], 100*float64(classes[c])/float64(max(samples, 1)), c)
	}
}
