package sweep_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/logging"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
	"github.com/roomlease/roomlease/internal/testclock"
	"github.com/roomlease/roomlease/internal/testlog"
)

type fixture struct {
	ctx      context.Context
	client   *firestore.Client
	project  string
	clock    *testclock.Clock
	settings presence.Settings
	store    *firestoredb.Store // what the API writes through
	logs     *testlog.Buffer
	sleeps   []time.Duration // every pause a sweeper took, in order
	mu       sync.Mutex
}

func MustOpen(tb testing.TB) *fixture {
	tb.Helper()
	client, project := emulatortest.Firestore(tb)
	clock := testclock.New(testclock.Start)
	settings := presence.DefaultSettings()
	store := firestoredb.New(client, settings, clock.Now)
	if emulatortest.LeasesByShard() {
		store.ListLeasesByShard()
	}
	return &fixture{ctx: context.Background(), client: client, project: project, clock: clock, settings: settings,
		store: store, logs: &testlog.Buffer{}}
}

// sweeper returns a sweeper on store whose pauses advance the test clock
// instead of waiting.
func (f *fixture) sweeper(tb testing.TB, store sweep.Store, cfg sweep.Config) *sweep.Sweeper {
	tb.Helper()
	s, err := sweep.New(store, cfg, f.clock.Now, func(ctx context.Context, d time.Duration) error {
		f.mu.Lock()
		f.sleeps = append(f.sleeps, d)
		f.mu.Unlock()
		f.clock.Advance(d)
		return ctx.Err()
	}, logging.New(f.logs, levelDebug))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (f *fixture) join(tb testing.TB, room, uid, session string) presence.Session {
	tb.Helper()
	res, err := f.store.Join(f.ctx, presence.JoinRequest{SessionKey: presence.SessionKey{RoomID: room, ParticipantID: uid, SessionID: session}})
	if err != nil {
		tb.Fatalf("join %s/%s/%s: %v", room, uid, session, err)
	}
	return res.Session
}

func (f *fixture) leave(tb testing.TB, s presence.Session) {
	tb.Helper()
	res, err := f.store.Leave(f.ctx, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: s.RoomID, ParticipantID: s.ParticipantID, SessionID: s.ID}, Generation: s.Generation})
	if err != nil || !res.Removed {
		tb.Fatalf("leave: removed=%v err=%v", res.Removed, err)
	}
}

func (f *fixture) exists(tb testing.TB, path string) bool {
	tb.Helper()
	snap, err := f.client.Doc(path).Get(f.ctx)
	if err != nil && snap == nil {
		tb.Fatalf("reading %s: %v", path, err)
	}
	return snap.Exists()
}

func (f *fixture) roomState(tb testing.TB, room string) string {
	tb.Helper()
	snap, err := f.client.Collection("rooms").Doc(room).Get(f.ctx)
	if err != nil {
		if snap != nil && !snap.Exists() {
			return "deleted"
		}
		tb.Fatal(err)
	}
	s, _ := snap.Data()["state"].(string)
	return s
}

func (f *fixture) pass(tb testing.TB, s *sweep.Sweeper) sweep.PassReport {
	tb.Helper()
	r := s.Pass(f.ctx)
	if r.Err != nil {
		tb.Fatalf("pass failed: %v", r.Err)
	}
	return r
}

// logLine returns the one log line whose message is message, decoded; it
// fails the test unless there is exactly one.
func (f *fixture) logLine(tb testing.TB, message string) map[string]any {
	tb.Helper()
	found := f.logs.Lines(tb, map[string]any{"message": message})
	if len(found) != 1 {
		tb.Fatalf("%d %q lines, want one, in %s", len(found), message, f.logs.String())
	}
	return found[0]
}

// docData returns the fields of the document at path, failing the test if
// it cannot be read or does not exist.
func (f *fixture) docData(tb testing.TB, path string) map[string]any {
	tb.Helper()
	snap, err := f.client.Doc(path).Get(f.ctx)
	if err != nil {
		tb.Fatalf("reading %s: %v", path, err)
	}
	return snap.Data()
}

// leaveUnsettled is a leave whose request died between its commit and
// its emptiness check: what its transaction wrote (the entry and session
// gone, the departure's repair mark among the room's revision documents),
// and nothing after it. The leave runs whole, and the room document is
// then put back as it stood before it.
func (f *fixture) leaveUnsettled(tb testing.TB, s presence.Session) {
	tb.Helper()
	room := f.docData(tb, "rooms/"+s.RoomID)
	f.leave(tb, s)
	if _, err := f.client.Doc("rooms/"+s.RoomID).Set(f.ctx, room); err != nil {
		tb.Fatal(err)
	}
}

// closingOf returns the fields of room's one closing record.
func (f *fixture) closingOf(tb testing.TB, room string) map[string]any {
	tb.Helper()
	snaps, err := f.client.Collection(firestoredb.ClosingsCollection).Where("roomId", "==", room).Documents(f.ctx).GetAll()
	if err != nil || len(snaps) != 1 {
		tb.Fatalf("closing records of %s: %d, %v; want 1", room, len(snaps), err)
	}
	return snaps[0].Data()
}

// errOf is the error of a call that also returns a value the test ignores.
func errOf[T any](_ T, err error) error { return err }
