package emuprofile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// recordingName names the recording in the JVM, for jcmd.
const recordingName = "roomlease-bench"

// Recording is a flight recording of the emulator's JVM under way, with
// the phases the run marked.
type Recording struct {
	pid   int
	mu    sync.Mutex
	marks []mark
}

type mark struct {
	at   time.Time
	name string // "": outside any phase
}

// Start starts a flight recording of the JVM pid (the gcloud emulator jar
// run by java, as emulator/emulators.sh runs it; jcmd must be on the
// PATH and the JVM the same user's).
func Start(ctx context.Context, pid int) (*Recording, error) {
	out, err := exec.CommandContext(ctx, "jcmd", fmt.Sprint(pid), "JFR.start", "name="+recordingName, "settings=profile").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("jcmd JFR.start: %w: %s", err, out)
	}
	return &Recording{pid: pid}, nil
}

// Mark notes that the run entered phase name now ("" for none).
func (r *Recording) Mark(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.marks = append(r.marks, mark{at: time.Now(), name: name})
}

// Stop dumps and stops the recording, and returns what its samples add up
// to. It needs jfr on the PATH.
func (r *Recording) Stop(ctx context.Context) (Profile, error) {
	dir, err := os.MkdirTemp("", "roomlease-jfr")
	if err != nil {
		return Profile{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "emulator.jfr")
	out, err := exec.CommandContext(ctx, "jcmd", fmt.Sprint(r.pid), "JFR.stop", "name="+recordingName, "filename="+file).CombinedOutput()
	if err != nil {
		return Profile{}, fmt.Errorf("jcmd JFR.stop: %w: %s", err, out)
	}
	cmd := exec.CommandContext(ctx, "jfr", "print", "--json", "--stack-depth", "128", "--events", "jdk.ExecutionSample", file)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Profile{}, err
	}
	if err := cmd.Start(); err != nil {
		return Profile{}, fmt.Errorf("jfr print: %w", err)
	}
	samples, decodeErr := decodeSamples(stdout)
	if err := cmd.Wait(); err != nil {
		return Profile{}, fmt.Errorf("jfr print: %w", err)
	}
	if decodeErr != nil {
		return Profile{}, decodeErr
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return profileOf(samples, r.marks), nil
}

// sample is one execution sample: when, and the stack's frames, innermost
// first, as "package/Class.method".
type sample struct {
	at     time.Time
	frames []string
}

// jfrPrint is the part of `jfr print --json` read here.
type jfrPrint struct {
	Recording struct {
		Events []struct {
			Values struct {
				StartTime  time.Time `json:"startTime"`
				StackTrace *struct {
					Frames []struct {
						Method struct {
							Type struct {
								Name string `json:"name"`
							} `json:"type"`
							Name string `json:"name"`
						} `json:"method"`
					} `json:"frames"`
				} `json:"stackTrace"`
			} `json:"values"`
		} `json:"events"`
	} `json:"recording"`
}

func decodeSamples(r io.Reader) ([]sample, error) {
	var p jfrPrint
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("reading jfr print's JSON: %w", err)
	}
	out := make([]sample, 0, len(p.Recording.Events))
	for _, e := range p.Recording.Events {
		s := sample{at: e.Values.StartTime}
		if st := e.Values.StackTrace; st != nil {
			for _, f := range st.Frames {
				s.frames = append(s.frames, f.Method.Type.Name+"."+f.Method.Name)
			}
		}
		out = append(out, s)
	}
	return out, nil
}
