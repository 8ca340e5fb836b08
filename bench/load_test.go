package bench_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/roomlease/roomlease/bench"
	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A tiny load run through the real API (in process, on the emulators):
// every join and heartbeat succeeds, nothing live is removed, and steady
// heartbeats wake no roster listener. No assertion depends on timing: the
// lease (10 s) is far longer than the steady phase, and no sweeper runs.
func TestTinyLoadRun(t *testing.T) {
	authHost := emulatortest.AuthHost(t)
	client, _ := emulatortest.Firestore(t)
	ctx := context.Background()
	verifier, err := auth.NewVerifier(ctx, emulatortest.AuthProjectID())
	if err != nil {
		t.Fatal(err)
	}
	settings := presence.DefaultSettings()
	settings.Heartbeat, settings.Lease = time.Second, 10*time.Second
	h := httpapi.New(httpapi.Options{Store: firestoredb.New(client, settings, time.Now), Tokens: verifier, Settings: settings,
		AllowedOrigins: []string{"*"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()

	cfg := bench.WorkloadConfig{Name: "tiny", RoomPrefix: "tiny", Rooms: 2, PerRoom: 3, TwoTabs: 0.5,
		Steady: 2500 * time.Millisecond, ReadEveryTicks: 1, JoinConcurrency: 1, Seed: 1, AuthHost: authHost}
	rep, err := bench.NewWorkload(cfg, srv.URL, client).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FalseRemovals != 0 || rep.ListenerErrors != 0 {
		t.Fatalf("false removals %d, listener errors %d: %v", rep.FalseRemovals, rep.ListenerErrors, rep.FalseDetails)
	}
	for _, op := range []bench.Op{bench.OpJoin, bench.OpHeartbeat, bench.OpRead} {
		o := rep.Ops[op]
		if o.OK == 0 || o.Client4xx+o.Server5xx+o.Transport != 0 {
			t.Errorf("%s: %+v", op, o)
		}
	}
	if rep.Users != 6 || rep.Ops[bench.OpJoin].OK < 6 {
		t.Errorf("users %d, joins %d", rep.Users, rep.Ops[bench.OpJoin].OK)
	}
	if s := rep.Steady; s.Heartbeats == 0 || s.RosterDeliveries != 0 || s.RoomDocDeliveries != 0 {
		t.Errorf("steady phase: %+v; heartbeats must not reach roster or room listeners", s)
	}
}

// Per-operation costs are exact counts, and the ones the design promises
// hold: a heartbeat is one read and one write and touches neither the room
// document nor a roster entry; a stale leave writes nothing.
func TestMeasureOps(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	counts, err := bench.MeasureOps(context.Background(), client, "ops")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]bench.OpCount{}
	for _, c := range counts {
		by[c.Op] = c
	}
	for _, name := range []string{"heartbeat #1", "heartbeat #2", "heartbeat #3"} {
		c := by[name]
		if c.Reads != 1 || c.Writes != 1 || c.RoomWritten || c.RosterWritten {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if c := by["leave: stale generation (no effect)"]; c.Writes != 0 || c.RoomWritten || c.RosterWritten {
		t.Errorf("stale leave: %+v", c)
	}
	if c := by["join: reconnect of a known session (new generation)"]; c.RoomWritten || c.RosterWritten {
		t.Errorf("reconnect: %+v", c)
	}
	if c := by["sweep pass: idle"]; c.Writes != 0 {
		t.Errorf("idle pass: %+v", c)
	}
	if md := bench.OpsMarkdown(counts); len(md) == 0 {
		t.Error("no markdown")
	}
}

// An idle sweeper's reads do not grow with the number of rooms.
func TestIdleSweepCostFlat(t *testing.T) {
	ctx := context.Background()
	small, _ := emulatortest.Firestore(t)
	big, _ := emulatortest.Firestore(t)
	a, err := bench.IdleSweepCost(ctx, small, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bench.IdleSweepCost(ctx, big, 60, 2)
	if err != nil {
		t.Fatal(err)
	}
	if a.ReadsPerPass != b.ReadsPerPass || a.WritesPerPass != 0 {
		t.Fatalf("3 rooms: %+v; 60 rooms: %+v", a, b)
	}
}
