package bench_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/bench"
	"github.com/roomlease/roomlease/functions/auth"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/httpapi"
	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/internal/emulatortest"

	"github.com/roomlease/roomlease/bench/measure"
	"github.com/roomlease/roomlease/bench/workload"
)

// A tiny load run through the real API (in process, on the emulators):
// every join and heartbeat succeeds, nothing live is removed, and steady
// heartbeats wake no roster listener. No assertion depends on timing: the
// lease (10 s) is far longer than the steady phase, and no sweeper runs.
// The clients heartbeat at renewAt, so the server asks for a renewal when
// 9 s are left: a heartbeat a second, several in the steady phase.
//
// Zero deliveries proves nothing on its own: a listener on the wrong path
// also sees none. So the run ends with a drain, and the same listeners must
// see what did change: the room-document listener saw both rooms exist, and
// the roster listener saw every user of the even room leave (the odd room's
// users crash, and without a sweeper their entries stay).
func TestTinyLoadRun(t *testing.T) {
	authHost := emulatortest.AuthHost(t)
	client, _ := emulatortest.Firestore(t)
	ctx := context.Background()
	verifier, err := auth.NewVerifier(ctx, emulatortest.AuthProjectID(), auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	settings := presence.DefaultSettings()
	settings.Heartbeat, settings.Lease, settings.RenewWhenLeft = time.Second, 10*time.Second, 0.9
	h := httpapi.New(httpapi.Options{Store: firestoredb.New(client, settings, time.Now), Tokens: verifier, Settings: settings,
		AllowedOrigins: []string{"*"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()

	cfg := workload.WorkloadConfig{Name: "tiny", RoomPrefix: "tiny", Rooms: 2, PerRoom: 3, TwoTabs: 0.5,
		Steady: 2500 * time.Millisecond, ReadEveryTicks: 1, JoinConcurrency: 1, Seed: 1, AuthHost: authHost,
		Drain: true, DrainWait: 2 * time.Second}
	rep, err := workload.NewWorkload(cfg, srv.URL, client).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FalseRemovals != 0 || rep.ListenerErrors != 0 {
		t.Fatalf("false removals %d, listener errors %d: %v", rep.FalseRemovals, rep.ListenerErrors, rep.FalseDetails)
	}
	for _, op := range []workload.Op{workload.OpJoin, workload.OpHeartbeat, workload.OpRead} {
		o := rep.Ops[op]
		if o.OK == 0 || o.Client4xx+o.Server5xx+o.Transport != 0 {
			t.Errorf("%s: %+v", op, o)
		}
	}
	if rep.Users != 6 || rep.Ops[workload.OpJoin].OK < 6 {
		t.Errorf("users %d, joins %d", rep.Users, rep.Ops[workload.OpJoin].OK)
	}
	if s := rep.Steady; s.Heartbeats == 0 || s.RosterDeliveries != 0 || s.RoomDocDeliveries != 0 {
		t.Errorf("steady phase: %+v; heartbeats must not reach roster or room listeners", s)
	}
	// The positive control: the listeners were on the paths that change.
	if rep.RoomsLeft != cfg.Rooms {
		t.Errorf("the room-document listener saw %d of %d rooms exist", rep.RoomsLeft, cfg.Rooms)
	}
	if rep.LeaveDrain.N != cfg.PerRoom {
		t.Errorf("the roster listener saw %d of the %d leaves of the even room", rep.LeaveDrain.N, cfg.PerRoom)
	}
}

// Per-operation costs are exact counts, and the ones the design promises
// hold: a heartbeat is one read (plus the room's policy once per
// ROOMLEASE_POLICY_CACHE per instance), and one write only when it renews, and
// touches neither the room document nor a roster entry; a stale leave writes nothing. The rendered
// table carries every measured operation with its counts.
func TestMeasureOps(t *testing.T) {
	client, _ := emulatortest.Firestore(t)
	counts, err := measure.MeasureOps(context.Background(), client, "ops")
	if err != nil {
		t.Fatal(err)
	}
	for name, writes := range map[string]int64{measure.HeartbeatSkipLabel: 0, measure.HeartbeatRenewLabel: 1, "heartbeat: right after a renewal (writes nothing)": 0} {
		c := opCount(t, counts, name)
		if c.Reads != 1 || c.Writes != writes || c.RoomWritten || c.RosterWritten {
			t.Errorf("%s: %+v, want 1 read, %d writes, neither room nor roster written", name, c, writes)
		}
	}
	// The policy read: once per room, instance and ROOMLEASE_POLICY_CACHE.
	if c := opCount(t, counts, measure.HeartbeatPolicyLabel); c.Reads != 2 || c.Writes != 0 || c.RoomWritten || c.RosterWritten {
		t.Errorf("%s: %+v, want 2 reads (session and policy), no writes", measure.HeartbeatPolicyLabel, c)
	}
	if c := opCount(t, counts, "leave: stale generation (no effect)"); c.Writes != 0 || c.RoomWritten || c.RosterWritten {
		t.Errorf("stale leave: %+v", c)
	}
	if c := opCount(t, counts, "join: reconnect of a known session (new generation)"); c.RoomWritten || c.RosterWritten {
		t.Errorf("reconnect: %+v", c)
	}
	if c := opCount(t, counts, measure.OutsiderReadLabel); c.Reads > 2 || c.Writes != 0 {
		t.Errorf("outsider's room read: %+v, want at most 2 reads and no write", c)
	}
	if c := opCount(t, counts, "sweep pass: idle"); c.Writes != 0 {
		t.Errorf("idle pass: %+v", c)
	}
	// runSettings shows these two beside the heartbeats in its table.
	for _, name := range []string{"join: another user", "leave: a user's last tab"} {
		if c := opCount(t, counts, name); c.Reads == 0 || c.Writes == 0 {
			t.Errorf("%s: %+v; a join or leave that reads or writes nothing was not measured", name, c)
		}
	}

	md := bench.OpsMarkdown(counts)
	rows := markdownRows(md)
	if len(rows) != len(counts) {
		t.Fatalf("the table has %d rows for %d operations:\n%s", len(rows), len(counts), md)
	}
	yn := map[bool]string{true: "yes", false: "no"}
	for i, c := range counts {
		want := []string{c.Op, strconv.FormatInt(c.Reads, 10), strconv.FormatInt(c.Writes, 10), yn[c.RoomWritten], yn[c.RosterWritten]}
		if !slices.Equal(rows[i], want) {
			t.Errorf("row %d: %q, want %q", i, rows[i], want)
		}
	}
}

// opCount returns the measurement labelled name, and fails the test if there
// is none (or more than one): a renamed label must not read as zero reads
// and zero writes, which several checks above would accept.
func opCount(t *testing.T, counts []measure.OpCount, name string) measure.OpCount {
	t.Helper()
	var found []measure.OpCount
	for _, c := range counts {
		if c.Op == name {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		labels := make([]string, len(counts))
		for i, c := range counts {
			labels[i] = c.Op
		}
		t.Fatalf("%d operations labelled %q; the labels are %q", len(found), name, labels)
	}
	return found[0]
}

// markdownRows returns the cells of a Markdown table's body rows (after the
// header and the |---| line).
func markdownRows(md string) [][]string {
	var rows [][]string
	lines := strings.Split(strings.TrimSpace(md), "\n")
	for _, line := range lines[min(2, len(lines)):] {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

// An idle sweeper's reads do not grow with the number of rooms.
func TestIdleSweepCostFlat(t *testing.T) {
	ctx := context.Background()
	small, _ := emulatortest.Firestore(t)
	big, _ := emulatortest.Firestore(t)
	a, err := measure.IdleSweepCost(ctx, small, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := measure.IdleSweepCost(ctx, big, 60, 2)
	if err != nil {
		t.Fatal(err)
	}
	if a.ReadsPerPass != b.ReadsPerPass || a.WritesPerPass != 0 {
		t.Fatalf("3 rooms: %+v; 60 rooms: %+v", a, b)
	}
}
