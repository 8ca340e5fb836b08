// Package emulatortest connects tests to the Firestore and Auth emulators
// that scripts/test starts.
//
// Each test gets a Firestore project of its own, so tests in different
// packages run in parallel against one emulator without seeing each other's
// documents, and each project is wiped when its test ends.
//
// A test that needs an emulator fails when none is configured: a skipped
// store test must never pass for a tested one. Set
// ROOMLEASE_SKIP_EMULATOR_TESTS=1 to skip them knowingly.
package emulatortest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
)

// FirestoreHost returns the emulator's host:port, failing tb when unset.
func FirestoreHost(tb testing.TB) string {
	tb.Helper()
	return requireEnv(tb, "FIRESTORE_EMULATOR_HOST")
}

// AuthHost returns the Auth emulator's host:port, failing tb when unset.
func AuthHost(tb testing.TB) string {
	tb.Helper()
	return requireEnv(tb, "FIREBASE_AUTH_EMULATOR_HOST")
}

func requireEnv(tb testing.TB, name string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("ROOMLEASE_SKIP_EMULATOR_TESTS") == "1" {
			tb.Skipf("%s is not set and ROOMLEASE_SKIP_EMULATOR_TESTS=1", name)
		}
		tb.Fatalf("%s is not set: run the tests with scripts/test, which starts the emulators", name)
	}
	return v
}

var unsafeProjectChars = regexp.MustCompile(`[^a-z0-9-]+`)

// NewProjectID returns a project id unique to this test.
func NewProjectID(tb testing.TB) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	name := strings.Trim(unsafeProjectChars.ReplaceAllString(strings.ToLower(tb.Name()), "-"), "-")
	if len(name) > 20 {
		name = name[:20]
	}
	return "test-" + name + "-" + hex.EncodeToString(b)
}

// Firestore returns a client on a fresh project of the emulator, closed and
// wiped when tb ends, and that project's id.
func Firestore(tb testing.TB) (*firestore.Client, string) {
	tb.Helper()
	host := FirestoreHost(tb)
	project := NewProjectID(tb)
	client, err := firestore.NewClient(context.Background(), project)
	if err != nil {
		tb.Fatalf("firestore client: %v", err)
	}
	tb.Cleanup(func() {
		client.Close()
		Reset(tb, host, project)
	})
	return client, project
}

// Reset deletes every document of project in the emulator at host. Each
// test has a project of its own, so a reset is hygiene, not isolation: the
// emulator sometimes refuses one while streams of that project are still
// closing (499), so it is retried a few times and then only logged.
func Reset(tb testing.TB, host, project string) {
	tb.Helper()
	url := fmt.Sprintf("http://%s/emulator/v1/projects/%s/databases/(default)/documents", host, project)
	var last string
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			last = err.Error()
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return
		}
		last = resp.Status
	}
	tb.Logf("could not reset emulator project %s (%s); its documents stay, unseen by other tests", project, last)
}

// Snapshot maps every document path in the project, subcollections
// included, to its update time: a fingerprint of the stored state.
// Comparing two snapshots shows exactly which documents a step wrote.
func Snapshot(tb testing.TB, client *firestore.Client) map[string]time.Time {
	tb.Helper()
	ctx := context.Background()
	out := map[string]time.Time{}
	var walk func(col *firestore.CollectionRef)
	walk = func(col *firestore.CollectionRef) {
		// DocumentRefs also lists "missing" parents that only hold
		// subcollections, so orphaned sessions are found too.
		refs := col.DocumentRefs(ctx)
		for {
			ref, err := refs.Next()
			if err == iterator.Done {
				break
			}
			if err != nil {
				tb.Fatalf("listing %s: %v", col.Path, err)
			}
			snap, err := ref.Get(ctx)
			if err == nil && snap.Exists() {
				out[relPath(ref.Path)] = snap.UpdateTime
			}
			subs := ref.Collections(ctx)
			for {
				sub, err := subs.Next()
				if err == iterator.Done {
					break
				}
				if err != nil {
					tb.Fatalf("listing subcollections of %s: %v", ref.Path, err)
				}
				walk(sub)
			}
		}
	}
	tops := client.Collections(ctx)
	for {
		col, err := tops.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			tb.Fatalf("listing collections: %v", err)
		}
		walk(col)
	}
	return out
}

// Changed lists the paths whose presence or update time differs between two
// snapshots.
func Changed(before, after map[string]time.Time) []string {
	var out []string
	for p, t := range after {
		if bt, ok := before[p]; !ok || !bt.Equal(t) {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// relPath strips "projects/P/databases/D/documents/" from a document name.
func relPath(name string) string {
	if i := strings.Index(name, "/documents/"); i >= 0 {
		return name[i+len("/documents/"):]
	}
	return name
}

// FirestoreVia returns a client for project that reaches the emulator
// through addr (a fault proxy, say). It reconnects quickly after an outage:
// gRPC's default reconnect backoff grows to minutes, which would make a test
// of recovery wait on the client rather than on the code under test.
func FirestoreVia(tb testing.TB, addr, project string) *firestore.Client {
	tb.Helper()
	host := FirestoreHost(tb)
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(ownerCredentials{}),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.5, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		tb.Fatal(err)
	}
	// Without FIRESTORE_EMULATOR_HOST the client uses the given connection
	// as it is; with it, it would dial the emulator directly.
	tb.Setenv("FIRESTORE_EMULATOR_HOST", "")
	client, err := firestore.NewClient(context.Background(), project, option.WithGRPCConn(conn))
	os.Setenv("FIRESTORE_EMULATOR_HOST", host) // back for the rest of the test
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	return client
}

// ownerCredentials is the emulator's way of saying "an Admin SDK": requests
// bypass security rules, as server code's requests do in production.
type ownerCredentials struct{}

func (ownerCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}

func (ownerCredentials) RequireTransportSecurity() bool { return false }
