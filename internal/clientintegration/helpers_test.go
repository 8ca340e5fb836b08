package clientintegration_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/internal/devserver"
	"github.com/roomlease/roomlease/internal/emulatortest"
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

// newClient signs up a new anonymous user in the Auth emulator and returns
// a client of base that calls as that user.
func newClient(t *testing.T, base string, opts ...client.Option) (*client.Client, emulatortest.User) {
	t.Helper()
	user := emulatortest.SignUp(t)
	c, err := client.New(base, client.StaticToken(user.IDToken), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, user
}

func roomName(t *testing.T) string { return fmt.Sprintf("client-%d", time.Now().UnixNano()) }

func ptr(s string) *string { return &s }

// eventually polls cond until it holds or limit passes.
func eventually(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: still not %s", limit, what)
		}
	}
}

func names(snap client.RoomSnapshot) []string {
	var out []string
	for _, p := range snap.Participants {
		out = append(out, p.DisplayName)
	}
	return out
}
