package client_test

import (
	"os"
	"sync"
	"testing"

	"github.com/roomlease/roomlease/internal/devserver"
)

var (
	buildOnce sync.Once
	binDir    string
	bin       string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// startDevServer runs cmd/roomlease-dev (built once for all the tests of
// this package) on a free port against the emulators, as scripts/dev does,
// with extra settings in env. It returns the API's base URL; the server
// stops when tb ends.
func startDevServer(tb testing.TB, env ...string) string {
	tb.Helper()
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "roomlease-client-test"); binErr == nil {
			bin, binErr = devserver.BuildTo(binDir)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return devserver.Start(tb, bin, env)
}
