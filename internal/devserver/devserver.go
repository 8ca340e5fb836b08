// Package devserver builds cmd/roomlease-dev and runs it against the
// emulators that scripts/test starts, as scripts/dev runs it: the
// end-to-end tests of the dev server and of the Go client share it.
package devserver

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// Build compiles cmd/roomlease-dev into a temporary directory of tb and
// returns the binary's path.
func Build(tb testing.TB) string {
	tb.Helper()
	bin, err := BuildTo(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// BuildTo compiles cmd/roomlease-dev into dir and returns the binary's
// path, for a binary shared by the tests of a package.
func BuildTo(dir string) (string, error) {
	bin := filepath.Join(dir, "roomlease-dev")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/roomlease/roomlease/cmd/roomlease-dev").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// Start runs bin on a free port with the emulators' settings plus env and
// flags, waits until it answers /healthz, and returns its base URL. The
// server stops when tb ends; its output is shown if tb failed.
func Start(tb testing.TB, bin string, env []string, flags ...string) string {
	tb.Helper()
	emulatortest.FirestoreHost(tb)
	emulatortest.AuthHost(tb)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, append([]string{"-host", "127.0.0.1", "-port", port}, flags...)...)
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
	tb.Fatalf("the dev server did not become healthy; its output:\n%s", logs.String())
	return ""
}
