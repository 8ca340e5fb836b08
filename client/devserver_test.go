package client_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// startDevServer builds cmd/roomlease-dev once and runs it on a free port
// against the emulators, as scripts/dev does, with extra settings in env.
// It returns the API's base URL; the server stops when tb ends.
func startDevServer(tb testing.TB, env ...string) string {
	tb.Helper()
	emulatortest.FirestoreHost(tb)
	emulatortest.AuthHost(tb)
	buildOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "roomlease-client-test")
		if binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "roomlease-dev"), "github.com/roomlease/roomlease/cmd/roomlease-dev").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(filepath.Join(binDir, "roomlease-dev"), "-host", "127.0.0.1", "-port", port)
	cmd.Env = append(append(os.Environ(), "ROOMLEASE_PROJECT_ID="+emulatortest.AuthProjectID()), env...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if tb.Failed() {
			tb.Logf("dev server output:\n%s", logs.String())
		}
	})
	base := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
	}
	tb.Fatal("the dev server did not become healthy")
	return ""
}
