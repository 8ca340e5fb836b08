package emuprofile

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Profile is what a recording's samples add up to.
type Profile struct {
	Samples int
	Classes map[string]int // samples per class
	// Phases splits the samples by the phase the run was in when each was
	// taken, in the order the phases came; samples outside any phase are
	// in the whole only.
	Phases []*Phase
}

// Phase is the part of a Profile taken during one named phase of a run.
type Phase struct {
	Name    string
	Seconds float64 // how long the run was in it
	Samples int
	Classes map[string]int
}

// rpcFrame names the Firestore RPC a request thread serves: the emulator's
// router has one method per RPC (runQuery, commit, batchGetDocuments …).
var rpcFrame = regexp.MustCompile(`CloudFirestoreV1Router\.(\w+)$`)

// Classes of samples that serve no Firestore RPC, and the mark of work in
// the emulator's lock manager.
const (
	ClassTransport = "(gRPC and Netty, outside a request handler)"
	ClassOther     = "(other)"
	lockSuffix     = ", in the lock manager"
)

// classOf classes one sample by its frames (innermost first): the
// Firestore RPC on the stack, marked when the emulator's lock manager
// (ReactiveLockManager, which keeps every transaction's locks in one
// table) is on it too; else transport work; else other.
func classOf(frames []string) string {
	locks := false
	for _, f := range frames {
		if strings.Contains(f, "ReactiveLockManager.") {
			locks = true
		}
		if m := rpcFrame.FindStringSubmatch(f); m != nil {
			if locks {
				return m[1] + lockSuffix
			}
			return m[1]
		}
	}
	for _, f := range frames {
		if strings.HasPrefix(f, "io/grpc/") || strings.HasPrefix(f, "io/netty/") {
			return ClassTransport
		}
	}
	return ClassOther
}

// profileOf adds samples up, whole and per phase (marks in time order).
func profileOf(samples []sample, marks []mark) Profile {
	p := Profile{Classes: map[string]int{}}
	byName := map[string]*Phase{}
	for i, m := range marks {
		if m.name == "" {
			continue
		}
		ph := byName[m.name]
		if ph == nil {
			ph = &Phase{Name: m.name, Classes: map[string]int{}}
			byName[m.name] = ph
			p.Phases = append(p.Phases, ph)
		}
		if i+1 < len(marks) {
			ph.Seconds += marks[i+1].at.Sub(m.at).Seconds()
		}
	}
	for _, s := range samples {
		c := classOf(s.frames)
		p.Classes[c]++
		p.Samples++
		// The phase is the last mark at or before the sample.
		i := sort.Search(len(marks), func(i int) bool { return marks[i].at.After(s.at) })
		if i == 0 || marks[i-1].name == "" {
			continue
		}
		ph := byName[marks[i-1].name]
		ph.Classes[c]++
		ph.Samples++
	}
	return p
}

// Text is the profile as tables, the whole first, most samples first,
// under title.
func (p Profile) Text(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", title)
	b.WriteString("Method: Java Flight Recorder on the emulator's JVM (settings=profile: a running Java thread's stack\n")
	b.WriteString("every 10 to 20 ms); each sample is classed by the Firestore RPC on its stack\n")
	b.WriteString("(CloudFirestoreV1Router.<method>), marked \"in the lock manager\" when the emulator's lock manager is\n")
	b.WriteString("on it too, or as transport work outside a request. The JVM's compiler and collector threads are not\n")
	b.WriteString("sampled. The recorder costs little, but a profiled run's latencies are still not results.\n\n")
	fmt.Fprintf(&b, "samples: %d\n", p.Samples)
	writeClasses(&b, p.Classes, p.Samples)
	for _, ph := range p.Phases {
		fmt.Fprintf(&b, "\n%s: %.1f s, %d samples\n", ph.Name, ph.Seconds, ph.Samples)
		writeClasses(&b, ph.Classes, ph.Samples)
	}
	return b.String()
}

// writeClasses lists classes, most samples first, with their share.
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
