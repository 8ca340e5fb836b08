package workload

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a roomlease-dev process this package started.
type Server struct {
	URL  string
	PID  int
	cmd  *exec.Cmd
	done chan struct{}
}

// FreePort returns a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartServer starts the roomlease-dev binary bin on a free port with env
// added to this process's environment, logging to logPath, and waits for
// /healthz. The process gets its own process group; Stop signals only it.
func StartServer(ctx context.Context, bin string, env map[string]string, logPath string, args ...string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	return StartServerOnPort(ctx, bin, port, env, logPath, args...)
}

// StartServerOnPort is StartServer on a port chosen by the caller (the fleet
// scenario takes its ports from a base the operator picked, so that a shared
// machine's port ranges stay apart).
func StartServerOnPort(ctx context.Context, bin string, port int, env map[string]string, logPath string, args ...string) (*Server, error) {
	cmd := exec.Command(bin, append([]string{"-host", "127.0.0.1", "-port", strconv.Itoa(port)}, args...)...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), PID: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("roomlease-dev exited at start-up; see %s", logPath)
		default:
		}
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("roomlease-dev did not answer /healthz within 60s; see %s", logPath)
}

// Exited reports whether the process has ended.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Stop terminates the server's process group (SIGTERM, then SIGKILL). A
// process stopped with Freeze is continued first, so that it can act on
// the SIGTERM and the wait does not run into the 10 s fallback.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	_ = syscall.Kill(-s.PID, syscall.SIGCONT)
	_ = syscall.Kill(-s.PID, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.PID, syscall.SIGKILL)
		<-s.done
	}
}

// ProcessID is the server's PID, 0 for a nil server.
func (s *Server) ProcessID() int {
	if s == nil {
		return 0
	}
	return s.PID
}

// Kill ends the server's process group with SIGKILL, as a crashed
// instance ends: no shutdown, requests in flight cut off. It returns once
// the process has been reaped.
func (s *Server) Kill() {
	_ = syscall.Kill(-s.PID, syscall.SIGKILL)
	<-s.done
}

// Freeze stops the server's process group with SIGSTOP: it keeps its
// connections and its requests in flight but does nothing until Thaw, as
// an instance stalled by its host would.
func (s *Server) Freeze() error { return syscall.Kill(-s.PID, syscall.SIGSTOP) }

// Thaw continues a frozen server (SIGCONT).
func (s *Server) Thaw() error { return syscall.Kill(-s.PID, syscall.SIGCONT) }

// RSSSampler samples a process's resident memory (VmRSS).
type RSSSampler struct {
	mu      sync.Mutex
	Samples []RSSSample
	stop    chan struct{}
	wg      sync.WaitGroup
}

// RSSSample is one reading.
type RSSSample struct {
	AtSeconds float64 `json:"atSeconds"`
	KiB       int64   `json:"kib"`
}

// ReadRSS returns pid's VmRSS in KiB.
func ReadRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// SampleRSS starts sampling pid every interval until Stop.
func SampleRSS(pid int, interval time.Duration) *RSSSampler {
	r := &RSSSampler{stop: make(chan struct{})}
	start := time.Now()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if kib, err := ReadRSS(pid); err == nil {
				r.mu.Lock()
				r.Samples = append(r.Samples, RSSSample{AtSeconds: time.Since(start).Seconds(), KiB: kib})
				r.mu.Unlock()
			}
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// MemoryReport summarizes RSS samples.
type MemoryReport struct {
	Samples int   `json:"samples"`
	FirstKB int64 `json:"firstKiB"`
	PeakKB  int64 `json:"peakKiB"`
	LastKB  int64 `json:"lastKiB"`
	// WarmKB is the median of the samples in the second tenth of the run
	// (after start-up and the first joins), LateKB that of the last tenth;
	// GrowthKB = LateKB - WarmKB.
	WarmKB   int64       `json:"warmKiB"`
	LateKB   int64       `json:"lateKiB"`
	GrowthKB int64       `json:"growthKiB"`
	Series   []RSSSample `json:"series,omitempty"`
}

// Stop ends sampling and returns the report.
func (r *RSSSampler) Stop() MemoryReport {
	close(r.stop)
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	var m MemoryReport
	n := len(r.Samples)
	m.Samples = n
	if n == 0 {
		return m
	}
	m.FirstKB, m.LastKB = r.Samples[0].KiB, r.Samples[n-1].KiB
	for _, s := range r.Samples {
		m.PeakKB = max(m.PeakKB, s.KiB)
	}
	median := func(lo, hi int) int64 {
		hi = max(hi, lo+1)
		vals := make([]float64, 0, hi-lo)
		for _, s := range r.Samples[lo:min(hi, n)] {
			vals = append(vals, float64(s.KiB))
		}
		return int64(Summarize(vals).P50)
	}
	tenth := max(n/10, 1)
	m.WarmKB = median(min(tenth, n-1), min(2*tenth, n))
	m.LateKB = median(n-tenth, n)
	m.GrowthKB = m.LateKB - m.WarmKB
	m.Series = r.Samples
	return m
}
