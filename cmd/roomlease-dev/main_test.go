package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// The local server, built and run as scripts/dev runs it, serves the
// README's walk-through: join, heartbeat, read, leave, with a token from the
// Auth emulator. This is what exercises the root package's wiring.
func TestDevServer_Walkthrough(t *testing.T) {
	emulatortest.FirestoreHost(t)
	emulatortest.AuthHost(t)
	base := StartDevServer(t, nil)

	user := emulatortest.SignUp(t)
	room := fmt.Sprintf("walkthrough-%d", time.Now().UnixNano())
	var join struct {
		Generation int64  `json:"generation"`
		Lease      string `json:"leaseExpiresAt"`
	}
	post(t, base+"/v1/rooms/"+room+"/join", user.IDToken, `{"sessionId":"tab-1","displayName":"Ada"}`, 200, &join)
	sess := fmt.Sprintf(`{"sessionId":"tab-1","generation":%d}`, join.Generation)
	post(t, base+"/v1/rooms/"+room+"/heartbeat", user.IDToken, sess, 200, nil)

	req, _ := http.NewRequest("GET", base+"/v1/rooms/"+room, nil)
	req.Header.Set("Authorization", "Bearer "+user.IDToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var roster struct {
		State        string `json:"state"`
		Participants []struct {
			ParticipantID string `json:"participantId"`
		} `json:"participants"`
	}
	json.NewDecoder(resp.Body).Decode(&roster)
	resp.Body.Close()
	if resp.StatusCode != 200 || roster.State != "active" || len(roster.Participants) != 1 || roster.Participants[0].ParticipantID != user.UID {
		t.Fatalf("room read: %d %+v", resp.StatusCode, roster)
	}

	var leave struct {
		Removed bool `json:"removed"`
	}
	post(t, base+"/v1/rooms/"+room+"/leave", user.IDToken, sess, 200, &leave)
	if !leave.Removed {
		t.Fatal("leave removed nothing")
	}
	post(t, base+"/v1/rooms/"+room+"/heartbeat", user.IDToken, sess, 409, nil)
}

// A wrong setting stops the server at start-up with a message naming it.
func TestDevServer_RefusesBadSettings(t *testing.T) {
	bin := buildDevServer(t)
	cmd := exec.Command(bin, "-port", "0")
	cmd.Env = append(os.Environ(), "ROOMLEASE_PROJECT_ID=p", "ROOMLEASE_LEASE=3s")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "at least twice the heartbeat") {
		t.Fatalf("exit %v, output %q", err, out)
	}
}

func buildDevServer(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "roomlease-dev")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// StartDevServer runs the dev server on a free port with the emulators'
// settings plus extra environment and flags, and returns its base URL.
func StartDevServer(tb testing.TB, extraEnv []string, flags ...string) string {
	tb.Helper()
	bin := buildDevServer(tb)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, append([]string{"-host", "127.0.0.1", "-port", port}, flags...)...)
	cmd.Env = append(append(os.Environ(), "ROOMLEASE_PROJECT_ID="+emulatortest.AuthProjectID()), extraEnv...)
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
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
	}
	tb.Fatalf("the dev server did not become healthy")
	return ""
}

func post(tb testing.TB, url, token, body string, want int, out any) {
	tb.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	raw.ReadFrom(resp.Body)
	if resp.StatusCode != want {
		tb.Fatalf("POST %s: %d %s, want %d", url, resp.StatusCode, raw.String(), want)
	}
	if out != nil {
		if err := json.Unmarshal(raw.Bytes(), out); err != nil {
			tb.Fatal(err)
		}
	}
}
