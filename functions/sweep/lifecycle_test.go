package sweep_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
	"github.com/roomlease/roomlease/functions/sweep"
	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A crashed client (heartbeats stop, no leave) disappears once its lease
// ends, and its room is torn down once the grace after that has passed;
// nothing is left under the room, and a closing record tells the story.
// The same whether the sweeper finds leases in the single-field index or
// by lease shard (ROOMLEASE_LEASE_INDEX).
func TestSweep_CrashedClientThenEmptyRoom(t *testing.T) {
	for _, index := range []string{"single", "sharded"} {
		t.Run(index, func(t *testing.T) { crashedClientThenEmptyRoom(t, index == "sharded") })
	}
}

func crashedClientThenEmptyRoom(t *testing.T, byShard bool) {
	f := MustOpen(t)
	if byShard {
		f.store.ListLeasesByShard()
	}
	s := f.sweeper(t, f.store, sweep.Config{})
	alice := f.join(t, "crash", "alice", "tab")
	if _, err := f.store.MarkRead(f.ctx, presence.ReceiptRequest{RoomID: "crash", ParticipantID: "alice", LastReadSeq: 3}); err != nil {
		t.Fatal(err)
	}

	if r := f.pass(t, s); r.SessionsExpired != 0 {
		t.Fatalf("expired a live lease: %+v", r)
	}
	f.clock.Advance(f.settings.Lease) // the lease ends exactly now
	r := f.pass(t, s)
	if r.SessionsExpired != 1 || r.RoomsSuspected != 1 {
		t.Fatalf("after the lease ended: %+v", r)
	}
	if f.exists(t, "rooms/crash/participants/alice") || f.roomState(t, "crash") != "suspected_empty" {
		t.Fatal("alice is still listed, or the room is not suspected_empty")
	}

	f.clock.Advance(f.settings.EmptyRoomGrace - time.Millisecond)
	if r := f.pass(t, s); r.RoomsDeleted != 0 || r.RoomsEligible != 0 {
		t.Fatalf("torn down before the grace ended: %+v", r)
	}
	f.clock.Advance(time.Millisecond)
	r = f.pass(t, s)
	if r.RoomsDeleted != 1 || r.RoomsPurged != 1 || len(r.CleanupLags) != 1 {
		t.Fatalf("after the grace: %+v", r)
	}
	// The lag counts from the lease end, not from when the sweeper came.
	if r.CleanupLags[0] != f.settings.EmptyRoomGrace {
		t.Fatalf("cleanup lag %v, want %v", r.CleanupLags[0], f.settings.EmptyRoomGrace)
	}
	var left []string
	for p := range emulatortest.Snapshot(t, f.client) {
		if strings.HasPrefix(p, "rooms/") {
			left = append(left, p)
		}
	}
	if len(left) != 0 {
		t.Fatalf("left under rooms/: %v", left)
	}
	closing, err := f.client.Doc("roomClosings/crash~" + itoa(alice.CreatedAt.UnixMicro())).Get(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := closing.Data()
	if c["reason"] != "empty" || c["generation"] != int64(1) || c["pendingCleanup"] != false {
		t.Fatalf("closing record %v", c)
	}
}

// docs/races.md, "join in the grace": the last participant leaves, someone joins during
// the grace: the room survives with a new generation, and a cleanup decided
// on the old generation is a no-op.
func TestSweep_AJoinDuringTheGraceKeepsTheRoom(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	alice := f.join(t, "grace", "alice", "tab")
	f.leave(t, alice)
	due := f.dueAfterGrace(t) // the sweeper's view: suspected, generation 1

	f.join(t, "grace", "bob", "phone") // during... after the sweeper looked
	res, err := f.store.TearDown(f.ctx, presence.CandidateOf(due[0]), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != presence.GenerationChanged {
		t.Fatalf("stale cleanup verdict %v, want GenerationChanged", res.Verdict)
	}
	if r := f.pass(t, s); r.RoomsDeleted != 0 || r.RoomsEligible != 0 {
		t.Fatalf("a pass after the rejoin: %+v", r)
	}
	if room := f.docData(t, "rooms/grace"); room["state"] != "active" || room["generation"] != int64(2) {
		t.Fatalf("room %v", room)
	}
}

func (f *fixture) dueAfterGrace(t *testing.T) []presence.Room {
	t.Helper()
	f.clock.Advance(f.settings.EmptyRoomGrace)
	listing, err := f.store.DueRooms(f.ctx, f.clock.Now(), 10, false)
	due := listing.Items
	if err != nil || len(due) == 0 {
		t.Fatalf("due rooms %v %v", due, err)
	}
	return due
}

// Observe mode deletes nothing and reports exactly the rooms that enforce
// mode then deletes. The mode comes from roomlease/config at run time.
func TestSweep_ObserveReportsWhatEnforceDeletes(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{DefaultMode: sweep.Enforce})
	for _, room := range []string{"a", "b", "c"} {
		f.leave(t, f.join(t, room, "u-"+room, "tab"))
	}
	dora := f.join(t, "busy", "dora", "tab")
	f.advanceHeartbeating(t, f.settings.EmptyRoomGrace, dora)

	if err := f.store.SetCleanupMode(f.ctx, "observe"); err != nil {
		t.Fatal(err)
	}
	before := emulatortest.Snapshot(t, f.client)
	observed := f.pass(t, s)
	if observed.Mode != sweep.Observe || observed.RoomsDeleted != 0 {
		t.Fatalf("observe pass: %+v", observed)
	}
	// The only writes: each reported room is marked, so that it is read and
	// reported once per state, not on every pass, and recorded as a
	// teardown candidate in the same commit (the rollout's evidence).
	after := emulatortest.Snapshot(t, f.client)
	var changed, recorded []string
	for _, p := range emulatortest.Changed(before, after) {
		if strings.HasPrefix(p, "teardownCandidates/") {
			room, _, _ := strings.Cut(strings.TrimPrefix(p, "teardownCandidates/"), "~")
			recorded = append(recorded, room)
		} else {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	sort.Strings(recorded)
	if want := []string{"rooms/a", "rooms/b", "rooms/c"}; !equal(changed, want) || !equal(recorded, []string{"a", "b", "c"}) {
		t.Fatalf("observe mode wrote %v and candidates of %v, want only the marks on %v and their candidates", changed, recorded, want)
	}
	for _, p := range changed {
		if room := f.docData(t, p); room["teardownReported"] != true || room["state"] != "suspected_empty" {
			t.Fatalf("%s after observing: %v", p, room)
		}
	}
	if !strings.Contains(f.logs.String(), "would be torn down") {
		t.Fatal("observe mode logged no per-room evidence")
	}
	if again := f.pass(t, s); again.RoomsEligible != 0 || len(again.Candidates) != 0 {
		t.Fatalf("a second observe pass reported the same rooms again: %+v", again)
	}

	if err := f.store.SetCleanupMode(f.ctx, "enforce"); err != nil {
		t.Fatal(err)
	}
	enforced := f.pass(t, s)
	sort.Strings(observed.Candidates)
	sort.Strings(enforced.Deleted)
	if want := []string{"a", "b", "c"}; !equal(observed.Candidates, want) || !equal(enforced.Deleted, want) {
		t.Fatalf("observed %v, enforced %v, want both %v", observed.Candidates, enforced.Deleted, want)
	}
	if f.roomState(t, "busy") != "active" {
		t.Fatal("the busy room was touched")
	}
}

// The kill switch stops teardown but not lease bookkeeping or reporting.
func TestSweep_OffModeKeepsBookkeeping(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{DefaultMode: sweep.Off})
	f.leave(t, f.join(t, "gone", "u", "tab"))
	f.join(t, "crashed", "v", "tab")
	f.clock.Advance(f.settings.EmptyRoomGrace)
	r := f.pass(t, s)
	if r.Mode != sweep.Off || r.SessionsExpired != 1 || r.RoomsDeleted != 0 || r.RoomsEligible != 1 {
		t.Fatalf("off pass: %+v", r)
	}
	if f.roomState(t, "gone") != "suspected_empty" || f.exists(t, "rooms/crashed/participants/v") {
		t.Fatal("off mode deleted a room, or left an expired participant listed")
	}
}

// Expired typing signals are removed; renewed ones stay.
func TestSweep_ClearsExpiredTyping(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{})
	a := f.join(t, "chat", "alice", "tab")
	b := f.join(t, "chat", "bob", "tab")
	for _, sess := range []presence.Session{a, b} {
		if err := errOf(f.store.SetTyping(f.ctx, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "chat", ParticipantID: sess.ParticipantID, SessionID: "tab"}, Generation: sess.Generation}, true)); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(f.settings.TypingExpiry - time.Second)
	if err := errOf(f.store.SetTyping(f.ctx, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: "chat", ParticipantID: "bob", SessionID: "tab"}, Generation: b.Generation}, true)); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	if r := f.pass(t, s); r.TypingCleared != 1 {
		t.Fatalf("pass: %+v", r)
	}
	if f.exists(t, "rooms/chat/typing/alice") || !f.exists(t, "rooms/chat/typing/bob") {
		t.Fatal("wrong typing signal removed")
	}
}

// The sweeper wakes at the next deadline, not a polling period later: a
// crashed client is removed one millisecond after its lease ends.
func TestRun_WakesAtTheNextDeadline(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{MaxWait: time.Minute, RunBudget: 20 * time.Second})
	f.join(t, "soon", "alice", "tab")
	sum := s.Run(f.ctx)
	if sum.SessionsExpired != 1 {
		t.Fatalf("run: %+v", sum)
	}
	if len(f.sleeps) == 0 || f.sleeps[0] != f.settings.Lease+time.Millisecond {
		t.Fatalf("first pause %v, want the lease (%v) plus 1ms", f.sleeps, f.settings.Lease)
	}
}

// Each run logs one summary line in Cloud Logging's shape, with the fields
// the Terraform log-based metrics extract, and keeps it in a status document.
func TestRun_ReportsOneSummaryLine(t *testing.T) {
	f := MustOpen(t)
	s := f.sweeper(t, f.store, sweep.Config{RunBudget: time.Millisecond} /* one pass */)
	// A room id that cannot occur in the summary by accident.
	const room = "standup-7f3a9c"
	f.leave(t, f.join(t, room, "u", "tab"))
	f.clock.Advance(f.settings.EmptyRoomGrace)
	s.Run(f.ctx)

	summary := f.logLine(t, "sweep run")
	for _, k := range []string{"sessionsExpired", "roomsSuspected", "roomsEligible", "roomsDeleted", "roomsPurged", "generationConflicts",
		"failedSteps", "cleanupLagMaxSeconds", "cleanupLagMedianSeconds", "oldestEligibleRoomAgeSeconds", "mode"} {
		if _, ok := summary[k]; !ok {
			t.Errorf("summary lacks %s: %v", k, summary)
		}
	}
	if summary["severity"] != "INFO" || summary["component"] != "sweeper" || summary["roomsDeleted"] != 1.0 ||
		summary["roomsPurged"] != 1.0 || summary["cleanupLagMaxSeconds"] != f.settings.EmptyRoomGrace.Seconds() {
		t.Fatalf("summary %v", summary)
	}
	// Room ids belong in per-room debug lines only: the summary feeds
	// metrics and is read by people who may not see room names.
	if line, _ := json.Marshal(summary); strings.Contains(string(line), room) {
		t.Fatalf("the room id in the summary line: %s", line)
	}
	if !strings.Contains(f.logs.String(), room) {
		t.Fatal("the debug lines lost the room id too; the leak check above proves nothing")
	}
	status, err := f.client.Doc("roomlease/sweepStatus").Get(f.ctx)
	if err != nil || status.Data()["roomsDeleted"] != int64(1) {
		t.Fatalf("status document: %v %v", status.Data(), err)
	}
}

// advanceHeartbeating moves the clock by d in heartbeat-sized steps, renewing
// the given sessions at each step, as live clients would.
func (f *fixture) advanceHeartbeating(t *testing.T, d time.Duration, live ...presence.Session) {
	t.Helper()
	for d > 0 {
		step := min(d, f.settings.Heartbeat)
		f.clock.Advance(step)
		d -= step
		for _, s := range live {
			if _, err := f.store.Heartbeat(f.ctx, presence.SessionRef{SessionKey: presence.SessionKey{RoomID: s.RoomID, ParticipantID: s.ParticipantID, SessionID: s.ID}, Generation: s.Generation}); err != nil {
				t.Fatalf("heartbeat of a live session: %v", err)
			}
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
